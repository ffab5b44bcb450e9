// What the HTTP/1.1 layer (http1_connection.h) calls for each request: the
// webhook's endpoints (Router, webhook/server/router.h). Its calls run on an
// event loop thread and must not block: work that takes long goes to another
// thread and comes back through a PendingAnswer.
#ifndef GPULINT_WEBHOOK_NET_HTTP_HANDLER_H_
#define GPULINT_WEBHOOK_NET_HTTP_HANDLER_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "webhook/net/connection_waker.h"
#include "webhook/net/http_message.h"
#include "webhook/net/peer_info.h"

namespace gpulint {

// The answer to a request that is worked out off the loop: completed once,
// from any thread, which wakes its connection to send it. The connection
// abandons it when it closes first (a deadline, the client gone), so the
// work can be skipped if it has not begun.
class PendingAnswer {
 public:
  explicit PendingAnswer(ConnectionWakerPtr waker) : waker_(std::move(waker)) {}

  void Complete(HttpResponse res) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      res_ = std::move(res);
      done_ = true;
    }
    waker_->Wake();
  }
  // The connection's: true, with the answer, once completed.
  bool Take(HttpResponse* res) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!done_) return false;
    *res = std::move(res_);
    return true;
  }
  void Abandon() { abandoned_ = true; }
  bool abandoned() const { return abandoned_; }

 private:
  const ConnectionWakerPtr waker_;
  std::mutex mu_;
  bool done_ = false;  // guarded by mu_
  HttpResponse res_;   // guarded by mu_
  std::atomic<bool> abandoned_{false};
};

class HttpHandler {
 public:
  virtual ~HttpHandler() = default;
  // The head is parsed and its body's framing decided; no body byte is read.
  // False, with `res` filled, refuses the request. A refused framing must be
  // refused: with its own status, or with one the handler answers first (a
  // 404 for a path that does not exist); the HTTP layer never reads a body it
  // cannot frame, whatever this returns.
  // `peer`: who the connection is from (its client certificate).
  virtual bool Admit(const HttpRequest& head, const PeerInfo& peer, const BodyFraming& framing,
                     HttpResponse& res) = 0;
  // The whole request is in. Either answers in `res` and returns null, or
  // returns the PendingAnswer it will complete from another thread (`waker`
  // is the connection's, for it); the request is then the handler's to take
  // from (its body moved out).
  virtual std::shared_ptr<PendingAnswer> Serve(HttpRequest& req, HttpResponse& res,
                                               const ConnectionWakerPtr& waker) = 0;
  // The HTTP layer refused a request itself, before any handler saw it
  // (a head over its limit, one that does not parse, no room to buffer it),
  // answering `status` for `why`. For the logs and the counts.
  virtual void Refused(int status, const std::string& why, const PeerInfo& peer) = 0;
};

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_NET_HTTP_HANDLER_H_
