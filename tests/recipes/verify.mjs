import { createHmac, timingSafeEqual } from "node:crypto";

// True when `X-Service-Signature` signs these exact bytes (a Buffer) with this endpoint's secret.
// During a secret rotation the header carries two `v1` values (new and old secret): any match.
export function verify(secret, signatureHeader, rawBody, toleranceSecs = 300) {
  const pairs = signatureHeader.split(",").map((p) => [p.slice(0, p.indexOf("=")), p.slice(p.indexOf("=") + 1)]);
  const t = pairs.find(([name]) => name === "t")?.[1];
  const v1s = pairs.filter(([name, value]) => name === "v1" && /^[0-9a-f]{64}$/.test(value));
  if (!/^[0-9]+$/.test(t ?? "")) return false;
  if (Math.abs(Date.now() / 1000 - Number(t)) > toleranceSecs) return false;
  const expected = createHmac("sha256", secret).update(`${t}.`).update(rawBody).digest();
  return v1s.some(([, v1]) => timingSafeEqual(expected, Buffer.from(v1, "hex")));
}

// Command line (used by the tests): node verify.mjs SECRET SIGNATURE_HEADER < raw_body
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop())) {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const ok = verify(process.argv[2], process.argv[3], Buffer.concat(chunks));
  console.log(ok ? "valid" : "invalid");
  process.exit(ok ? 0 : 1);
}
