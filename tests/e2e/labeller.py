#!/usr/bin/env python3
"""A second mutating webhook for scenario h: it labels every pod it is sent
(e2e.gpulint.io/labelled=true), so that, registered after gpulint's, it
changes the pod after gpulint has mutated it and the API server reinvokes
gpulint (reinvocationPolicy: IfNeeded), which must then add nothing.

    labeller.py CERT KEY PORT_FILE    (serves HTTPS on a free loopback port)
"""
import base64
import http.server
import json
import os
import ssl
import sys


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        review = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        request = review["request"]
        labels = (request.get("object") or {}).get("metadata", {}).get("labels")
        response = {"uid": request["uid"], "allowed": True}
        if labels is None:
            patch = [{"op": "add", "path": "/metadata/labels", "value": {"e2e.gpulint.io/labelled": "true"}}]
        elif "e2e.gpulint.io/labelled" not in labels:
            patch = [{"op": "add", "path": "/metadata/labels/e2e.gpulint.io~1labelled", "value": "true"}]
        else:
            patch = None
        if patch:
            response["patchType"] = "JSONPatch"
            response["patch"] = base64.b64encode(json.dumps(patch).encode()).decode()
        body = json.dumps({"apiVersion": review["apiVersion"], "kind": "AdmissionReview",
                           "response": response}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def main():
    cert, key, port_file = sys.argv[1:4]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    with open(port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(port_file + ".tmp", port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
