import hashlib
import hmac
import time


def verify(secret: str, signature_header: str, raw_body: bytes, tolerance: int = 300) -> bool:
    """True when `X-Service-Signature` signs these exact bytes with this endpoint's secret.

    During a secret rotation the header carries two `v1` values (new and old secret): any match.
    """
    try:
        pairs = [p.split("=", 1) for p in signature_header.split(",")]
        t = next(value for name, value in pairs if name == "t")
        v1s = [value for name, value in pairs if name == "v1"]
        if abs(time.time() - int(t)) > tolerance:
            return False
    except (StopIteration, ValueError):
        return False
    signed = t.encode() + b"." + raw_body
    expected = hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
    return any(hmac.compare_digest(expected, v1) for v1 in v1s)


# Command line (used by the tests): python3 verify.py SECRET SIGNATURE_HEADER < raw_body
if __name__ == "__main__":
    import sys

    ok = verify(sys.argv[1], sys.argv[2], sys.stdin.buffer.read())
    print("valid" if ok else "invalid")
    sys.exit(0 if ok else 1)
