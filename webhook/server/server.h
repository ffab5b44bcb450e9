// gpulint-webhook's HTTPS server: /validate and /mutate over HandleReview,
// probes, metrics, hot reload of the certificate, the policy and the nodes
// file, and a graceful stop. Everything here is transport; verdicts come from
// admission.h.
#ifndef GPULINT_WEBHOOK_SERVER_SERVER_H_
#define GPULINT_WEBHOOK_SERVER_SERVER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/cluster/inventory.h"
#include "engine/policy/policy.h"
#include "webhook/kube/node_sink.h"
#include "webhook/net/http_handler.h"
#include "webhook/net/tls_server.h"
#include "webhook/server/admission.h"
#include "webhook/support/file_watch.h"
#include "webhook/support/log.h"
#include "webhook/support/metrics.h"

namespace gpulint {

struct ServerOptions {
  std::string host = "0.0.0.0";
  int port = 8443;  // 0: any free port (see WebhookServer::port)
  TlsFiles tls;
  std::string policy_file;  // empty: the policy compiled into the binary
  std::string nodes_file;   // optional: a Node list (YAML or JSON)
  int workers = 0;  // event-loop threads; 0: one per CPU
  size_t max_body_bytes = 3u << 20;  // kube-apiserver's own request limit
  int read_timeout_seconds = 10;     // to read one whole request
  int write_timeout_seconds = 10;
  int keep_alive_seconds = 30;
  size_t keep_alive_requests = 1000;
  std::chrono::milliseconds reload_interval{1000};
  // Between SIGTERM (readiness turns false) and closing the listener, so the
  // API server stops choosing this pod before connections are refused.
  std::chrono::milliseconds drain{0};
  LogSink log = StderrLogSink;
};

// The endpoints behind the HTTP/1.1 layer (HttpHandler), over a TlsServer.
// Also the sink of the node watch (node_watch.h), whose changes it applies to
// its groups of alike nodes one at a time.
class WebhookServer : private HttpHandler, public NodeSink {
 public:
  explicit WebhookServer(ServerOptions options);
  ~WebhookServer();
  WebhookServer(const WebhookServer&) = delete;
  WebhookServer& operator=(const WebhookServer&) = delete;

  // Loads the policy, certificate and nodes (any that fail are logged and
  // retried on change: the server then answers, but is not ready), binds and
  // starts serving. False with *error only when the address cannot be bound.
  bool Start(std::string* error);
  int port() const { return port_; }

  // Readiness: a valid certificate is loaded and no stop began. Without a
  // valid policy the server is ready all the same, and allows every review
  // with a warning (admission.h).
  bool ready() const;
  // Whether the API server can be answered: a certificate is loaded and has
  // not expired (stopping does not matter: another replica takes over). The
  // registrar keeps the webhook configurations registered only meanwhile.
  bool can_answer() const;

  // The SIGTERM path: readiness false at once, then after the drain delay the
  // listener closes, in-flight requests finish, and this returns. Idempotent.
  void Shutdown();
  bool stopping() const { return stopping_; }
  // Blocks until the server has stopped (after Shutdown, or a listener failure).
  void Wait();

  // NodeSink: nodes from the API server (node_watch.h), combined with the
  // nodes file. A change no rule can see (a heartbeat) publishes nothing.
  void ReplaceNodes(std::vector<NodeClass> nodes) override;
  void PutNode(NodeClass node) override;
  void RemoveNode(const std::string& name) override;

  Snapshot CurrentSnapshot() const;
  Metrics& metrics() { return metrics_; }

 private:
  // HttpHandler: the head, then the whole request.
  bool Admit(const httplib::Request& req, const PeerInfo& peer, const BodyFraming& framing,
             httplib::Response& res) override;
  void Serve(const httplib::Request& req, httplib::Response& res) override;
  void ServeReview(Endpoint endpoint, Mode mode, const httplib::Request& req,
                   httplib::Response& res);
  void LogDecision(Endpoint endpoint, const ReviewResult& result, double seconds);

  // Reloads (server_state.cc).
  void ReloadLoop();
  void ReloadPolicy();
  void ReloadCertificate();
  void ReloadNodesFile();
  void CheckCertificateExpiry();  // logs, once, a certificate past its notAfter
  void CheckOpenFiles();          // logs running out of descriptors, and recovering
  // Rebuilds the part of the inventory from the policy and the nodes file,
  // then publishes.
  void Publish();
  // A new snapshot from base_ and watched_; publish_mu_ held.
  void PublishLocked();

  ServerOptions options_;
  Metrics metrics_;
  std::unique_ptr<TlsServer> http_;
  int port_ = 0;

  FileWatch policy_watch_, nodes_watch_, cert_watch_, key_watch_, client_ca_watch_;
  // Publishing, one at a time (the reload thread and the watch thread both
  // publish); taken before state_mu_. Guards the four members below.
  std::mutex publish_mu_;
  std::shared_ptr<const Policy> base_policy_;
  std::string base_problem_;  // why base_policy_ is null, when it is
  Inventory base_;      // base_policy_'s classes and the nodes file's nodes
  NodeGroups watched_;  // nodes from the API server, kept one change at a time
  mutable std::mutex state_mu_;  // guards the members below
  std::shared_ptr<const Policy> policy_;
  std::vector<NodeClass> file_nodes_;
  std::string policy_problem_;  // why no policy is loaded, while none is
  Snapshot snapshot_;
  bool cert_loaded_ = false;

  std::atomic<bool> stopping_{false};
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stopped_ = false;
  // The loaded certificate's notAfter; Start's thread, then the reload thread's.
  int64_t cert_not_after_ = 0;
  bool cert_expiry_logged_ = false;
  std::atomic<bool> cert_expired_{false};  // the loaded certificate is past its notAfter
  bool out_of_files_ = false;  // the reload thread's
  std::mutex join_mu_;
  bool stop_logged_ = false;  // guarded by join_mu_
  std::thread listen_thread_, reload_thread_;
};

// "0.0.0.0:8443", "[::]:8443", ":8443" -> host, port. False on a malformed address.
bool ParseListenAddress(const std::string& text, std::string* host, int* port);

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_SERVER_SERVER_H_
