"""A webhook receiver that answers 204 and appends each delivery (path, headers, body as
base64) to a JSON-lines file, for the Standard Webhooks verifications to read.

    python3 record.py PORT FILE
"""

import base64
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Recorder(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        line = {
            "path": self.path,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "body": base64.b64encode(body).decode(),
        }
        with open(sys.argv[2], "a") as out:
            out.write(json.dumps(line) + "\n")
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Recorder).serve_forever()
