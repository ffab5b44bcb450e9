// A client for the API server, as both binaries need it: the server and how
// to authenticate to it (a bearer token, a client certificate, or an exec
// plugin's credential), the CA to trust, and the requests the webhook's loops
// and `gpulint audit` make. Where an endpoint comes from: kube/kubeconfig.h.
#ifndef GPULINT_KUBE_KUBE_CLIENT_H_
#define GPULINT_KUBE_KUBE_CLIENT_H_

#include <memory>
#include <string>
#include <string_view>

#include "kube/exec_credential.h"
#include "kube/https_client.h"

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
  // A kubeconfig user's exec plugin: its credential, asked for by every
  // client made, replaces the token and client pair above.
  std::shared_ptr<ExecCredentials> exec;
};

// Reads a credential or CA file of at most 1 MiB.
bool ReadCredentialFile(const std::string& path, std::string* out, std::string* error);

// "https://host:port/path" -> host, port, path. Only https is accepted.
bool ParseServerUrl(const std::string& url, KubeEndpoint* out, std::string* error);

// A client for `ep`, configured to trust only its CA (never the system store
// when a CA is given). Null with *error when the CA or client pair is unusable,
// or the exec plugin fails. The token is read now (token_file wins when set;
// an exec plugin's credential over both).
std::unique_ptr<HttpsClient> MakeKubeClient(const KubeEndpoint& ep, std::string* error);

// `s` percent-encoded for a URL's query or path segment: every byte but
// letters, digits and -_.~ (RFC 3986's unreserved characters).
std::string UrlEscape(std::string_view s);

// An API server's answer. `status` is 0 when none came (`error` says why);
// `body` is cut to 512 bytes, enough for a Status message.
struct KubeResponse {
  int status = 0;
  std::string body;
  std::string error;
  bool ok() const { return status >= 200 && status < 300; }
  std::string Describe() const;  // "HTTP 422: {...}" or the transport error
};

inline constexpr const char* kJsonPatchType = "application/json-patch+json";

// PATCH `path` with `body` of `content_type`: an RFC 6902 JSON patch
// (kJsonPatchType), as `kubectl patch --type=json` sends, or a server-side
// apply ("application/apply-patch+yaml").
KubeResponse Patch(HttpsClient& client, const std::string& path, const std::string& body,
                   const char* content_type);
inline KubeResponse JsonPatch(HttpsClient& client, const std::string& path,
                              const std::string& patch) {
  return Patch(client, path, patch, kJsonPatchType);
}
// GET (a small document: discovery) and DELETE `path`; `body` is cut as
// KubeResponse says only for DELETE.
KubeResponse Get(HttpsClient& client, const std::string& path, size_t max_body);
KubeResponse Delete(HttpsClient& client, const std::string& path);

}  // namespace gpulint

#endif  // GPULINT_KUBE_KUBE_CLIENT_H_
