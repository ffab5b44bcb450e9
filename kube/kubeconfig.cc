#include "kube/kubeconfig.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <utility>
#include <vector>

#include "common/base64.h"
#include "engine/base/value.h"
#include "engine/yaml/loader.h"

namespace gpulint {
namespace {

// Kubeconfigs of organisations with hundreds of clusters pass 1 MiB.
constexpr size_t kMaxKubeconfigBytes = 16u << 20;

std::string Quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string DirOf(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string Resolve(const std::string& dir, std::string_view path) {
  return path.empty() || path[0] == '/' ? std::string(path) : dir + "/" + std::string(path);
}

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// One kubeconfig file, read.
struct ConfigFile {
  std::string path;
  std::string dir;
  Value root;
};

bool ReadConfig(const std::string& path, ConfigFile* out, std::string* error) {
  Error load_error;
  bool got = false;
  bool loaded = LoadYamlFile(
      path, LoadLimits{.max_document_bytes = kMaxKubeconfigBytes},
      [&](Document&& doc) {
        if (doc.ok) {
          out->root = std::move(doc.root);
          got = true;
        } else {
          load_error = doc.error;
        }
        return false;  // the first document only
      },
      &load_error);
  if (!loaded || !got) {
    *error = load_error.message.empty() ? path + ": empty kubeconfig" : load_error.ToString();
    return false;
  }
  if (!out->root.is_mapping() && !out->root.is_null()) {
    *error = path + ": not a kubeconfig (a mapping with clusters, users and contexts)";
    return false;
  }
  out->path = path;
  out->dir = DirOf(path);
  return true;
}

// A named entry of a kubeconfig, with the file that defined it.
struct Entry {
  const Value* value = nullptr;  // the entry's `cluster`, `user` or `context` mapping
  const ConfigFile* file = nullptr;
};

// The files merged as client-go merges them: for clusters, users and
// contexts the first file to name an entry wins it whole; the first
// current-context set wins.
struct Merged {
  std::vector<ConfigFile> files;
  std::map<std::string, Entry, std::less<>> clusters, users, contexts;
  std::string current_context;

  void Add(const ConfigFile& file) {
    auto take = [&](const char* list, const char* field,
                    std::map<std::string, Entry, std::less<>>* into) {
      const Value* items = file.root.Find(list);
      if (!items || !items->is_sequence()) return;
      for (const Value& item : items->items()) {
        std::string name(item.StringAt("name"));
        const Value* value = item.Find(field);
        if (!name.empty() && value) into->try_emplace(name, Entry{value, &file});
      }
    };
    take("clusters", "cluster", &clusters);
    take("users", "user", &users);
    take("contexts", "context", &contexts);
    if (current_context.empty())
      current_context = std::string(file.root.StringAt("current-context"));
  }
  bool empty() const { return clusters.empty() && users.empty() && contexts.empty(); }
};

// A PEM value given either inline (`<key>-data`, base64) or as a file.
bool PemField(const Value& m, const std::string& key, const std::string& dir, std::string* out,
              std::string* error) {
  std::string_view data = m.StringAt(key + "-data");
  if (!data.empty()) {
    if (!Base64Decode(data, out)) {
      *error = key + "-data is not valid base64";
      return false;
    }
    return true;
  }
  std::string_view file = m.StringAt(key);
  if (file.empty()) return true;
  return ReadCredentialFile(Resolve(dir, file), out, error);
}

// The cluster as an ExecCredential's spec.cluster (provideClusterInfo).
std::string ClusterJson(const Value& cluster, const KubeEndpoint& ep) {
  std::string out = "{\"server\":";
  AppendJsonString(cluster.StringAt("server"), &out);
  if (!ep.ca_pem.empty()) {
    out += ",\"certificate-authority-data\":";
    AppendJsonString(Base64Encode(ep.ca_pem), &out);
  }
  if (ep.insecure_skip_verify) out += ",\"insecure-skip-tls-verify\":true";
  const Value* extensions = cluster.Find("extensions");
  if (extensions && extensions->is_sequence()) {
    // client.authentication.k8s.io/exec: what the cluster hands its plugin.
    for (const Value& e : extensions->items()) {
      if (e.StringAt("name") != "client.authentication.k8s.io/exec") continue;
      if (const Value* ext = e.Find("extension")) out += ",\"config\":" + ToJson(*ext);
    }
  }
  return out + "}";
}

bool ReadUser(const std::string& name, const Entry& user, const Value& cluster, KubeEndpoint* ep,
              std::string* error) {
  const Value& u = *user.value;
  const std::string& dir = user.file->dir;
  if (const Value* exec = u.Find("exec"); exec && exec->is_mapping()) {
    ExecConfig config;
    if (!ReadExecConfig(*exec, dir, name, &config, error)) return false;
    config.cluster_json = ClusterJson(cluster, *ep);
    ep->exec = std::make_shared<ExecCredentials>(std::move(config));
    return true;
  }
  if (u.Find("auth-provider")) {
    *error = "user " + Quote(name) +
             " authenticates with an auth-provider, which kubectl itself no longer supports "
             "(since 1.26): use its exec credential plugin (gke-gcloud-auth-plugin, kubelogin), "
             "a token or a client certificate";
    return false;
  }
  ep->token = std::string(u.StringAt("token"));
  std::string_view token_file = u.StringAt("tokenFile");
  if (!token_file.empty()) ep->token_file = Resolve(dir, token_file);
  return PemField(u, "client-certificate", dir, &ep->client_cert_pem, error) &&
         PemField(u, "client-key", dir, &ep->client_key_pem, error);
}

// The endpoint of `context_name` in `merged`; `where` names the files in messages.
// insecure-skip-tls-verify and certificate-authority(-data), as kubectl
// reads them: the flag is a boolean or nothing (client-go decodes the file
// as JSON into a bool, so "true" in quotes fails to load), and together with
// a CA it is refused (client-go: "specifying a root certificates file with
// the insecure flag is not allowed").
bool ReadTls(const Value& c, const std::string& cluster_name, const std::string& dir,
             const std::string& where, KubeEndpoint* ep, std::string* error) {
  std::string what = where + ": cluster " + Quote(cluster_name) + ": ";
  const Value* insecure = c.Find("insecure-skip-tls-verify");
  if (insecure && !insecure->is_null() && insecure->type() != Value::Type::kBool) {
    *error = what + "insecure-skip-tls-verify must be true or false, not the " +
             TypeName(insecure->type()) + " " + Quote(insecure->text()) +
             " (kubectl does not load it either; write it without quotes)";
    return false;
  }
  ep->insecure_skip_verify = insecure && insecure->text() == "true";
  bool has_ca = !c.StringAt("certificate-authority").empty() ||
                !c.StringAt("certificate-authority-data").empty();
  if (ep->insecure_skip_verify && has_ca) {
    *error = what +
             "insecure-skip-tls-verify together with a certificate-authority: kubectl refuses "
             "them (\"specifying a root certificates file with the insecure flag is not "
             "allowed\"), and so does gpulint; keep the CA and drop the flag";
    return false;
  }
  if (!PemField(c, "certificate-authority", dir, &ep->ca_pem, error)) {
    *error = what + *error;
    return false;
  }
  return true;
}

// The cluster's proxy-url, else HTTPS_PROXY unless NO_PROXY names the server.
bool ReadProxy(const Value& c, const std::string& cluster_name, const ProxyEnvironment& proxies,
               KubeEndpoint* ep, std::string* error) {
  std::string_view proxy_url = c.StringAt("proxy-url");
  if (!proxy_url.empty())
    return ParseProxyUrl(proxy_url, "the proxy-url of cluster " + Quote(cluster_name), &ep->proxy,
                         error);
  return ProxyFromEnvironment(proxies, ep->host, ep->port, &ep->proxy, error);
}

bool EndpointOf(const Merged& merged, const std::string& context_name, bool from_flag,
                const std::string& where, const ProxyEnvironment& proxies, KubeEndpoint* ep,
                std::string* error) {
  if (context_name.empty()) {
    *error = where + ": no current-context is set; pass --context (contexts: " + [&] {
      std::string names;
      for (const auto& [name, entry] : merged.contexts) names += (names.empty() ? "" : ", ") + name;
      return names.empty() ? std::string("none") : names;
    }() + ")";
    return false;
  }
  auto context = merged.contexts.find(context_name);
  if (context == merged.contexts.end()) {
    *error = where + ": context " + Quote(context_name) + " does not exist" +
             (from_flag ? std::string(" (--context)") : std::string(" (its current-context)"));
    return false;
  }
  const Value& ctx = *context->second.value;
  std::string cluster_name(ctx.StringAt("cluster"));
  auto cluster = merged.clusters.find(cluster_name);
  if (cluster == merged.clusters.end()) {
    *error = where + ": context " + Quote(context_name) + " names cluster " + Quote(cluster_name) +
             ", which does not exist";
    return false;
  }
  const Value& c = *cluster->second.value;
  std::string server(c.StringAt("server"));
  if (server.empty()) {
    *error = where + ": cluster " + Quote(cluster_name) + " has no server";
    return false;
  }
  if (!ParseServerUrl(server, ep, error)) {
    *error = where + ": cluster " + Quote(cluster_name) + ": " + *error;
    return false;
  }
  if (!ReadTls(c, cluster_name, cluster->second.file->dir, where, ep, error)) return false;
  if (!ReadProxy(c, cluster_name, proxies, ep, error)) return false;
  std::string user_name(ctx.StringAt("user"));
  if (user_name.empty()) return true;  // anonymous
  auto user = merged.users.find(user_name);
  if (user == merged.users.end()) {
    *error = where + ": context " + Quote(context_name) + " names user " + Quote(user_name) +
             ", which does not exist";
    return false;
  }
  return ReadUser(user_name, user->second, c, ep, error);
}

}  // namespace

bool InClusterEndpoint(const std::string& sa_dir, const ProxyEnvironment& proxies,
                       KubeEndpoint* ep, std::string* error) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (!host || !*host || !port || !*port) {
    *error =
        "not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set";
    return false;
  }
  std::string h = host;
  if (h.find(':') != std::string::npos) h = "[" + h + "]";  // IPv6 service address
  if (!ParseServerUrl("https://" + h + ":" + port, ep, error)) return false;
  ep->token_file = sa_dir + "/token";
  std::string token;
  if (!ReadCredentialFile(ep->token_file, &token, error)) return false;
  if (!ReadCredentialFile(sa_dir + "/ca.crt", &ep->ca_pem, error)) return false;
  return ProxyFromEnvironment(proxies, ep->host, ep->port, &ep->proxy, error);
}

KubeconfigOptions KubeconfigOptionsFromEnvironment() {
  KubeconfigOptions options;
  const char* env = std::getenv("KUBECONFIG");
  const char* home = std::getenv("HOME");
  options.env = env ? env : "";
  options.home = home ? home : "";
  options.proxies = ProxyEnvironmentOfProcess();
  return options;
}

bool FindEndpoint(const KubeconfigOptions& options, KubeEndpoint* ep, std::string* origin,
                  std::string* error) {
  std::vector<std::string> paths;
  bool explicit_file = !options.kubeconfig.empty();
  if (explicit_file) {
    if (!Exists(options.kubeconfig)) {
      *error = "--kubeconfig " + options.kubeconfig + ": no such file";
      return false;
    }
    paths.push_back(options.kubeconfig);
  } else if (!options.env.empty()) {
    for (size_t start = 0; start <= options.env.size();) {
      size_t colon = options.env.find(':', start);
      std::string path = options.env.substr(start, colon - start);
      bool seen = std::find(paths.begin(), paths.end(), path) != paths.end();
      if (!path.empty() && !seen && Exists(path)) paths.push_back(path);
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
  } else if (!options.home.empty() && Exists(options.home + "/.kube/config")) {
    paths.push_back(options.home + "/.kube/config");
  }
  Merged merged;
  merged.files.resize(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    if (!ReadConfig(paths[i], &merged.files[i], error)) return false;
    merged.Add(merged.files[i]);
  }
  if (merged.empty() && !explicit_file && options.context.empty()) {
    // As client-go: no kubeconfig at all, so the pod's own service account.
    std::string in_cluster_error;
    if (InClusterEndpoint(options.sa_dir, options.proxies, ep, &in_cluster_error)) {
      *origin = "in-cluster service account";
      return true;
    }
    *error =
        "no kubeconfig found (--kubeconfig, $KUBECONFIG, ~/.kube/config) and " + in_cluster_error;
    return false;
  }
  std::string where;
  for (const std::string& p : paths) where += (where.empty() ? "" : ":") + p;
  if (where.empty()) where = "kubeconfig";
  std::string context = options.context.empty() ? merged.current_context : options.context;
  if (!EndpointOf(merged, context, !options.context.empty(), where, options.proxies, ep, error))
    return false;
  *origin = "kubeconfig " + where + ", context " + context;
  return true;
}

bool KubeconfigEndpoint(const std::string& path, KubeEndpoint* ep, std::string* error) {
  KubeconfigOptions options;
  options.kubeconfig = path;
  options.proxies = ProxyEnvironmentOfProcess();
  std::string origin;
  return FindEndpoint(options, ep, &origin, error);
}

}  // namespace gpulint
