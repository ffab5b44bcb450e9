#!/usr/bin/env python3
"""gpulint-webhook's container image, with no container engine and no network.

    scripts/oci-image.py archive -o OUT.oci.tar --version V [--revision R] \
        [--source URL] --platform amd64=PREFIX [--platform arm64=PREFIX ...]
    scripts/oci-image.py rootfs DIR --platform amd64=PREFIX
    scripts/oci-image.py config

A PREFIX is what `cmake --install BUILD --strip --component shipped` lays out
(cmake/package.cmake): bin/gpulint, bin/gpulint-webhook and
share/doc/gpulint/{copyright,sbom.spdx.json}. `archive` writes an OCI image
layout as one tar (skopeo's oci-archive:), its index.json naming one image
index (ref name V) of one image per platform. `rootfs` writes the same files
as a directory tree, for the Dockerfile's `COPY --from=build`, so that an
engine's image holds what this one does; `config` prints what the
Dockerfile's runtime stage must say (tests/dockerfile_test.sh holds it to it).

Each image has two layers:
  1. what is the same on every platform: /etc/passwd and /etc/group (root and
     nobody from Debian's base-passwd, and nonroot, uid and gid 65532, the
     user the chart runs as), the CA bundle (Debian's ca-certificates: its
     Mozilla certificates, and no certificate this machine added), /tmp and
     the licence (/usr/share/doc/gpulint/copyright);
  2. the platform's two static binaries in /usr/local/bin and their SBOM.
Its config: user 65532:65532, entrypoint gpulint-webhook (the chart gives it
only arguments), PATH, SSL_CERT_FILE (the static OpenSSL would look in
Debian's /usr/lib/ssl, which the image lacks), port 8443, and the OCI
annotations (version, revision, licence, source, created).

Reproducible: every time is SOURCE_DATE_EPOCH (./dev image sets it to the
commit's time; 0 without one), every owner is root (as an engine's COPY
makes them: nothing in the image is written as nonroot but /tmp), files
are in name order, gzip without name or time: the same inputs give the same
bytes, and so the same digest, whatever the files' times or the umask.
"""
import argparse
import datetime
import gzip
import hashlib
import io
import json
import os
import sys
import tarfile

USER = "65532:65532"
ENTRYPOINT = ["gpulint-webhook"]
CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"
ENV = ["PATH=/usr/local/bin:/usr/bin:/bin", "SSL_CERT_FILE=" + CA_BUNDLE]
PORT = "8443/tcp"
LICENSE = "Apache-2.0"
BINARIES = ("gpulint", "gpulint-webhook")
DOC = "usr/share/doc/gpulint"
# Go's and the OCI image spec's names of the platforms CMake builds for.
PLATFORMS = {"amd64": {"architecture": "amd64", "os": "linux"},
             "arm64": {"architecture": "arm64", "os": "linux", "variant": "v8"}}
MEDIA = {
    "layer": "application/vnd.oci.image.layer.v1.tar+gzip",
    "config": "application/vnd.oci.image.config.v1+json",
    "manifest": "application/vnd.oci.image.manifest.v1+json",
    "index": "application/vnd.oci.image.index.v1+json",
}


class Entry:
    """A file (data) or directory (no data) of a layer, by its path in the root."""

    def __init__(self, path, mode, data=None):
        self.path, self.mode, self.data = path, mode, data


def read(path):
    with open(path, "rb") as f:
        return f.read()


def accounts():
    """/etc/passwd and /etc/group: root and nobody as Debian's base-passwd
    has them (no shell: there is none), and nonroot."""
    def pick(master, names):
        lines = [l for l in read(master).decode().splitlines() if l.split(":")[0] in names]
        if len(lines) != len(names):
            sys.exit(f"oci-image: {master} lacks one of {names} (Debian's base-passwd)")
        return lines
    passwd = [":".join(l.split(":")[:6] + ["/sbin/nologin"])
              for l in pick("/usr/share/base-passwd/passwd.master", ["root", "nobody"])]
    passwd.append("nonroot:*:65532:65532:nonroot:/nonexistent:/sbin/nologin")
    group = pick("/usr/share/base-passwd/group.master", ["root", "nogroup"])
    group.append("nonroot:*:65532:")
    return ("\n".join(passwd) + "\n").encode(), ("\n".join(group) + "\n").encode()


