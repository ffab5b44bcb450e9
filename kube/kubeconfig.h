// Where the API server is and who we are to it, found as kubectl finds it:
// --kubeconfig FILE alone; else $KUBECONFIG, a colon-separated list of files
// merged as kubectl merges them; else ~/.kube/config; else, inside a pod, its
// service account. --context picks a context other than current-context.
#ifndef GPULINT_KUBE_KUBECONFIG_H_
#define GPULINT_KUBE_KUBECONFIG_H_

#include <string>

#include "kube/kube_client.h"
#include "kube/proxy.h"

namespace gpulint {

inline constexpr const char* kServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount";

// KUBERNETES_SERVICE_HOST/PORT and the service account's token and CA in
// `sa_dir` (kServiceAccountDir; another in tests); the proxy of `proxies`
// (HTTPS_PROXY and NO_PROXY, as client-go's in-cluster client reads them).
bool InClusterEndpoint(const std::string& sa_dir, const ProxyEnvironment& proxies,
                       KubeEndpoint* out, std::string* error);
inline bool InClusterEndpoint(const std::string& sa_dir, KubeEndpoint* out, std::string* error) {
  return InClusterEndpoint(sa_dir, ProxyEnvironmentOfProcess(), out, error);
}

struct KubeconfigOptions {
  std::string kubeconfig;  // --kubeconfig: this file only, which must exist
  std::string env;         // $KUBECONFIG: files merged in order; missing ones skipped
  std::string home;        // $HOME, for ~/.kube/config
  std::string context;     // --context: instead of the current-context
  std::string sa_dir = kServiceAccountDir;  // in a pod, when no kubeconfig is found
  ProxyEnvironment proxies;  // HTTPS_PROXY and NO_PROXY, for a cluster without proxy-url
};
// $KUBECONFIG, $HOME and the proxy variables of this process.
KubeconfigOptions KubeconfigOptionsFromEnvironment();

// The endpoint `options` lead to, as kubectl would reach it. *origin says how,
// for the report: "kubeconfig /home/a/.kube/config, context prod" or "in-cluster
// service account". In the merged files, the first to set current-context
// wins, as does the first to define a cluster, user or context of a name
// (entries of the same name in later files are ignored whole); relative file
// names are relative to the file that names them. A user's `exec` plugin is
// run when a client is made (kube/exec_credential.h).
//
// A cluster's TLS settings are read as kubectl reads them, and refused where
// kubectl refuses them: insecure-skip-tls-verify must be a YAML boolean (the
// string "true" is an error, not true), and it cannot go with a
// certificate-authority. Its proxy-url wins over HTTPS_PROXY (kube/proxy.h).
bool FindEndpoint(const KubeconfigOptions& options, KubeEndpoint* out, std::string* origin,
                  std::string* error);

// The current context of one kubeconfig file (gpulint-webhook --kubeconfig).
bool KubeconfigEndpoint(const std::string& path, KubeEndpoint* out, std::string* error);

}  // namespace gpulint

#endif  // GPULINT_KUBE_KUBECONFIG_H_
