"""A normal client that opens a new TLS connection for every review, as an
API server does after an idle spell: the latency it measures includes the
connect and the handshake, which is where slow clients could make it wait.
Usage: fresh_client.py PORT CA_FILE REVIEW_FILE ENDPOINT SECONDS
Prints "RESULT reviews=N failed=N p99_ms=X max_ms=X"; a review fails when it
is not answered 200 with its uid within 5 s."""
import json
import socket
import ssl
import sys
import time

port, ca, review, endpoint, seconds = sys.argv[1:6]
body = open(review, "rb").read()
uid = json.loads(body)["request"]["uid"].encode()
request = (f"POST /{endpoint} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
           f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode() + body
ctx = ssl.create_default_context(cafile=ca)
latencies, failed = [], 0
end = time.time() + float(seconds)
while time.time() < end:
    start = time.time()
    ok = False
    try:
        with socket.create_connection(("127.0.0.1", int(port)), timeout=5) as raw:
            with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as s:
                s.sendall(request)
                data = b""
                while True:
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    data += chunk
        ok = data.startswith(b"HTTP/1.1 200 ") and b'"uid":"' + uid + b'"' in data
    except OSError:
        pass
    latencies.append((time.time() - start) * 1000)
    failed += 0 if ok else 1
    time.sleep(0.01)
latencies.sort()
p99 = latencies[max(0, int(len(latencies) * 0.99) - 1)] if latencies else 0
print(f"RESULT reviews={len(latencies)} failed={failed} p99_ms={p99:.0f} "
      f"max_ms={(latencies[-1] if latencies else 0):.0f}")
