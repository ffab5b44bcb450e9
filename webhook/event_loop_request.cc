// What a request does once its bytes are in: the head parsed and admitted
// (or refused), the body awaited, the handler called, the answer queued.
#include <string>

#include "webhook/event_loop.h"
#include "webhook/http_message.h"

namespace gpulint {
namespace {

constexpr const char* kText = "text/plain; charset=utf-8";

// What a handler that threw gets answered with.
httplib::Response InternalError() {
  httplib::Response res;
  res.status = 500;
  res.set_content("internal error\n", kText);
  return res;
}

}  // namespace

EventLoop::Progress EventLoop::Parse(Connection& c) {
  if (c.phase == Phase::kHead) return ParseHeadOf(c);
  if (c.Unconsumed() < c.body_length) return Progress::kNeedBytes;
  c.req.body.assign(c.in, c.in_pos, c.body_length);
  c.in_pos += c.body_length;
  httplib::Response res;
  try {
    server_.handlers_.serve(c.req, res);
  } catch (...) {
    res = InternalError();
  }
  Respond(c, res, false);
  return Progress::kMoved;
}

EventLoop::Progress EventLoop::ParseHeadOf(Connection& c) {
  std::string_view buffered(c.in.data() + c.in_pos, c.Unconsumed());
  size_t end = FindHeadEnd(buffered, &c.scanned);
  if (end == 0 && buffered.size() < limits_.max_header_bytes) return Progress::kNeedBytes;
  if (end == 0 || end > limits_.max_header_bytes) {
    c.req = httplib::Request();
    Refuse(c, 431, "request line and headers are over the limit of " +
                       std::to_string(limits_.max_header_bytes) + " bytes");
    return Progress::kMoved;
  }
  c.req = httplib::Request();
  std::string why;
  int status = ParseHead(buffered.substr(0, end), &c.req, &why);
  c.in_pos += end;
  c.scanned = 0;
  if (status) {
    Refuse(c, status, why);
    return Progress::kMoved;
  }
  c.req.ssl = c.ssl;
  httplib::Response res;
  bool admitted = false;
  try {
    admitted = server_.handlers_.admit(c.req, res);
  } catch (...) {
    res = InternalError();
  }
  if (!admitted) {
    Respond(c, res, MayHaveBody(c.req));
    return Progress::kMoved;
  }
  AwaitBody(c);
  return Progress::kMoved;
}

// After an admitted head: the body to wait for, or a refusal of its framing.
void EventLoop::AwaitBody(Connection& c) {
  // The handlers check the framing headers; this is what the transport relies on.
  uint64_t length = 0;
  if (c.req.has_header("Transfer-Encoding")) {
    Refuse(c, 411, "Transfer-Encoding is not accepted: send the body with a Content-Length");
    return;
  }
  size_t lengths = c.req.get_header_value_count("Content-Length");
  if (lengths > 1 || (lengths == 1 && !ParseContentLength(c.req.get_header_value("Content-Length"),
                                                          &length))) {
    Refuse(c, 400, "Content-Length is not one number");
    return;
  }
  if (length > limits_.max_body_bytes) {
    Refuse(c, 413, "request body of " + std::to_string(length) + " bytes is over the limit of " +
                       std::to_string(limits_.max_body_bytes) + " bytes");
    return;
  }
  c.body_length = length;
  c.phase = Phase::kBody;
  if (length > c.Unconsumed() && c.req.get_header_value("Expect") == "100-continue") {
    c.out.append("HTTP/1.1 100 Continue\r\n\r\n");
    c.phase = Phase::kWrite;
    c.after_write = Phase::kBody;
    c.close_after_write = false;
  }
}

void EventLoop::Refuse(Connection& c, int status, const std::string& message) {
  httplib::Response res;
  res.status = status;
  res.set_content(message + "\n", kText);
  Respond(c, res, true);  // what follows the head cannot be trusted to frame
}

// Queues the answer. `unread`: bytes of this request may follow unread, so the
// connection closes after the answer (lingering, so the client reads it).
void EventLoop::Respond(Connection& c, const httplib::Response& res, bool unread) {
  ++c.served;
  KeepAlive keep_alive;
  keep_alive.close = unread || WantsClose(c.req) || c.served >= limits_.keep_alive_requests ||
                     server_.stopping();
  keep_alive.timeout_s = static_cast<int>(limits_.keep_alive_timeout.count());
  keep_alive.max = limits_.keep_alive_requests;
  WriteResponse(c.req, res, keep_alive, &c.out);
  std::string().swap(c.req.body);  // a 3 MiB body is not kept while idle
  c.close_after_write = keep_alive.close;
  c.linger = unread;
  c.after_write = Phase::kHead;
  c.phase = Phase::kWrite;
  c.deadline = now_ + limits_.write_timeout;
}

}  // namespace gpulint
