#!/usr/bin/env python3
"""Concurrent pod creators for bench/admission_latency.sh.

N creators, each a thread with its own keep-alive HTTPS connection to the API
server (the admin client certificate), POST a pod body to
/api/v1/namespaces/NS/pods one after another until the row's pods are all
sent (a closed loop, as k6's shared-iterations executor). Each request is
timed from the first byte sent to the last byte of the answer read. Every
connection is made, and every body built, before the clock starts, so neither
the TLS handshake nor the JSON is in the figures.

Prints one JSON object: pods created (201), errors (any other answer; the
first one quoted), wall seconds, pods/s, mean/p50/p99/max in ms over the
created pods, how many answers carried --marker (a mutation's trace), and the
client's own CPU seconds while it sent them.
`--summarize FILE` prints the same figures for the samples of several runs
appended to one file. Standard library only.
"""
import argparse
import http.client
import json
import os
import ssl
import sys
import threading
import time


def percentile(sorted_ms, q):
    """Nearest-rank percentile: the smallest value with q of them at or below."""
    if not sorted_ms:
        return None
    rank = max(1, -(-len(sorted_ms) * q // 100))  # ceil without floats
    return sorted_ms[int(rank) - 1]


def figures(ms):
    """Count, mean, p50, p99 and max of sorted times in ms, rounded to 0.01 ms."""
    r = lambda x: None if x is None else round(x, 2)
    return {"pods": len(ms), "mean_ms": r(sum(ms) / len(ms)) if ms else None,
            "p50_ms": r(percentile(ms, 50)), "p99_ms": r(percentile(ms, 99)),
            "max_ms": r(ms[-1]) if ms else None}


def summarize(path):
    """Prints count, mean, p50, p99 and max of the samples (ms, one a line) in PATH."""
    with open(path) as f:
        ms = sorted(float(line) for line in f if line.strip())
    print(json.dumps(figures(ms)))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--summarize":
        return summarize(sys.argv[2])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--server", required=True, help="HOST:PORT of kube-apiserver")
    ap.add_argument("--ca", required=True)
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--namespace", required=True)
    ap.add_argument("--pod", required=True, help="a Pod as JSON; metadata.name is replaced")
    ap.add_argument("--creators", type=int, required=True)
    ap.add_argument("--pods", type=int, required=True, help="pods in all, shared by the creators")
    ap.add_argument("--prefix", required=True, help="pod names are PREFIX-<n>")
    ap.add_argument("--marker", default="", help="count answers holding this text")
    ap.add_argument("--samples", help="append each created pod's time (ms) to this file")
    args = ap.parse_args()
    if args.creators < 1 or args.pods < args.creators:
        sys.exit("admission_creators: need 1 <= creators <= pods")

    host, _, port = args.server.rpartition(":")
    ctx = ssl.create_default_context(cafile=args.ca)
    ctx.load_cert_chain(args.cert, args.key)
    with open(args.pod) as f:
        pod = json.load(f)
    path = f"/api/v1/namespaces/{args.namespace}/pods"
    headers = {"Content-Type": "application/json", "Accept": "application/json"}

    def body(n):
        pod["metadata"]["name"] = f"{args.prefix}-{n}"
        return json.dumps(pod, separators=(",", ":")).encode()

    # Creator c sends pods c, c + N, c + 2N, ...
    work = [[body(n) for n in range(c, args.pods, args.creators)] for c in range(args.creators)]
    conns = []
    for _ in range(args.creators):
        conn = http.client.HTTPSConnection(host, int(port), context=ctx, timeout=60)
        conn.connect()
        conns.append(conn)

    latencies = [[] for _ in range(args.creators)]
    errors = [[] for _ in range(args.creators)]
    marked = [0] * args.creators
    marker = args.marker.encode()
    start_line = threading.Barrier(args.creators + 1)

    def creator(c):
        conn, mine, errs = conns[c], latencies[c], errors[c]
        start_line.wait()
        for b in work[c]:
            t0 = time.perf_counter()
            try:
                conn.request("POST", path, b, headers)
                resp = conn.getresponse()
                data = resp.read()
            except (OSError, http.client.HTTPException) as e:
                errs.append(f"{type(e).__name__}: {e}")
                conn.close()
                continue
            t1 = time.perf_counter()
            if resp.status == 201:
                mine.append((t1 - t0) * 1000.0)
                if marker and marker in data:
                    marked[c] += 1
            else:
                errs.append(f"HTTP {resp.status}: {data[:300].decode(errors='replace')}")

    threads = [threading.Thread(target=creator, args=(c,)) for c in range(args.creators)]
    for t in threads:
        t.start()
    start_line.wait()
    t_start, cpu_start = time.perf_counter(), os.times()
    for t in threads:
        t.join()
    wall, cpu_end = time.perf_counter() - t_start, os.times()
    for conn in conns:
        conn.close()

    ms = sorted(x for per in latencies for x in per)
    if args.samples:
        with open(args.samples, "a") as f:
            f.writelines(f"{x:.3f}\n" for x in ms)
    errs = [e for per in errors for e in per]
    print(json.dumps({
        "creators": args.creators,
        **figures(ms),
        "errors": len(errs),
        "first_error": errs[0] if errs else None,
        "seconds": round(wall, 3),
        "pods_per_s": round(len(ms) / wall, 1) if wall > 0 else None,
        "marked": sum(marked),
        "cpu_s": round(cpu_end.user + cpu_end.system - cpu_start.user - cpu_start.system, 3),
    }))


if __name__ == "__main__":
    main()
