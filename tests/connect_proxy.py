#!/usr/bin/env python3
"""An HTTP proxy that serves CONNECT and nothing else, for the API server
client's tests (kube/https_client_test.cc): a proxy that is not gpulint's own
code, on loopback, as tinyproxy or squid would be in a cluster's network.

  connect_proxy.py [--auth USER:PASSWORD] [--map HOST=ADDRESS]... [--log FILE]

Prints its port on the first line of stdout, then serves until killed. Each
CONNECT it tunnels is appended to --log as "CONNECT host:port" (and each it
refuses as "REFUSED host:port STATUS"). --auth asks for that Basic credential
(407 without it); --map resolves HOST to ADDRESS, so a test can name a server
that only the proxy can reach. Other methods get 405.
"""
import argparse
import base64
import select
import socket
import sys
import threading


def relay(a, b):
    """Copies bytes both ways until either side closes."""
    socks = [a, b]
    try:
        while True:
            readable, _, _ = select.select(socks, [], [], 60)
            if not readable:
                return
            for s in readable:
                data = s.recv(65536)
                if not data:
                    return
                (b if s is a else a).sendall(data)
    except OSError:
        return


def serve(conn, args, log_lock):
    target = None
    try:
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = conn.recv(4096)
            if not chunk or len(head) > 65536:
                return
            head += chunk
        lines = head.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
        method, target, _ = (lines[0].split(" ") + ["", ""])[:3]
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()

        def refuse(status, extra=""):
            # Logged before the answer, so a test that reads the log after it
            # finds the line.
            log(args, log_lock, f"REFUSED {target} {status.split()[0]}")
            conn.sendall(f"HTTP/1.1 {status}\r\n{extra}Content-Length: 0\r\n\r\n".encode())

        if method != "CONNECT":
            return refuse("405 Method Not Allowed")
        if args.auth:
            want = "Basic " + base64.b64encode(args.auth.encode()).decode()
            if headers.get("proxy-authorization") != want:
                return refuse("407 Proxy Authentication Required",
                              'Proxy-Authenticate: Basic realm="test"\r\n')
        host, _, port = target.rpartition(":")
        host = host.strip("[]")
        address = args.map.get(host, host)
        try:
            upstream = socket.create_connection((address, int(port)), timeout=10)
        except OSError:
            return refuse("502 Bad Gateway")
        log(args, log_lock, f"CONNECT {target}")
        conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        relay(conn, upstream)
        upstream.close()
    finally:
        conn.close()


def log(args, lock, line):
    if not args.log:
        return
    with lock, open(args.log, "a") as f:
        f.write(line + "\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--auth", default="")
    parser.add_argument("--map", action="append", default=[])
    parser.add_argument("--log", default="")
    args = parser.parse_args()
    args.map = dict(m.split("=", 1) for m in args.map)
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print(listener.getsockname()[1], flush=True)
    lock = threading.Lock()
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn, args, lock), daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())
