// A kubeconfig user's `exec` credential plugin (client.authentication.k8s.io
// v1 and v1beta1), run as kubectl runs it: the only way to reach EKS, GKE and
// AKS clusters (aws eks get-token, gke-gcloud-auth-plugin, kubelogin). The
// plugin prints an ExecCredential holding a bearer token or a client
// certificate pair, often with an expiry; the credential is kept until then
// and the plugin run again after it, or after the server refused it (401).
#ifndef GPULINT_KUBE_EXEC_CREDENTIAL_H_
#define GPULINT_KUBE_EXEC_CREDENTIAL_H_

#include <chrono>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/value.h"

namespace gpulint {

struct ExecConfig {
  std::string api_version;  // client.authentication.k8s.io/v1 or /v1beta1
  std::string command;      // a path, or a name looked up on PATH when run
  std::vector<std::string> args;
  std::vector<std::string> env;  // "NAME=value", over the process's own
  std::string install_hint;      // shown when the command is not found
  std::string interactive_mode;  // Never, IfAvailable or Always
  // provideClusterInfo: the cluster is handed to the plugin in
  // KUBERNETES_EXEC_INFO (spec.cluster), as this JSON object.
  bool provide_cluster_info = false;
  std::string cluster_json;
  std::string user;  // the kubeconfig user's name, for messages
};

// Reads a kubeconfig user's `exec` mapping; a command holding a '/' that is
// not absolute is relative to `dir`, the kubeconfig's directory.
bool ReadExecConfig(const Value& exec, const std::string& dir, const std::string& user,
                    ExecConfig* out, std::string* error);

using ExecClock = std::chrono::system_clock;

struct ExecCredential {
  std::string token;
  std::string client_cert_pem, client_key_pem;
  ExecClock::time_point expires = ExecClock::time_point::max();  // none said: until refused
};

// Reads a plugin's standard output: an ExecCredential of `api_version` with
// status.token, or status.clientCertificateData and clientKeyData, and an
// optional status.expirationTimestamp (RFC 3339).
bool ParseExecCredential(std::string_view text, const std::string& api_version, ExecCredential* out,
                         std::string* error);

// One plugin's credential, shared by every client made for its endpoint: the
// webhook's loops run on several threads.
class ExecCredentials {
 public:
  explicit ExecCredentials(ExecConfig config) : config_(std::move(config)) {}
  // The credential held, or a fresh one from the plugin when none is held or
  // it expires within a minute. False with *error when the plugin fails: its
  // exit status, its standard error, and the install hint when it is missing.
  bool Get(ExecCredential* out, std::string* error);
  // The API server refused the credential (401): the next Get runs the plugin.
  void Invalidate();
  const ExecConfig& config() const { return config_; }

 private:
  bool Run(ExecCredential* out, std::string* error);

  const ExecConfig config_;
  std::mutex mu_;
  bool held_ = false;
  ExecCredential credential_;
};

}  // namespace gpulint

#endif  // GPULINT_KUBE_EXEC_CREDENTIAL_H_
