// Where the API server is and how to authenticate to it: in-cluster (the
// service account's token and CA) or a kubeconfig file. Only what a Node
// watch needs: a bearer token or a client certificate, and the CA to trust.
#ifndef GPULINT_WEBHOOK_KUBE_CLIENT_H_
#define GPULINT_WEBHOOK_KUBE_CLIENT_H_

#include <httplib.h>

#include <memory>
#include <string>

namespace gpulint {

struct KubeEndpoint {
  std::string host;
  int port = 443;
  std::string base_path;  // from a server URL such as https://host/k8s/clusters/c-1
  std::string ca_pem;     // trusted CA bundle (PEM); empty: the system's
  bool insecure_skip_verify = false;
  std::string token;
  std::string token_file;  // re-read on every connection: projected tokens rotate
  std::string client_cert_pem, client_key_pem;
};

// KUBERNETES_SERVICE_HOST/PORT and /var/run/secrets/kubernetes.io/serviceaccount
// (`sa_dir` in tests).
bool InClusterEndpoint(const std::string& sa_dir, KubeEndpoint* out, std::string* error);
inline constexpr const char* kServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount";

// The current context of a kubeconfig: server, certificate-authority(-data),
// insecure-skip-tls-verify, token, tokenFile, client-certificate(-data) and
// client-key(-data). Relative file names are relative to the kubeconfig.
bool KubeconfigEndpoint(const std::string& path, KubeEndpoint* out, std::string* error);

// "https://host:port/path" -> host, port, path. Only https is accepted.
bool ParseServerUrl(const std::string& url, KubeEndpoint* out, std::string* error);

bool Base64Decode(std::string_view in, std::string* out);

// A client for `ep`, configured to trust only its CA (never the system store
// when a CA is given). Null with *error when the CA or client pair is unusable.
// The token is read now (token_file wins when set).
std::unique_ptr<httplib::SSLClient> MakeKubeClient(const KubeEndpoint& ep, std::string* error);

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_KUBE_CLIENT_H_
