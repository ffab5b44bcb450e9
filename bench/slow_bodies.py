#!/usr/bin/env python3
"""What a connection costs gpulint-webhook while its client holds it: N TLS
connections that each finish the handshake and then stay idle (idle), or
that each send a review's head announcing a 3 MB body, then 45 bytes of it
in three sends a moment apart, as a slow client does, and stop (slow-body). Prints the webhook's RSS growth per connection (KiB),
read from /proc while they are held. Run each against a fresh webhook: memory
freed by an earlier run would be reused unseen. The review of issue 32
measured slow-body at about 430 KiB per connection.
Usage: slow_bodies.py PID PORT CA_FILE idle|slow-body [N]   (N: 200)"""
import socket
import ssl
import sys
import time

pid, port, ca, mode = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
n = int(sys.argv[5]) if len(sys.argv) > 5 else 200


def rss_kib():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def hold(sends):
    ctx = ssl.create_default_context(cafile=ca)
    before = rss_kib()
    conns = []
    for _ in range(n):
        raw = socket.create_connection(("127.0.0.1", port), timeout=10)
        conns.append(ctx.wrap_socket(raw, server_hostname="127.0.0.1"))
    for send in sends:
        for s in conns:
            s.sendall(send)
        time.sleep(0.2)
    time.sleep(1)  # the server reads what was sent
    grown = rss_kib() - before
    for s in conns:
        s.close()
    time.sleep(1)
    return grown / n


head = (b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 3000000\r\n\r\n")
if mode == "idle":
    print(f"idle after the handshake: {hold([]):.1f} KiB per connection ({n})")
else:
    grown = hold([head] + [b" " * 15] * 3)
    print(f"a 3 MB body announced, 45 bytes sent: {grown:.1f} KiB per connection ({n})")
