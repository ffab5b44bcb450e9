// Finding the API server as kubectl does: --kubeconfig, $KUBECONFIG merged,
// ~/.kube/config, --context, in-cluster.
#include "kube/kubeconfig.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "tests/temp_dir.h"

namespace gpulint {
namespace {

// A kubeconfig of one context `name` on cluster `name` (server
// https://NAME.example:6443) as user `user`, with `current` as current-context.
std::string Config(const std::string& name, const std::string& user, const std::string& user_body,
                   const std::string& current = "", const std::string& cluster_extra = "") {
  std::string out = "apiVersion: v1\nkind: Config\n";
  if (!current.empty()) out += "current-context: " + current + "\n";
  out += "clusters:\n- name: " + name + "\n  cluster:\n    server: https://" + name +
         ".example:6443\n" + cluster_extra;
  out +=
      "contexts:\n- name: " + name + "\n  context: {cluster: " + name + ", user: " + user + "}\n";
  out += "users:\n- name: " + user + "\n  user:\n" + user_body;
  return out;
}

struct Found {
  bool ok;
  KubeEndpoint ep;
  std::string origin, error;
};

Found Find(const KubeconfigOptions& options) {
  Found f;
  f.ok = FindEndpoint(options, &f.ep, &f.origin, &f.error);
  return f;
}

TEST_CASE("KUBECONFIG: files merged in order, the first to name an entry wins it whole",
          "[kube][kubeconfig]") {
  TempDir a, b;
  std::filesystem::create_directory(b.path() / "certs");
  b.Write("certs/ca.crt", "CA OF B\n");
  // a.yaml sets no current-context and defines user "me" with a token; b.yaml
  // sets the current-context, defines "me" again (with a client certificate:
  // ignored whole) and the cluster, whose CA is a file relative to b.yaml.
  std::string a_yaml = a.Write("a.yaml", "users:\n- name: me\n  user:\n    token: from-a\n");
  std::string b_yaml =
      b.Write("b.yaml", Config("prod", "me", "    client-certificate: nowhere.crt\n", "prod",
                               "    certificate-authority: certs/ca.crt\n"));
  KubeconfigOptions options;
  options.env = a.Path("missing.yaml") + ":" + a_yaml + "::" + b_yaml + ":" + a_yaml;
  Found f = Find(options);
  INFO(f.error);
  REQUIRE(f.ok);
  CHECK(f.ep.host == "prod.example");
  CHECK(f.ep.port == 6443);
  CHECK(f.ep.token == "from-a");
  CHECK(f.ep.client_cert_pem.empty());
  CHECK(f.ep.ca_pem == "CA OF B\n");
  CHECK(f.origin == "kubeconfig " + a_yaml + ":" + b_yaml + ", context prod");
}

TEST_CASE("KUBECONFIG: the first current-context set wins, --context picks another",
          "[kube][kubeconfig]") {
  TempDir dir;
  std::string one = dir.Write("one", Config("one", "u1", "    token: t1\n", "one"));
  std::string two = dir.Write("two", Config("two", "u2", "    token: t2\n", "two"));
  KubeconfigOptions options;
  options.env = one + ":" + two;
  Found f = Find(options);
  REQUIRE(f.ok);
  CHECK(f.ep.host == "one.example");
  options.context = "two";
  f = Find(options);
  REQUIRE(f.ok);
  CHECK(f.ep.host == "two.example");
  CHECK(f.ep.token == "t2");
  CHECK(f.origin == "kubeconfig " + one + ":" + two + ", context two");
  options.context = "three";
  f = Find(options);
  CHECK_FALSE(f.ok);
  CHECK(f.error == one + ":" + two + ": context \"three\" does not exist (--context)");
}

TEST_CASE("kubeconfig: --kubeconfig alone, then KUBECONFIG, then ~/.kube/config", "[kube][kubeconfig]") {
  TempDir home, dir;
  std::filesystem::create_directory(home.path() / ".kube");
  home.Write(".kube/config", Config("home", "u", "    token: t\n", "home"));
  std::string env = dir.Write("env", Config("env", "u", "    token: t\n", "env"));
  std::string flag = dir.Write("flag", Config("flag", "u", "    token: t\n", "flag"));
  KubeconfigOptions options;
  options.home = home.path().string();
  CHECK(Find(options).ep.host == "home.example");
  options.env = env;
  CHECK(Find(options).ep.host == "env.example");
  options.kubeconfig = flag;
  CHECK(Find(options).ep.host == "flag.example");
  options.kubeconfig = dir.Path("nope");
  Found f = Find(options);
  CHECK_FALSE(f.ok);
  CHECK(f.error == "--kubeconfig " + dir.Path("nope") + ": no such file");
}

TEST_CASE("no kubeconfig at all: the pod's service account, else a way out", "[kube][kubeconfig]") {
  TempDir home, sa;
  sa.Write("token", "sa-token\n");
  sa.Write("ca.crt", "CA\n");
  KubeconfigOptions options;
  options.home = home.path().string();
  options.sa_dir = sa.path().string();
  unsetenv("KUBERNETES_SERVICE_HOST");
  Found f = Find(options);
  CHECK_FALSE(f.ok);
  CHECK(f.error ==
        "no kubeconfig found (--kubeconfig, $KUBECONFIG, ~/.kube/config) and not running in a "
        "cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set");
  setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
  setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  f = Find(options);
  REQUIRE(f.ok);
  CHECK(f.origin == "in-cluster service account");
  CHECK(f.ep.host == "10.96.0.1");
  CHECK(f.ep.token_file == sa.Path("token"));
  unsetenv("KUBERNETES_SERVICE_HOST");
  unsetenv("KUBERNETES_SERVICE_PORT");
}

TEST_CASE("kubeconfig errors name the file and what is missing", "[kube][kubeconfig]") {
  TempDir dir;
  KubeEndpoint ep;
  std::string error;
  std::string lost = dir.Write("lost", "current-context: gone\ncontexts: []\n");
  CHECK_FALSE(KubeconfigEndpoint(lost, &ep, &error));
  CHECK(error == lost + ": context \"gone\" does not exist (its current-context)");

  std::string none = dir.Write("none", Config("c", "u", "    token: t\n"));
  CHECK_FALSE(KubeconfigEndpoint(none, &ep, &error));
  CHECK(error == none + ": no current-context is set; pass --context (contexts: c)");

  std::string no_user =
      dir.Write("no-user",
                "current-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: ghost}\n"
                "clusters:\n- name: k\n  cluster: {server: 'https://k:6443'}\n");
  CHECK_FALSE(KubeconfigEndpoint(no_user, &ep, &error));
  CHECK(error == no_user + ": context \"c\" names user \"ghost\", which does not exist");

  std::string provider =
      dir.Write("provider", Config("c", "u", "    auth-provider: {name: gcp}\n", "c"));
  CHECK_FALSE(KubeconfigEndpoint(provider, &ep, &error));
  CHECK(error ==
        "user \"u\" authenticates with an auth-provider, which kubectl itself no longer supports "
        "(since 1.26): use its exec credential plugin (gke-gcloud-auth-plugin, kubelogin), a "
        "token or a client certificate");

  std::string exec_v1 = dir.Write(
      "exec",
      Config("c", "u", "    exec: {apiVersion: client.authentication.k8s.io/v1, command: aws}\n",
             "c"));
  CHECK_FALSE(KubeconfigEndpoint(exec_v1, &ep, &error));
  CHECK(error ==
        "user \"u\": exec.interactiveMode must be Never, IfAvailable or Always "
        "(client.authentication.k8s.io/v1 requires it)");

  std::string list = dir.Write("list", "- a\n- b\n");
  CHECK_FALSE(KubeconfigEndpoint(list, &ep, &error));
  CHECK(error == list + ": not a kubeconfig (a mapping with clusters, users and contexts)");
}

// Each TLS setting the security review found read more leniently than
// kubectl reads it, and the forms kubectl takes.
TEST_CASE("kubeconfig: TLS settings read exactly as kubectl reads them", "[kube][kubeconfig]") {
  TempDir dir;
  dir.Write("ca.crt", "CA PEM\n");
  const std::string where_prefix = dir.Path("c") + ": cluster \"c\": ";
  struct Case {
    std::string cluster_extra;
    bool insecure;
    std::string ca, error;
  } cases[] = {
      {"    insecure-skip-tls-verify: true\n", true, "", ""},
      {"    insecure-skip-tls-verify: false\n    certificate-authority: ca.crt\n", false,
       "CA PEM\n", ""},
      // YAML 1.1's booleans, as sigs.k8s.io/yaml reads them.
      {"    insecure-skip-tls-verify: yes\n", true, "", ""},
      {"    insecure-skip-tls-verify:\n", false, "", ""},
      // kubectl: json: cannot unmarshal string into ... insecure-skip-tls-verify of type bool
      {"    insecure-skip-tls-verify: \"true\"\n", false, "",
       "insecure-skip-tls-verify must be true or false, not the string \"true\" (kubectl does "
       "not load it either; write it without quotes)"},
      {"    insecure-skip-tls-verify: 'false'\n", false, "",
       "insecure-skip-tls-verify must be true or false, not the string \"false\" (kubectl does "
       "not load it either; write it without quotes)"},
      {"    insecure-skip-tls-verify: 1\n", false, "",
       "insecure-skip-tls-verify must be true or false, not the int \"1\" (kubectl does not "
       "load it either; write it without quotes)"},
      // kubectl: specifying a root certificates file with the insecure flag is not allowed
      {"    insecure-skip-tls-verify: true\n    certificate-authority: ca.crt\n", false, "",
       "insecure-skip-tls-verify together with a certificate-authority: kubectl refuses them "
       "(\"specifying a root certificates file with the insecure flag is not allowed\"), and "
       "so does gpulint; keep the CA and drop the flag"},
      {"    insecure-skip-tls-verify: true\n    certificate-authority-data: Q0EK\n", false, "",
       "insecure-skip-tls-verify together with a certificate-authority: kubectl refuses them "
       "(\"specifying a root certificates file with the insecure flag is not allowed\"), and "
       "so does gpulint; keep the CA and drop the flag"},
  };
  for (const Case& c : cases) {
    INFO(c.cluster_extra);
    std::string file = dir.Write("c", Config("c", "u", "    token: t\n", "c", c.cluster_extra));
    KubeEndpoint ep;
    std::string error;
    bool ok = KubeconfigEndpoint(file, &ep, &error);
    CHECK(ok == c.error.empty());
    CHECK(error == (c.error.empty() ? "" : where_prefix + c.error));
    if (!ok) continue;
    CHECK(ep.insecure_skip_verify == c.insecure);
    CHECK(ep.ca_pem == c.ca);
  }
}

TEST_CASE("kubeconfig: a cluster's proxy-url, else HTTPS_PROXY unless NO_PROXY",
          "[kube][kubeconfig][proxy]") {
  TempDir dir;
  KubeconfigOptions options;
  options.kubeconfig = dir.Write(
      "c", Config("c", "u", "    token: t\n", "c",
                  "    proxy-url: http://ops:hunter2@proxy.corp:3128\n"));
  options.proxies = {"http://env-proxy:8080", ""};
  Found f = Find(options);
  REQUIRE(f.ok);
  CHECK(f.ep.proxy.display == "http://proxy.corp:3128");  // proxy-url wins
  CHECK(f.ep.proxy.authorization == "Basic b3BzOmh1bnRlcjI=");

  options.kubeconfig = dir.Write("d", Config("d", "u", "    token: t\n", "d"));
  f = Find(options);
  REQUIRE(f.ok);
  CHECK(f.ep.proxy.display == "http://env-proxy:8080");
  options.proxies.no_proxy = ".example";  // https://d.example:6443
  f = Find(options);
  REQUIRE(f.ok);
  CHECK(f.ep.proxy.empty());

  options.kubeconfig = dir.Write(
      "e", Config("e", "u", "    token: t\n", "e", "    proxy-url: socks5://ops:hunter2@p:1080\n"));
  f = Find(options);
  CHECK_FALSE(f.ok);
  CHECK(f.error ==
        "the proxy-url of cluster \"e\" socks5://***@p:1080 is a socks5:// proxy, which gpulint "
        "does not speak: give an http:// proxy (gpulint tunnels to the API server through it "
        "with CONNECT)");
}

}  // namespace
}  // namespace gpulint
