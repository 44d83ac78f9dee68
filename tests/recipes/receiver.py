"""A webhook receiver for trying the service locally: it verifies each delivery with the API
guide's recipe (verify.py beside it) and prints one JSON line per request:
{"verified": true, "event": ..., "delivery": ..., "payload": {...}}.

    python3 tests/recipes/receiver.py PORT SECRET
"""

import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from verify import verify  # noqa: E402

PORT, SECRET = int(sys.argv[1]), sys.argv[2]


class Hook(BaseHTTPRequestHandler):
    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        ok = verify(SECRET, self.headers.get("X-Service-Signature", ""), raw)
        line = {
            "verified": ok,
            "event": self.headers.get("X-Service-Event"),
            "delivery": self.headers.get("X-Service-Delivery"),
            "payload": json.loads(raw) if ok else None,
        }
        print(json.dumps(line), flush=True)
        self.send_response(200 if ok else 400)
        self.end_headers()

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", PORT), Hook).serve_forever()
