"""One review sent in two halves over one TLS connection, the second half
only once a file appears: a request that is in flight (its first bytes read
by the server) across a moment the caller picks, such as the listener closing.
Usage: slow_request.py PORT CA_FILE REVIEW_FILE ENDPOINT SENT_FLAG GO_FLAG
Prints "status=N uid_ok=yes|no" after the answer, and exits 1 without one."""
import json
import os
import socket
import ssl
import sys
import time

port, ca, review, endpoint, sent_flag, go_flag = sys.argv[1:7]
body = open(review, "rb").read()
uid = json.loads(body)["request"]["uid"]
ctx = ssl.create_default_context(cafile=ca)
sock = ctx.wrap_socket(socket.create_connection(("127.0.0.1", int(port)), timeout=30),
                       server_hostname="127.0.0.1")
head = (f"POST /{endpoint} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n").encode()
half = len(body) // 2
sock.sendall(head + body[:half])
open(sent_flag, "w").close()
deadline = time.time() + 30
while not os.path.exists(go_flag) and time.time() < deadline:
    time.sleep(0.02)
sock.sendall(body[half:])
data = b""
while b"\r\n\r\n" not in data or len(data) < data.index(b"\r\n\r\n") + 4 + int(
        [l for l in data.split(b"\r\n") if l.lower().startswith(b"content-length:")][0].split(b":")[1]):
    chunk = sock.recv(65536)
    if not chunk:
        break
    data += chunk
if not data.startswith(b"HTTP/1.1 "):
    print("no answer")
    sys.exit(1)
answer = data.split(b"\r\n\r\n", 1)[1]
ok = f'"uid":"{uid}"'.encode() in answer and b'"allowed":' in answer
print(f"status={int(data[9:12])} uid_ok={'yes' if ok else 'no'}")
