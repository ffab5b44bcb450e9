#!/usr/bin/env python3
"""A webhook that admits everything, for what the suite needs besides gpulint:

    test_webhook.py CERT KEY PORT_FILE [--patch FIELD KEY=VALUE] [--record DIR]

Serves HTTPS on a free loopback port (written to PORT_FILE).

--patch labels|annotations KEY=VALUE: on a path under /mutate (or /, for a
  webhook registered as mutating only), sets that label or annotation on the
  object where it is missing. Scenario h registers it after gpulint's
  mutating webhook to label every pod, so that the API server reinvokes
  gpulint; capture_reviews.sh annotates as the captures' README says.
--record DIR: every request body written, byte for byte as the API server
  sent it, to DIR/NNNN-ENDPOINT.json in the order received (ENDPOINT: the
  path's first segment), and the request line and headers of the first one
  to DIR/headers.txt.
"""
import argparse
import base64
import http.server
import json
import os
import ssl
import threading


class Handler(http.server.BaseHTTPRequestHandler):
    patch = None  # (field, key, value)
    record = None  # directory
    count = 0
    lock = threading.Lock()

    def do_POST(self):
        raw = self.rfile.read(int(self.headers["Content-Length"]))
        endpoint = self.path.lstrip("/").split("?")[0].split("/")[0] or "mutate"
        if self.record:
            self.save(raw, endpoint)
        review = json.loads(raw)
        request = review["request"]
        response = {"uid": request["uid"], "allowed": True}
        ops = self.patch_ops(request) if endpoint == "mutate" and self.patch else None
        if ops:
            response["patchType"] = "JSONPatch"
            response["patch"] = base64.b64encode(json.dumps(ops).encode()).decode()
        body = json.dumps({"apiVersion": review["apiVersion"], "kind": "AdmissionReview",
                           "response": response}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def patch_ops(self, request):
        field, key, value = self.patch
        if request.get("subResource"):
            return None  # a subresource's update may change nothing else
        metadata = (request.get("object") or {}).get("metadata", {})
        have = metadata.get(field)
        if have is None:
            return [{"op": "add", "path": "/metadata/" + field, "value": {key: value}}]
        if key not in have:
            escaped = key.replace("~", "~0").replace("/", "~1")
            return [{"op": "add", "path": "/metadata/%s/%s" % (field, escaped), "value": value}]
        return None

    def save(self, raw, endpoint):
        with Handler.lock:
            Handler.count += 1
            n = Handler.count
            if n == 1:
                head = "%s %s\n" % (self.command, self.path)
                head += "".join("%s: %s\n" % (k, v) for k, v in self.headers.items())
                with open(os.path.join(self.record, "headers.txt"), "w") as f:
                    f.write(head)
        path = os.path.join(self.record, "%04d-%s.json" % (n, endpoint))
        with open(path + ".tmp", "wb") as f:
            f.write(raw)
        os.rename(path + ".tmp", path)

    def log_message(self, *args):
        pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("cert")
    parser.add_argument("key")
    parser.add_argument("port_file")
    parser.add_argument("--patch", nargs=2, metavar=("FIELD", "KEY=VALUE"))
    parser.add_argument("--record", metavar="DIR")
    args = parser.parse_args()
    if args.patch:
        field, pair = args.patch
        if field not in ("labels", "annotations") or "=" not in pair:
            parser.error("--patch labels|annotations KEY=VALUE")
        Handler.patch = (field, *pair.split("=", 1))
    Handler.record = args.record
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert, args.key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(args.port_file + ".tmp", args.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
