// What the HTTP/1.1 layer (http1_connection.h) calls for each request: the
// webhook's endpoints (Router, webhook/server/router.h). Both calls run on an
// event loop thread and must not block.
#ifndef GPULINT_WEBHOOK_NET_HTTP_HANDLER_H_
#define GPULINT_WEBHOOK_NET_HTTP_HANDLER_H_

#include "webhook/net/http_message.h"
#include "webhook/net/peer_info.h"

namespace gpulint {

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
  // The whole request is in.
  virtual void Serve(const HttpRequest& req, HttpResponse& res) = 0;
};

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_NET_HTTP_HANDLER_H_