def ca_bundle():
    """The Mozilla certificates of Debian's ca-certificates, in name order, as
    update-ca-certificates joins them; not the machine's bundle, which may
    hold a CA its owner added."""
    src = "/usr/share/ca-certificates/mozilla"
    names = sorted(n for n in os.listdir(src) if n.endswith(".crt")) if os.path.isdir(src) else []
    if not names:
        sys.exit(f"oci-image: no certificates in {src} (apt-get install ca-certificates)")
    out = b""
    for name in names:
        pem = read(os.path.join(src, name))
        out += pem if pem.endswith(b"\n") else pem + b"\n"
    return out


def common_layer(prefix):
    passwd, group = accounts()
    return [
        Entry("etc/passwd", 0o644, passwd),
        Entry("etc/group", 0o644, group),
        Entry(CA_BUNDLE.lstrip("/"), 0o644, ca_bundle()),
        Entry("tmp", 0o1777),
        Entry(f"{DOC}/copyright", 0o644, read(os.path.join(prefix, "share/doc/gpulint/copyright"))),
    ]


def platform_layer(prefix):
    entries = [Entry(f"usr/local/bin/{b}", 0o755, read(os.path.join(prefix, "bin", b)))
               for b in BINARIES]
    entries.append(Entry(f"{DOC}/sbom.spdx.json", 0o644,
                         read(os.path.join(prefix, "share/doc/gpulint/sbom.spdx.json"))))
    return entries


def with_parents(entries):
    """The entries and every directory above them, each once, in name order."""
    by_path = {e.path: e for e in entries}
    for e in entries:
        parts = e.path.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            by_path.setdefault("/".join(parts[:i]), Entry("/".join(parts[:i]), 0o755))
    return [by_path[p] for p in sorted(by_path)]


def layer_tar(entries, mtime):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for e in with_parents(entries):
            info = tarfile.TarInfo(e.path if e.data is not None else e.path + "/")
            info.mode, info.uid, info.gid, info.mtime = e.mode, 0, 0, mtime
            info.uname = info.gname = ""
            if e.data is None:
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
            else:
                info.size = len(e.data)
                tar.addfile(info, io.BytesIO(e.data))
    return buf.getvalue()


class Blobs:
    """Content-addressed blobs of the layout, by digest."""

    def __init__(self):
        self.blobs = {}

    def add(self, media_type, data, **extra):
        digest = "sha256:" + hashlib.sha256(data).hexdigest()
        self.blobs[digest] = data
        return {"mediaType": media_type, "digest": digest, "size": len(data), **extra}

    def add_json(self, media_type, doc, **extra):
        return self.add(media_type, canonical(doc), **extra)


def canonical(doc):
    return json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()


def annotations(a, created):
    out = {
        "org.opencontainers.image.title": "gpulint-webhook",
        "org.opencontainers.image.description":
            "gpulint's admission webhook and the gpulint CLI, static; "
            "third-party licences in /usr/share/doc/gpulint/copyright",
        "org.opencontainers.image.version": a.version,
        "org.opencontainers.image.licenses": LICENSE,
        "org.opencontainers.image.created": created,
    }
    if a.revision:
        out["org.opencontainers.image.revision"] = a.revision
    if a.source:
        out["org.opencontainers.image.source"] = a.source
    return out


