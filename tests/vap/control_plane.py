"""A Kubernetes API server on loopback for tests/vap: etcd (Debian's
etcd-server) and kube-apiserver from GPULINT_VAP_K8S_ASSETS (default
../shared/k8s/v1.36.2 beside the repository), certificates made by openssl,
nothing else: no scheduler, no controller manager, no kubelet. Python's
standard library only.

The assets follow tests/e2e's convention (see tests/e2e/README.md): the
directory holds kube-apiserver plain or as kube-apiserver.xz with a SHA256SUMS
of the uncompressed file, which is decompressed once into
.cache/k8s/<first 16 hex digits of SHA256SUMS' SHA-256>/ and checked there.
"""
import hashlib
import http.client
import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SKIP = 77  # ctest's SKIP_RETURN_CODE


class Unavailable(Exception):
    """The assets or a tool the test cannot run without are missing."""


def unavailable(lines):
    """Skips (exit 77), loudly; under CI=true a failure instead."""
    how = ["Point GPULINT_VAP_K8S_ASSETS at a directory holding kube-apiserver v1.36",
           "(plain, or kube-apiserver.xz with a SHA256SUMS of the uncompressed file);",
           "the default is ../shared/k8s/v1.36.2 beside the repository."]
    if os.environ.get("CI") == "true":
        print("FAIL vap: cannot run, and CI=true makes that a failure, not a skip:", file=sys.stderr)
        for line in lines + how:
            print("  " + line, file=sys.stderr)
        sys.exit(1)
    print("#" * 72, file=sys.stderr)
    print("## vap SKIPPED: the exported policy was not tried on an API server.", file=sys.stderr)
    for line in lines + how + ["Under CI=true this is a failure."]:
        print("##   " + line, file=sys.stderr)
    print("#" * 72, file=sys.stderr)
    sys.exit(SKIP)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def apiserver_binary():
    """The checked kube-apiserver binary; raises Unavailable."""
    assets = os.environ.get("GPULINT_VAP_K8S_ASSETS") or os.path.join(
        os.path.dirname(ROOT), "shared", "k8s", "v1.36.2")
    where = "GPULINT_VAP_K8S_ASSETS=" + os.environ.get("GPULINT_VAP_K8S_ASSETS", "(unset: %s)" % assets)
    if not os.path.isdir(assets):
        raise Unavailable("no control-plane assets: %s is not a directory" % where)
    name = "kube-apiserver"
    sums = os.path.join(assets, "SHA256SUMS")
    want = None
    if os.path.isfile(sums):
        with open(sums) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2 and parts[1].lstrip("*") == name:
                    want = parts[0]
    plain = os.path.join(assets, name)
    if os.path.isfile(plain) and os.access(plain, os.X_OK):
        if want and sha256(plain) != want:
            raise Unavailable("%s does not match SHA256SUMS" % plain)
        return plain
    packed = plain + ".xz"
    if not os.path.isfile(packed):
        raise Unavailable("no %s or %s.xz in %s (%s)" % (name, name, assets, where))
    if not want:
        raise Unavailable("%s has no SHA256SUMS entry for %s" % (assets, name))
    if not shutil.which("xz"):
        raise Unavailable("xz is not installed (Debian package xz-utils)")
    cache = os.path.join(ROOT, ".cache", "k8s", sha256(sums)[:16])
    binary = os.path.join(cache, name)
    if os.access(binary, os.X_OK):
        return binary
    os.makedirs(cache, exist_ok=True)
    print("vap: decompressing %s into %s (once)" % (packed, cache), file=sys.stderr)
    fd, tmp = tempfile.mkstemp(prefix="." + name + ".", dir=cache)
    try:
        with os.fdopen(fd, "wb") as out:
            if subprocess.run(["xz", "-dc", packed], stdout=out).returncode != 0:
                raise Unavailable("%s does not decompress" % packed)
        if sha256(tmp) != want:
            raise Unavailable("%s decompresses to another SHA-256 than SHA256SUMS says" % packed)
        os.chmod(tmp, 0o755)
        os.replace(tmp, binary)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return binary


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def openssl(*args):
    subprocess.run(["openssl", *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


class ControlPlane:
    """etcd and kube-apiserver, started by start() and stopped by stop()."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.procs = []
        self.pki = os.path.join(tmp, "pki")
        self.logs = os.path.join(tmp, "logs")
        self.port = None

    def _certs(self):
        d = self.pki
        os.makedirs(d)
        key = lambda n: os.path.join(d, n + ".key")
        crt = lambda n: os.path.join(d, n + ".crt")
        ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        openssl("req", "-x509", *ec, "-days", "2", "-subj", "/CN=gpulint-vap-ca",
                "-keyout", key("ca"), "-out", crt("ca"))
        leaves = {
            "apiserver": ("/CN=kube-apiserver", "extendedKeyUsage=serverAuth\n"
                          "subjectAltName=IP:127.0.0.1,DNS:localhost\n"),
            "admin": ("/O=system:masters/CN=gpulint-vap-admin", "extendedKeyUsage=clientAuth\n"),
        }
        for name, (subject, ext) in leaves.items():
            with open(os.path.join(d, name + ".ext"), "w") as f:
                f.write("keyUsage=critical,digitalSignature,keyEncipherment\n" + ext)
            openssl("req", "-new", *ec, "-subj", subject, "-keyout", key(name),
                    "-out", os.path.join(d, name + ".csr"))
            openssl("x509", "-req", "-in", os.path.join(d, name + ".csr"), "-CA", crt("ca"),
                    "-CAkey", key("ca"), "-set_serial", "0x" + os.urandom(8).hex(), "-days", "2",
                    "-extfile", os.path.join(d, name + ".ext"), "-out", crt(name))
        openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", key("sa"))
        openssl("pkey", "-in", key("sa"), "-pubout", "-out", os.path.join(d, "sa.pub"))

    def _daemon(self, name, argv):
        log = open(os.path.join(self.logs, name + ".log"), "ab")
        # A parent-death signal: nothing outlives this process, even when killed.
        prefix = ["setpriv", "--pdeathsig", "KILL", "--"] if shutil.which("setpriv") else []
        self.procs.append((name, subprocess.Popen(prefix + argv, stdin=subprocess.DEVNULL,
                                                  stdout=log, stderr=log)))

    def _wait(self, what, seconds, ready):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for name, p in self.procs:
                if p.poll() is not None:
                    raise RuntimeError("%s exited at start:\n%s" % (name, self.tail(name)))
            try:
                if ready():
                    return
            except (OSError, http.client.HTTPException, ssl.SSLError):
                pass
            time.sleep(0.2)
        raise RuntimeError("%s not ready within %d s:\n%s" % (what, seconds, self.tail("kube-apiserver")))

    def tail(self, name, lines=25):
        try:
            with open(os.path.join(self.logs, name + ".log"), errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return ""

    def start(self, apiserver, etcd, extra_flags=()):
        os.makedirs(self.logs)
        self._certs()
        etcd_port, peer = free_port(), free_port()
        data = tempfile.mkdtemp(prefix="gpulint-vap-etcd.", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
        self.etcd_data = data
        self._daemon("etcd", [etcd, "--name", "vap", "--data-dir", data + "/data",
                              "--listen-client-urls", "http://127.0.0.1:%d" % etcd_port,
                              "--advertise-client-urls", "http://127.0.0.1:%d" % etcd_port,
                              "--listen-peer-urls", "http://127.0.0.1:%d" % peer,
                              "--initial-advertise-peer-urls", "http://127.0.0.1:%d" % peer,
                              "--initial-cluster", "vap=http://127.0.0.1:%d" % peer,
                              "--log-level", "warn"])

        def etcd_ready():
            c = http.client.HTTPConnection("127.0.0.1", etcd_port, timeout=1)
            c.request("GET", "/health")
            return c.getresponse().status == 200

        self._wait("etcd", 20, etcd_ready)
        self.port = free_port()
        d = self.pki
        self._daemon("kube-apiserver", [
            apiserver, "--etcd-servers=http://127.0.0.1:%d" % etcd_port, "--bind-address=127.0.0.1",
            "--advertise-address=127.0.0.1", "--secure-port=%d" % self.port,
            "--cert-dir=" + os.path.join(self.tmp, "apiserver"),
            "--tls-cert-file=%s/apiserver.crt" % d, "--tls-private-key-file=%s/apiserver.key" % d,
            "--client-ca-file=%s/ca.crt" % d, "--service-account-key-file=%s/sa.pub" % d,
            "--service-account-signing-key-file=%s/sa.key" % d,
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            "--service-cluster-ip-range=10.0.0.0/24", "--authorization-mode=Node,RBAC",
            "--allow-privileged=true", "--profiling=false", "--enable-priority-and-fairness=false",
            "--endpoint-reconciler-type=none",
            # No controller manager makes the default ServiceAccounts.
            "--disable-admission-plugins=ServiceAccount", *extra_flags])
        self._wait("kube-apiserver /readyz", 60, lambda: self.request("GET", "/readyz")[0] == 200)

    def stop(self):
        for _, p in reversed(self.procs):
            p.kill()
            p.wait()
        self.procs = []
        if getattr(self, "etcd_data", None):
            shutil.rmtree(self.etcd_data, ignore_errors=True)

    def context(self):
        ctx = ssl.create_default_context(cafile=os.path.join(self.pki, "ca.crt"))
        ctx.load_cert_chain(os.path.join(self.pki, "admin.crt"), os.path.join(self.pki, "admin.key"))
        return ctx

    def connection(self):
        return http.client.HTTPSConnection("127.0.0.1", self.port, context=self.context(), timeout=30)

    def request(self, method, path, body=None, conn=None, content_type="application/json"):
        """(status, parsed JSON or text, warnings) of one request as the cluster admin."""
        c = conn or self.connection()
        headers = {"Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = content_type
            if not isinstance(body, (bytes, str)):
                body = json.dumps(body)
        c.request(method, path, body=body, headers=headers)
        r = c.getresponse()
        data = r.read().decode("utf-8", "replace")
        warnings = [parse_warning(w) for w in r.headers.get_all("Warning") or []]
        if conn is None:
            c.close()
        try:
            return r.status, json.loads(data), warnings
        except ValueError:
            return r.status, data, warnings


def parse_warning(header):
    """The text of a Warning header: 299 - "text" (RFC 7234, as the API server writes it)."""
    prefix = '299 - "'
    if header.startswith(prefix) and header.endswith('"'):
        text = header[len(prefix):-1]
        out, i = [], 0
        while i < len(text):
            if text[i] == "\\" and i + 1 < len(text):
                i += 1
            out.append(text[i])
            i += 1
        return "".join(out)
    return header
