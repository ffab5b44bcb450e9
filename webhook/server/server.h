// gpulint-webhook's HTTPS server: /validate and /mutate over HandleReview
// (router.h), probes, metrics, hot reload of the certificate, the policy and
// the nodes file, and a graceful stop. Everything here is transport; verdicts
// come from admission.h.
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
#include "webhook/kube/node_sink.h"
#include "webhook/kube/watch_sync.h"
#include "webhook/net/tls_server.h"
#include "webhook/net/byte_budget.h"
#include "webhook/server/admission.h"
#include "webhook/server/refusals.h"
#include "webhook/server/review_pool.h"
#include "webhook/server/router.h"
#include "webhook/server/serving_certificate.h"
#include "webhook/server/snapshot_store.h"
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
  // The limits (docs/webhook.md, "Limits and security"; each a flag).
  size_t max_body_bytes = 3u << 20;  // kube-apiserver's own request limit
  size_t max_connections = 1024;
  size_t max_buffered_bytes = 32u << 20;  // requests held: being read, queued, judged
  int review_workers = 0;                 // threads judging reviews; 0: one per CPU
  size_t max_reviews_in_flight = 64;      // queued or being judged
  size_t parse_budget = kDefaultParseBudget;  // a review's tree, in times its body
  bool allow_existing_violations = true;      // ratcheting (ReviewOptions)
  int read_timeout_seconds = 10;     // to read one whole request
  int write_timeout_seconds = 10;    // to send an answer, and for a worker to judge it
  int keep_alive_seconds = 30;
  size_t keep_alive_requests = 1000;
  std::chrono::milliseconds reload_interval{1000};
  // Between SIGTERM (readiness turns false) and closing the listener, so the
  // API server stops choosing this pod before connections are refused.
  std::chrono::milliseconds drain{0};
  // A list/watch (AddWatch) that has not synced for this long is stale: a
  // metric and a /readyz note, never unready (docs/webhook.md says why).
  std::chrono::milliseconds watch_stale_after{std::chrono::minutes(3)};
  LogSink log = StderrLogSink;
};

// The server: the net layer (a TlsServer with HTTP/1.1 on it) brought up over
// the endpoints (Router), and one thread that reloads what changed on disk.
// Each job has one owner: the snapshot and its reloads the SnapshotStore, the
// certificate and its expiry the ServingCertificate, the routes the Router;
// this class starts, probes and stops them. It is also the sink of the node
// and DRA watches (node_watch.h, dra_watch.h), for the snapshot store, and
// hears what the net layer refuses (NetObserver), for the logs and metrics.
class WebhookServer : public NodeSink, public DraSink, private ServerStatus, private NetObserver {
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

  // NodeSink: the snapshot store's (snapshot_store.h).
  void ReplaceNodes(std::vector<NodeClass> nodes) override {
    store_.ReplaceNodes(std::move(nodes));
  }
  void PutNode(NodeClass node) override { store_.PutNode(std::move(node)); }
  void RemoveNode(const std::string& name) override { store_.RemoveNode(name); }
  // DraSink: the snapshot store's too. AwaitDra before the watches start.
  void AwaitDra() { store_.AwaitDra(); }
  void SetDra(std::shared_ptr<const DraInventory> dra,
              const std::set<std::string>* changed_nodes) override {
    store_.SetDra(std::move(dra), changed_nodes);
  }

  // A list/watch whose staleness /metrics and /readyz report; it must
  // outlive the server.
  void AddWatch(const WatchSync* sync);

  Snapshot CurrentSnapshot() const { return store_.Current(); }
  // What is held now against the limits (also in /metrics).
  size_t buffered_bytes() const { return buffers_.used(); }
  size_t reviews_in_flight() const { return pool_.in_flight(); }
  Metrics& metrics() { return metrics_; }

 private:
  // ServerStatus, for the probes.
  std::string NotReadyReason() const override;
  std::vector<std::string> ReadinessNotes() const override;
  void RefreshMetrics() override;
  // NetObserver, for the refusals.
  void ConnectionRefused(size_t limit) override;
  void DeadlinePassed(const TlsConnection& connection) override;

  void ReloadLoop();
  void CheckOpenFiles();  // logs running out of descriptors, and recovering

  ServerOptions options_;
  Metrics metrics_;
  SnapshotStore store_;
  ByteBudget buffers_;
  Refusals refusals_;
  ReviewPool pool_;  // outlives the connections that wait on it: stopped after them
  std::unique_ptr<TlsServer> http_;
  ServingCertificate certificate_;  // installs each new context in http_
  Router router_;
  int port_ = 0;

  mutable std::mutex watches_mu_;
  std::vector<const WatchSync*> watches_;  // guarded by watches_mu_

  std::atomic<bool> stopping_{false};
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stopped_ = false;
  bool out_of_files_ = false;  // the reload thread's
  std::mutex join_mu_;
  bool stop_logged_ = false;  // guarded by join_mu_
  std::thread listen_thread_, reload_thread_;
};

// "0.0.0.0:8443", "[::]:8443", ":8443" -> host, port. False on a malformed address.
bool ParseListenAddress(const std::string& text, std::string* host, int* port);

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_SERVER_SERVER_H_
