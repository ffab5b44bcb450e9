#include "webhook/net/http1_connection.h"

#include <utility>

namespace gpulint {
namespace {

constexpr const char* kText = "text/plain; charset=utf-8";
constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
const PeerInfo kNobody;  // for a connection that has no peer to tell of

// What a handler that threw gets answered with.
HttpResponse InternalError() {
  HttpResponse res;
  res.status = 500;
  res.SetContent("internal error\n", kText);
  return res;
}

}  // namespace

Http1Connection::Http1Connection(const Http1Limits& limits, HttpHandler& handler,
                                 const PeerInfo* peer, ConnectionWakerPtr waker)
    : limits_(limits), handler_(handler), peer_(peer), waker_(std::move(waker)) {}

// Nobody will send an answer still being worked out: its work may be skipped.
Http1Connection::~Http1Connection() {
  if (pending_) pending_->Abandon();
}

ConsumerStep Http1Connection::Consume(std::string_view plaintext, bool stopping,
                                      std::string* out) {
  switch (state_) {
    case State::kHead: return TakeHead(plaintext, stopping, out);
    case State::kBody: return TakeBody(plaintext, 0, stopping, out);
    case State::kPending: return TakeAnswer(stopping, out);
    case State::kClose: return {ConnectionNext::kClose};
    case State::kLinger: return {ConnectionNext::kLinger};
  }
  return {ConnectionNext::kClose};
}

ConsumerStep Http1Connection::TakeHead(std::string_view plaintext, bool stopping,
                                       std::string* out) {
  if (plaintext.empty()) return {ConnectionNext::kAwaitRequest};
  size_t end = FindHeadEnd(plaintext, &scanned_);
  if (end == 0 && plaintext.size() < limits_.max_header_bytes) return {ConnectionNext::kRead};
  req_ = HttpRequest();
  scanned_ = 0;
  if (end == 0 || end > limits_.max_header_bytes) {
    Refuse(431, "request line and headers are over the limit of " +
                    std::to_string(limits_.max_header_bytes) + " bytes",
           stopping, out);
    return {ConnectionNext::kWrite};
  }
  std::string why;
  if (int status = ParseHead(plaintext.substr(0, end), &req_, &why)) {
    Refuse(status, why, stopping, out);
    return {ConnectionNext::kWrite, end};
  }
  BodyFraming framing = DecideFraming(req_, limits_.max_body_bytes);
  HttpResponse res;
  bool admitted = false;
  try {
    admitted = handler_.Admit(req_, peer_ ? *peer_ : kNobody, framing, res);
  } catch (...) {
    res = InternalError();
  }
  if (admitted && framing.refused()) {
    Refuse(framing.status, framing.why, stopping, out);
    return {ConnectionNext::kWrite, end};
  }
  if (!admitted) {
    Answer(res, framing.leaves_bytes(), stopping, out);
    return {ConnectionNext::kWrite, end};
  }
  body_length_ = framing.length;
  state_ = State::kBody;
  if (body_length_ > plaintext.size() - end && req_.headers.Get("Expect") == "100-continue") {
    out->append(kContinue);
    return {ConnectionNext::kWrite, end};
  }
  return TakeBody(plaintext.substr(end), end, stopping, out);
}

// `consumed`: bytes of the plaintext before `rest` that were taken already.
ConsumerStep Http1Connection::TakeBody(std::string_view rest, size_t consumed, bool stopping,
                                       std::string* out) {
  if (rest.size() < body_length_)
    return {ConnectionNext::kRead, consumed, body_length_ - rest.size()};
  req_.body.assign(rest.data(), body_length_);
  HttpResponse res;
  try {
    pending_ = handler_.Serve(req_, res, waker_);
  } catch (...) {
    res = InternalError();
  }
  if (pending_) {
    state_ = State::kPending;
    return {ConnectionNext::kPending, consumed + body_length_};
  }
  Answer(res, false, stopping, out);
  return {ConnectionNext::kWrite, consumed + body_length_};
}

ConsumerStep Http1Connection::TakeAnswer(bool stopping, std::string* out) {
  HttpResponse res;
  if (!pending_->Take(&res)) return {ConnectionNext::kPending};  // woken early
  pending_.reset();
  Answer(res, false, stopping, out);
  return {ConnectionNext::kWrite};
}

ConsumerStep Http1Connection::OutOfBuffer(bool stopping, std::string* out) {
  if (state_ == State::kClose || state_ == State::kLinger) return {ConnectionNext::kClose};
  if (state_ == State::kHead) req_ = HttpRequest();  // its head was not read whole
  Refuse(503,
         "server busy: it holds as many bytes of requests as it may (--max-buffered-bytes); "
         "try again",
         stopping, out);
  return {ConnectionNext::kWrite};
}

// Refusals of the HTTP layer's own; the handler hears of each.
void Http1Connection::Refuse(int status, const std::string& why, bool stopping,
                             std::string* out) {
  handler_.Refused(status, why, peer_ ? *peer_ : kNobody);
  HttpResponse res;
  res.status = status;
  if (status == 503) res.headers.Set("Retry-After", "1");
  res.SetContent(why + "\n", kText);
  Answer(res, true, stopping, out);  // what follows the head cannot be trusted to frame
}

void Http1Connection::Answer(const HttpResponse& res, bool unread, bool stopping,
                             std::string* out) {
  ++served_;
  KeepAlive keep_alive;
  keep_alive.close =
      unread || WantsClose(req_) || served_ >= limits_.keep_alive_requests || stopping;
  keep_alive.timeout_s = static_cast<int>(limits_.keep_alive_timeout.count());
  keep_alive.max = limits_.keep_alive_requests;
  WriteResponse(req_, res, keep_alive, out);
  std::string().swap(req_.body);  // a 3 MiB body is not kept while idle
  if (unread) {
    state_ = State::kLinger;
  } else {
    state_ = keep_alive.close ? State::kClose : State::kHead;
  }
}

}  // namespace gpulint
