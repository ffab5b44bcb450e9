// The endpoints behind the HTTP/1.1 layer (an HttpHandler): /validate and
// /mutate (each also as /audit, /warn and /deny below it) over HandleReview
// (admission.h), the probes and /metrics, the checks made on a review's head
// before its body is read, and a decision log line per review. Runs on the
// event loop threads; never blocks.
#ifndef GPULINT_WEBHOOK_SERVER_ROUTER_H_
#define GPULINT_WEBHOOK_SERVER_ROUTER_H_

#include <string>
#include <vector>

#include "webhook/net/http_handler.h"
#include "webhook/server/admission.h"
#include "webhook/server/snapshot_store.h"
#include "webhook/support/log.h"
#include "webhook/support/metrics.h"

namespace gpulint {

// What the probes and /metrics read of the server around the router.
class ServerStatus {
 public:
  virtual ~ServerStatus() = default;
  // "" when ready, else why not ("shutting down").
  virtual std::string NotReadyReason() const = 0;
  // What /readyz says beside "ok" without failing: a stale node watch.
  virtual std::vector<std::string> ReadinessNotes() const = 0;
  // Brings the gauges that are not kept as they change up to date.
  virtual void RefreshMetrics() = 0;
};

class Router : public HttpHandler {
 public:
  // `client_certificate`: reviews need a verified client certificate (--client-ca).
  Router(const SnapshotStore& store, ServerStatus& status, Metrics& metrics, LogSink log,
         bool client_certificate);

  bool Admit(const HttpRequest& req, const PeerInfo& peer, const BodyFraming& framing,
             HttpResponse& res) override;
  void Serve(const HttpRequest& req, HttpResponse& res) override;

 private:
  void ServeReview(Endpoint endpoint, Mode mode, const HttpRequest& req, HttpResponse& res);
  void LogDecision(Endpoint endpoint, const ReviewResult& result, double seconds);

  const SnapshotStore& store_;
  ServerStatus& status_;
  Metrics& metrics_;
  const LogSink log_;
  const bool client_certificate_;
};

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_SERVER_ROUTER_H_
