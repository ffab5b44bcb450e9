// The endpoints behind the HTTP/1.1 layer (an HttpHandler): /validate and
// /mutate (each also as /audit, /warn and /deny below it) over HandleReview
// (admission.h), the probes and /metrics, the checks made on a review's head
// before its body is read, and a decision log line per review. Runs on the
// event loop threads and never blocks there: reviews are judged on the
// ReviewPool's workers (answered 503 when it is full), while the probes and
// /metrics are answered on the loop, so nothing waits behind a review.
#ifndef GPULINT_WEBHOOK_SERVER_ROUTER_H_
#define GPULINT_WEBHOOK_SERVER_ROUTER_H_

#include <string>
#include <vector>

#include "webhook/net/byte_budget.h"
#include "webhook/net/http_handler.h"
#include "webhook/server/admission.h"
#include "webhook/server/refusals.h"
#include "webhook/server/review_pool.h"
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

// What the router needs of the server around it, besides the snapshot.
struct RouterSetup {
  ServerStatus* status = nullptr;
  Metrics* metrics = nullptr;
  Refusals* refusals = nullptr;
  ReviewPool* pool = nullptr;
  ByteBudget* buffers = nullptr;  // a body waiting for or in a worker is held here
  LogSink log;
  ReviewOptions review;
  bool client_certificate = false;  // reviews need a verified one (--client-ca)
};

class Router : public HttpHandler {
 public:
  Router(const SnapshotStore& store, RouterSetup setup);

  bool Admit(const HttpRequest& req, const PeerInfo& peer, const BodyFraming& framing,
             HttpResponse& res) override;
  std::shared_ptr<PendingAnswer> Serve(HttpRequest& req, HttpResponse& res,
                                       const ConnectionWakerPtr& waker) override;
  void Refused(int status, const std::string& why, const PeerInfo& peer) override;

 private:
  struct Job;
  std::shared_ptr<PendingAnswer> QueueReview(Endpoint endpoint, Mode mode, HttpRequest& req,
                                             HttpResponse& res, const ConnectionWakerPtr& waker);
  HttpResponse Judge(Job& job);
  void ServeProbe(const HttpRequest& req, HttpResponse& res);
  void LogDecision(Endpoint endpoint, const ReviewResult& result, double seconds,
                   double queued_seconds);

  const SnapshotStore& store_;
  const RouterSetup setup_;
};

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_SERVER_ROUTER_H_
