// A client for the API server, as both binaries need it: the server and how
// to authenticate to it (a bearer token, a client certificate, or an exec
// plugin's credential), the CA to trust, and the requests the webhook's loops
// and `gpulint audit` make. Where an endpoint comes from: kube/kubeconfig.h.
#ifndef GPULINT_KUBE_KUBE_CLIENT_H_
#define GPULINT_KUBE_KUBE_CLIENT_H_

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "kube/exec_credential.h"
#include "kube/https_client.h"
#include "kube/proxy.h"

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
  // The HTTP proxy to tunnel through (the cluster's proxy-url, or
  // HTTPS_PROXY); empty: none.
  ProxyConfig proxy;
  // Limits for every client made: a whole request's time (0: none), and a
  // deadline past which no request runs, with who set it for the error
  // ("gpulint audit --timeout 15m").
  std::chrono::milliseconds request_timeout{0};
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  std::string deadline_label;
};

// Reads a credential or CA file of at most 1 MiB.
bool ReadCredentialFile(const std::string& path, std::string* out, std::string* error);

// "https://host:port/path" -> host, port, path. Only https is accepted, and
// a URL holding a user or password is refused (the error never quotes them):
// gpulint sends no basic credentials, and the URL is printed in reports.
bool ParseServerUrl(const std::string& url, KubeEndpoint* out, std::string* error);

// False with *error when a bearer token holds a character no HTTP header
// value may (CR, LF and the other control characters but tab): sent, it
// would end the Authorization header and start headers of its own. `source`
// names the token ("user \"ci\"'s token"); the error never quotes it.
bool CheckBearerToken(std::string_view token, const std::string& source, std::string* error);

// A client for `ep`, configured to trust only its CA (never the system store
// when a CA is given), through its proxy, with its limits. Null with *error
// when the CA or client pair is unusable, the token is refused
// (CheckBearerToken), or the exec plugin fails. The token is read now
// (token_file wins when set; an exec plugin's credential over both). The
// client scrubs the token from every answer body it hands on
// (HttpsClient::Scrub), so a server that echoes it does not put it in a
// message.
std::unique_ptr<HttpsClient> MakeKubeClient(const KubeEndpoint& ep, std::string* error);

// `s` percent-encoded for a URL's query or path segment: every byte but
// letters, digits and -_.~ (RFC 3986's unreserved characters).
std::string UrlEscape(std::string_view s);

// An API server's answer. `status` is 0 when none came (`error` says why);
// `body` is cut to 512 bytes, enough for a Status message, and no more than
// kMaxAnswerBytes is read of it: a body that never ends is cut there.
struct KubeResponse {
  int status = 0;
  std::string body;
  std::string error;
  bool ok() const { return status >= 200 && status < 300; }
  std::string Describe() const;  // "HTTP 422: {...}" or the transport error
};

inline constexpr size_t kMaxAnswerBytes = 64u << 20;

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
// KubeResponse says only for DELETE. A GET answer larger than `max_body`
// is an error, and reading stops there.
KubeResponse Get(HttpsClient& client, const std::string& path, size_t max_body);
KubeResponse Delete(HttpsClient& client, const std::string& path);

}  // namespace gpulint

#endif  // GPULINT_KUBE_KUBE_CLIENT_H_
