// Self-registration (--register FILE): the webhook's Validating- and
// MutatingWebhookConfiguration are registered with the API server only while
// this webhook can answer, so that a webhook that never got its certificate
// (cert-manager not done yet, a Secret missing) or whose certificate expired
// cannot leave the cluster refusing every pod under failurePolicy Fail.
//
// FILE holds the configurations as the chart renders them (one YAML document
// each, or a List). While the server can answer, each is server-side applied
// with its webhooks' clientConfig.caBundle set from the CA file; while it
// cannot, each is applied with no webhooks at all. The field manager is
// gpulint-webhook, so the chart (which creates the objects empty) and this
// never write the same fields. Applied again when the answer, FILE or the CA
// changes, after a failure (with backoff), and every resync period, which
// repairs a configuration someone edited. RBAC: get and patch on the two
// configurations, by name; nothing else.
#ifndef GPULINT_WEBHOOK_KUBE_REGISTRAR_H_
#define GPULINT_WEBHOOK_KUBE_REGISTRAR_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kube/kube_client.h"
#include "webhook/kube/loop_control.h"
#include "webhook/support/file_watch.h"
#include "webhook/support/log.h"
#include "webhook/support/metrics.h"

namespace gpulint {

// One configuration to apply: its API path and the apply body (JSON).
struct Registration {
  std::string kind;  // ValidatingWebhookConfiguration or MutatingWebhookConfiguration
  std::string name;
  std::string path;  // /apis/admissionregistration.k8s.io/v1/<resource>/<name>
  std::string body;
};

// The apply requests for the configurations of `text` (YAML: documents or a
// List), registered (each webhook's clientConfig.caBundle set to `ca_pem`,
// base64) or withdrawn (no webhooks). False with *error when `text` holds
// anything but webhook configurations with names, or holds none.
bool PlanRegistrations(std::string_view text, const std::string& file, const std::string& ca_pem,
                       bool registered, std::vector<Registration>* out, std::string* error);

class Registrar {
 public:
  using AnswerSource = std::function<bool()>;  // whether the server can answer now
  struct Options {
    std::chrono::milliseconds poll{1000};  // how soon a change of the answer or a file is seen
    std::chrono::milliseconds resync{std::chrono::minutes(5)};
    std::chrono::milliseconds min_backoff{500};
    std::chrono::milliseconds max_backoff{30000};
    int request_timeout_seconds = 30;
  };

  Registrar(KubeEndpoint endpoint, std::string file, std::string ca_file, AnswerSource answering,
            LogSink log, Metrics* metrics, Options options);
  ~Registrar();
  Registrar(const Registrar&) = delete;
  Registrar& operator=(const Registrar&) = delete;

  void Start();
  void Stop();  // idempotent

  uint64_t applies() const { return applies_.load(); }  // requests sent, answered or not

 private:
  using Clock = std::chrono::steady_clock;
  void Run();
  // Applies every configuration in the state `registered`; false on the
  // first failure, with *error.
  bool ApplyAll(bool registered, std::string* error);

  KubeEndpoint endpoint_;
  FileWatch file_, ca_;
  AnswerSource answering_;
  LogSink log_;
  Metrics* metrics_;
  Options options_;

  std::atomic<uint64_t> applies_{0};
  LoopControl loop_;  // last: stopped first
};

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_KUBE_REGISTRAR_H_