def image(blobs, arch, prefix, a, mtime, created):
    notes = annotations(a, created)
    layers, diff_ids, history = [], [], []
    for what, entries in (("common", common_layer(prefix)), (arch, platform_layer(prefix))):
        tar = layer_tar(entries, mtime)
        diff_ids.append("sha256:" + hashlib.sha256(tar).hexdigest())
        layers.append(blobs.add(MEDIA["layer"], gzip.compress(tar, compresslevel=9, mtime=0)))
        history.append({"created": created, "created_by": f"scripts/oci-image.py: {what} layer"})
    config = {
        **PLATFORMS[arch], "created": created,
        "config": {**runtime_config(), "Labels": notes},
        "rootfs": {"type": "layers", "diff_ids": diff_ids},
        "history": history,
    }
    manifest = {"schemaVersion": 2, "mediaType": MEDIA["manifest"],
                "config": blobs.add_json(MEDIA["config"], config), "layers": layers,
                "annotations": notes}
    return blobs.add_json(MEDIA["manifest"], manifest, platform=PLATFORMS[arch])


def platforms(specs):
    out = []
    for spec in specs:
        arch, _, prefix = spec.partition("=")
        if arch not in PLATFORMS or not prefix:
            sys.exit(f"oci-image: --platform {spec}: expected ARCH=PREFIX, ARCH one of "
                     + ", ".join(PLATFORMS))
        for b in BINARIES:
            if not os.path.isfile(os.path.join(prefix, "bin", b)):
                sys.exit(f"oci-image: {prefix}/bin/{b} is missing (cmake --install BUILD --strip "
                         "--component shipped --prefix PREFIX)")
        out.append((arch, prefix))
    return out


def archive(a):
    mtime = int(os.environ.get("SOURCE_DATE_EPOCH") or 0)
    created = datetime.datetime.fromtimestamp(mtime, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%SZ")
    blobs = Blobs()
    manifests = [image(blobs, arch, prefix, a, mtime, created)
                 for arch, prefix in platforms(a.platform)]
    index = blobs.add_json(MEDIA["index"], {
        "schemaVersion": 2, "mediaType": MEDIA["index"], "manifests": manifests,
        "annotations": annotations(a, created)},
        annotations={"org.opencontainers.image.ref.name": a.version})
    files = {"oci-layout": canonical({"imageLayoutVersion": "1.0.0"}),
             "index.json": canonical({"schemaVersion": 2, "mediaType": MEDIA["index"],
                                      "manifests": [index]})}
    for digest, data in blobs.blobs.items():
        files["blobs/sha256/" + digest.split(":", 1)[1]] = data
    entries = [Entry(path, 0o644, data) for path, data in files.items()]
    tmp = a.output + ".tmp"
    with open(tmp, "wb") as f:
        f.write(layer_tar(entries, mtime))
    os.replace(tmp, a.output)
    print(index["digest"])


def runtime_config():
    """What every image's config says, whatever its platform."""
    return {"User": USER, "Entrypoint": ENTRYPOINT, "Env": ENV, "ExposedPorts": {PORT: {}}}


def rootfs(a):
    (arch, prefix), = platforms(a.platform)
    if os.path.exists(a.dir) and os.listdir(a.dir):
        sys.exit(f"oci-image: {a.dir} is not empty")
    for e in with_parents(common_layer(prefix) + platform_layer(prefix)):
        path = os.path.join(a.dir, e.path)
        if e.data is None:
            os.makedirs(path, exist_ok=True)
        else:
            with open(path, "wb") as f:
                f.write(e.data)
        os.chmod(path, e.mode)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    ar = sub.add_parser("archive", help="an OCI image layout in one tar (oci-archive)")
    ar.add_argument("-o", "--output", required=True)
    ar.add_argument("--version", required=True)
    ar.add_argument("--revision", default="")
    ar.add_argument("--source", default="")
    ar.add_argument("--platform", action="append", required=True, metavar="ARCH=PREFIX")
    rf = sub.add_parser("rootfs", help="the same files as a directory (the Dockerfile's)")
    rf.add_argument("dir")
    rf.add_argument("--platform", action="append", required=True, metavar="ARCH=PREFIX")
    sub.add_parser("config", help="the config every image has (JSON)")
    a = p.parse_args()
    if a.command == "config":
        print(json.dumps(runtime_config(), indent=2, sort_keys=True))
    elif a.command == "rootfs":
        if len(a.platform) != 1:
            sys.exit("oci-image: rootfs takes one --platform")
        rootfs(a)
    else:
        archive(a)


if __name__ == "__main__":
    main()
