"""The API server side of tests/vap: requests to it as the cluster admin, its
resources, permissive CRDs for the kinds it does not serve, and objects sent
through server-side dry-run, concurrently."""
import collections
import concurrent.futures
import http.client
import json
import queue
import re
import ssl
import time
import urllib.parse

WORKERS = 8
SHADOW_NAME = "gpulint-vap-"  # generateName for an object that has no name
# The namespace of an object whose own is no namespace name ("FILLED BY THE
# OPERATOR", a placeholder): no rule reads the name, and the API server would
# refuse the object before admission.
STAND_IN_NAMESPACE = "gpulint-vap-stand-in"
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")


def namespace_of(obj):
    ns = (obj.get("metadata") or {}).get("namespace") or "default"
    return ns if isinstance(ns, str) and DNS_LABEL.match(ns) else STAND_IN_NAMESPACE


class Cluster:
    """The API server at URL (https://HOST:PORT), as the client certificate's
    user: the cluster admin that tests/vap/run.sh made."""

    def __init__(self, url, ca, cert, key):
        u = urllib.parse.urlsplit(url)
        if u.scheme != "https" or not u.hostname or not u.port:
            raise ValueError("not an https://HOST:PORT URL: %s" % url)
        self.host, self.port = u.hostname, u.port
        self.context = ssl.create_default_context(cafile=ca)
        self.context.load_cert_chain(cert, key)
        self.resources = {}  # (apiVersion, kind) -> (plural, namespaced)
        self.groups = set()

    def connection(self):
        return http.client.HTTPSConnection(self.host, self.port, context=self.context, timeout=30)

    def request(self, method, path, body=None, conn=None):
        """(status, parsed JSON or text, warnings) of one request, on conn or a new connection."""
        c = conn or self.connection()
        headers = {"Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = "application/json"
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

    def discover(self):
        self.resources.clear()
        self.groups = {""}
        _, core, _ = self.request("GET", "/api/v1")
        self._add("v1", core)
        _, groups, _ = self.request("GET", "/apis")
        for g in groups["groups"]:
            self.groups.add(g["name"])
            for v in g["versions"]:
                _, res, _ = self.request("GET", "/apis/" + v["groupVersion"])
                self._add(v["groupVersion"], res)

    def _add(self, group_version, listing):
        for r in listing.get("resources", []):
            if "/" not in r["name"]:
                self.resources[(group_version, r["kind"])] = (r["name"], r["namespaced"])

    def path(self, obj, namespace):
        """The collection URL for obj, or None when the API server serves no such kind."""
        key = (obj.get("apiVersion"), obj.get("kind"))
        if key not in self.resources:
            return None
        plural, namespaced = self.resources[key]
        api = key[0]
        prefix = "/api/v1" if api == "v1" else "/apis/" + api
        ns = urllib.parse.quote(str(namespace), safe="")
        return prefix + ("/namespaces/%s/" % ns if namespaced else "/") + plural

    def apply(self, obj):
        path = self.path(obj, obj.get("metadata", {}).get("namespace", "default"))
        status, body, _ = self.request("POST", path, obj)
        if status == 409:
            status, body, _ = self.request("PUT", path + "/" + obj["metadata"]["name"], obj)
        if status >= 300:
            raise RuntimeError("cannot create %s %s: %s" % (obj["kind"], obj["metadata"]["name"],
                                                            body.get("message", body) if isinstance(body, dict) else body))


def crds_for(documents, cluster):
    """Permissive CustomResourceDefinitions for the kinds of the documents that
    the API server does not serve, in API groups that are not Kubernetes' own."""
    wanted = collections.defaultdict(set)  # (group, kind) -> versions
    for d in documents:
        obj = d.get("object")
        if not isinstance(obj, dict):
            continue
        api, kind = obj.get("apiVersion"), obj.get("kind")
        if not isinstance(api, str) or not isinstance(kind, str) or "/" not in api or not kind:
            continue
        group, version = api.split("/", 1)
        # Kubernetes' own groups (apps, extensions, *.k8s.io) are not for CRDs.
        if group in cluster.groups or group.endswith("k8s.io") or "." not in group:
            continue
        wanted[(group, kind)].add(version)
    crds = []
    for (group, kind), versions in sorted(wanted.items()):
        plural = kind.lower() + "s"
        versions = sorted(versions)
        crds.append({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": plural + "." + group},
            "spec": {
                "group": group,
                "names": {"kind": kind, "plural": plural, "singular": kind.lower(),
                          "listKind": kind + "List"},
                # Cluster-scoped as their operators define them: the kinds named Cluster*.
                "scope": "Cluster" if kind.startswith("Cluster") else "Namespaced",
                "versions": [{"name": v, "served": True, "storage": i == 0,
                              "schema": {"openAPIV3Schema": {
                                  "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}
                             for i, v in enumerate(versions)],
            },
        })
    return crds


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


def wait(what, seconds, ready):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if ready():
            return
        time.sleep(0.2)
    raise RuntimeError("%s not ready within %d s" % (what, seconds))


# ---- one document through dry-run ---------------------------------------------

def prepared(obj):
    """The object as sent: a name given when it has none (the API server
    requires one; no rule reads it)."""
    obj = json.loads(json.dumps(obj))
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        meta = obj["metadata"] = {}
    if not meta.get("name") and not meta.get("generateName"):
        meta["generateName"] = SHADOW_NAME
    if "namespace" in meta:
        meta["namespace"] = namespace_of(obj)
    return obj


class Outcome:
    """What the API server did with one document."""

    def __init__(self, status, body, warnings):
        self.status = status
        self.body = body
        self.warnings = warnings

    @property
    def message(self):
        return self.body.get("message", "") if isinstance(self.body, dict) else str(self.body)


def send(cluster, doc, conns):
    obj = doc["object"]
    ns = namespace_of(obj)
    path = cluster.path(obj, ns)
    if path is None:
        return None
    conn = conns.get()
    try:
        status, body, warnings = cluster.request("POST", path + "?dryRun=All&fieldValidation=Ignore",
                                                 prepared(obj), conn)
    except Exception:  # a dropped keep-alive connection: once more on a new one
        conn.close()
        conn = cluster.connection()
        status, body, warnings = cluster.request("POST", path + "?dryRun=All&fieldValidation=Ignore",
                                                 prepared(obj), conn)
    finally:
        conns.put(conn)
    return Outcome(status, body, warnings)


def send_all(cluster, docs):
    conns = queue.Queue()
    for _ in range(WORKERS):
        conns.put(cluster.connection())
    with concurrent.futures.ThreadPoolExecutor(WORKERS) as pool:
        results = list(pool.map(lambda d: send(cluster, d, conns), docs))
    while not conns.empty():
        conns.get().close()
    return results


# ---- findings ---------------------------------------------------------------

def policies_active(cluster, names):
    """Whether all three bindings act: a probe pod (a CUDA container that
    tolerates the GPU taint without a GPU limit, beside a GPU container with no
    memory limit) is denied, with the observer's and the warnings' warnings."""
    probe = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "gpulint-vap-probe"},
             "spec": {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}],
                      "containers": [{"name": "cuda", "image": "nvidia/cuda:12.4.1-base-ubuntu22.04"},
                                     {"name": "gpu", "image": "busybox",
                                      "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}}
    status, body, warnings = cluster.request("POST", "/api/v1/namespaces/default/pods?dryRun=All", probe)
    text = " ".join(warnings)
    return (status >= 300 and names["errors"] in str(body) and names["errors"] + "-observe" in text
            and names["warnings"] in text)
