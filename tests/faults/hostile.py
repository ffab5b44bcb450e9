"""Hostile traffic for the soak, one new connection per attempt, until
SECONDS have passed: garbage bodies, a huge Content-Length, chunked bodies,
JSON nested 10,000 deep, a 100 KB header, half a body then a hang-up, plain
HTTP on the TLS port, and TLS 1.0 hellos. Each must end in a 4xx answer or a
refused connection; a 2xx or 5xx answer counts as wrong.
Usage: hostile.py PORT CA_FILE SECONDS    Prints one line: RESULT case=n... wrong=n"""
import os
import socket
import ssl
import sys
import time
import warnings

warnings.simplefilter("ignore", DeprecationWarning)

port, ca, seconds = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
ctx = ssl.create_default_context(cafile=ca)
old = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
old.check_hostname = False
old.verify_mode = ssl.CERT_NONE
try:
    old.set_ciphers("DEFAULT:@SECLEVEL=0")
    old.minimum_version = old.maximum_version = ssl.TLSVersion.TLSv1
except (ssl.SSLError, ValueError):
    pass


def head(extra, length=None):
    h = f"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{extra}"
    if length is not None:
        h += f"Content-Length: {length}\r\n"
    return (h + "\r\n").encode()


def tls_exchange(payload, hang_up=False):
    """Sends payload over TLS; returns the status code, or 0 when refused/closed."""
    with socket.create_connection(("127.0.0.1", port), timeout=15) as raw:
        with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as s:
            try:
                s.sendall(payload)
            except OSError:
                return 0
            if hang_up:
                return 0
            data = b""
            try:
                while b"\r\n" not in data:
                    chunk = s.recv(4096)
                    if not chunk:
                        break
                    data += chunk
            except OSError:
                pass
            return int(data[9:12]) if data.startswith(b"HTTP/1.1 ") else 0


def garbage():
    body = os.urandom(2048)
    return tls_exchange(head("", len(body)) + body)


def huge_length():
    return tls_exchange(head("", 8 << 30))


def chunked():
    return tls_exchange(head("Transfer-Encoding: chunked\r\n") + b"-5\r\nxxxxx\r\n0\r\n\r\n")


def nested():
    body = b"[" * 10000 + b"]" * 10000
    return tls_exchange(head("", len(body)) + body)


def big_header():
    return tls_exchange(head("X-Big: " + "a" * 100000 + "\r\n", 2) + b"{}")


def half_body():
    return tls_exchange(head("", 1000) + b'{"kind":', hang_up=True)


def plain_http():
    with socket.create_connection(("127.0.0.1", port), timeout=15) as s:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        try:
            data = s.recv(4096)
        except OSError:
            return 0
        return int(data[9:12]) if data.startswith(b"HTTP/1.1 ") else 0


def tls10():
    with socket.create_connection(("127.0.0.1", port), timeout=15) as raw:
        try:
            with old.wrap_socket(raw) as s:
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                data = s.recv(4096)
                return int(data[9:12]) if data.startswith(b"HTTP/1.1 ") else 0
        except (ssl.SSLError, OSError):
            return 0


cases = [garbage, huge_length, chunked, nested, big_header, half_body, plain_http, tls10]
counts = {c.__name__: 0 for c in cases}
wrong = 0
end = time.time() + seconds
i = 0
while time.time() < end:
    case = cases[i % len(cases)]
    i += 1
    try:
        code = case()
    except OSError:
        code = 0
    counts[case.__name__] += 1
    if code != 0 and not 400 <= code < 500:
        wrong += 1
        print(f"wrong: {case.__name__} answered {code}", file=sys.stderr)
    time.sleep(0.01)
print("RESULT " + " ".join(f"{k}={v}" for k, v in counts.items()) + f" wrong={wrong}", flush=True)
