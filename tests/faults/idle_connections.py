"""Opens many TCP connections to 127.0.0.1:PORT that never send a byte, holds
them for HOLD seconds, then closes them all. Connections the server cannot
take yet wait in its listen backlog or in SYN retries; only those that
complete within half the hold count. Prints "opened=N of M".
Usage: idle_connections.py PORT COUNT HOLD_SECONDS"""
import errno
import resource
import select
import socket
import sys
import time

port, count, hold = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, count + 100)), hard))
pending, opened = [], []
for _ in range(count):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setblocking(False)
    err = s.connect_ex(("127.0.0.1", port))
    if err not in (0, errno.EINPROGRESS):
        s.close()
        continue
    pending.append(s)
end = time.time() + hold
poller = select.epoll()
for s in pending:
    poller.register(s.fileno(), select.EPOLLOUT)
by_fd = {s.fileno(): s for s in pending}
settle = min(end, time.time() + hold / 2)
while by_fd and time.time() < settle:
    for fd, _ in poller.poll(0.1):
        s = by_fd.pop(fd)
        poller.unregister(fd)
        if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:
            opened.append(s)
        else:
            s.close()
print(f"opened={len(opened)} of {count}", flush=True)
time.sleep(max(0, end - time.time()))
for s in pending:
    s.close()
