#include "webhook/server/server.h"

#include <sched.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>
#include <thread>

#include "common/cpus.h"
#include "webhook/net/http1_connection.h"
#include "webhook/net/http_message.h"

namespace gpulint {
namespace {

using httplib::Request;
using httplib::Response;

constexpr const char* kText = "text/plain; charset=utf-8";

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string> Unique(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const std::string& s : items)
    if (seen.insert(s).second) out.push_back(s);
  return out;
}

// Why a review's head is refused once its framing is known: its status and
// message, or 0 when the body may be read.
int CheckReviewHead(const Request& req, const BodyFraming& framing, std::string* why) {
  if (framing.refused()) {
    *why = framing.why;
    return framing.status;
  }
  for (size_t i = 0, n = req.get_header_value_count("Content-Encoding"); i < n; ++i) {
    std::string enc = Lower(req.get_header_value("Content-Encoding", i));
    if (!enc.empty() && enc != "identity") {
      *why = "Content-Encoding " + QuotedForMessage(enc) +
             " is not accepted: send the body uncompressed";
      return 415;
    }
  }
  std::string type = req.get_header_value("Content-Type");
  if (Lower(TrimBlanks(std::string_view(type).substr(0, type.find(';')))) != "application/json") {
    *why = "Content-Type must be application/json, not " + QuotedForMessage(type);
    return 415;
  }
  if (framing.length == 0) {
    *why = "request body is empty: expected an AdmissionReview";
    return 400;
  }
  return 0;
}

}  // namespace

bool ParseListenAddress(const std::string& text, std::string* host, int* port) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos) return false;
  std::string h = text.substr(0, colon);
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  std::string_view digits = std::string_view(text).substr(colon + 1);
  unsigned p = 0;  // from_chars takes digits only: no sign, no blanks
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), p);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || p > 65535)
    return false;
  *host = h.empty() ? "0.0.0.0" : h;
  *port = static_cast<int>(p);
  return true;
}

WebhookServer::WebhookServer(ServerOptions options)
    : options_(std::move(options)),
      policy_watch_(options_.policy_file),
      nodes_watch_(options_.nodes_file),
      cert_watch_(options_.tls.cert),
      key_watch_(options_.tls.key),
      client_ca_watch_(options_.tls.client_ca) {}

WebhookServer::~WebhookServer() { Shutdown(); }

// Ready without a valid policy: the webhook then answers every review with
// an allow and a warning, which is better than leaving the API server with no
// webhook to call (failurePolicy Fail would refuse every pod).
bool WebhookServer::ready() const {
  std::lock_guard<std::mutex> lock(state_mu_);
  return !stopping_ && cert_loaded_;
}

bool WebhookServer::can_answer() const {
  std::lock_guard<std::mutex> lock(state_mu_);
  return cert_loaded_ && !cert_expired_;
}

Snapshot WebhookServer::CurrentSnapshot() const {
  std::lock_guard<std::mutex> lock(state_mu_);
  return snapshot_;
}

bool WebhookServer::Start(std::string* error) {
  TlsTimeouts timeouts;
  timeouts.request = std::chrono::seconds(options_.read_timeout_seconds);
  timeouts.write = std::chrono::seconds(options_.write_timeout_seconds);
  timeouts.idle = std::chrono::seconds(options_.keep_alive_seconds);
  Http1Limits limits;
  limits.max_body_bytes = options_.max_body_bytes;
  limits.keep_alive_timeout = std::chrono::seconds(options_.keep_alive_seconds);
  limits.keep_alive_requests = std::max<size_t>(1, options_.keep_alive_requests);
  HttpHandler& handler = *this;
  http_ = std::make_unique<TlsServer>(timeouts, [&handler, limits](const PeerInfo* peer) {
    return std::make_unique<Http1Connection>(limits, handler, peer);
  });

  ReloadPolicy();
  ReloadCertificate();
  ReloadNodesFile();
  Publish();

  size_t threads = options_.workers > 0 ? static_cast<size_t>(options_.workers)
                                        : static_cast<size_t>(UsableCpus());
  port_ = http_->Bind(options_.host, options_.port, threads, error);
  if (port_ < 0) {
    std::lock_guard<std::mutex> lock(stop_mu_);
    stopped_ = true;
    return false;
  }
  listen_thread_ = std::thread([this] {
    http_->Serve();
    std::lock_guard<std::mutex> lock(stop_mu_);
    stopped_ = true;
    stop_cv_.notify_all();
  });
  reload_thread_ = std::thread([this] { ReloadLoop(); });
  LogLine("info", "listening")
      .Add("address", options_.host)
      .Add("port", int64_t{port_})
      .Add("threads", static_cast<int64_t>(threads))
      .AddBool("ready", ready())
      .Emit(options_.log);
  return true;
}

void WebhookServer::Shutdown() {
  if (!stopping_.exchange(true)) {
    metrics_.SetReady(false);
    if (http_) {
      LogLine("info", "shutting down")
          .Add("drain_ms", static_cast<int64_t>(options_.drain.count()))
          .Emit(options_.log);
      std::this_thread::sleep_for(options_.drain);
      http_->Stop();
    }
    std::lock_guard<std::mutex> lock(stop_mu_);
    stop_cv_.notify_all();
  }
  std::lock_guard<std::mutex> join_lock(join_mu_);
  if (listen_thread_.joinable()) listen_thread_.join();
  if (reload_thread_.joinable()) reload_thread_.join();
  if (http_ && !stop_logged_) {
    stop_logged_ = true;
    LogLine("info", "stopped").Emit(options_.log);
  }
}

void WebhookServer::Wait() {
  std::unique_lock<std::mutex> lock(stop_mu_);
  stop_cv_.wait(lock, [this] { return stopped_ || !http_; });
}

namespace {

// "/validate", "/mutate" (deny mode), and each with a mode: "/validate/warn".
bool ReviewPath(std::string_view path, Endpoint* endpoint, Mode* mode) {
  for (Endpoint e : {Endpoint::kValidate, Endpoint::kMutate}) {
    std::string base = std::string("/") + EndpointName(e);
    if (path.substr(0, base.size()) != base) continue;
    std::string_view rest = path.substr(base.size());
    *endpoint = e;
    *mode = Mode::kDeny;
    if (rest.empty()) return true;
    return rest[0] == '/' && ParseMode(rest.substr(1), mode);
  }
  return false;
}

}  // namespace

// Refuses, before the body is read, what is not a review this server takes.
// Returns false with `res` filled when it refuses.
bool WebhookServer::Admit(const Request& req, const PeerInfo& peer, const BodyFraming& framing,
                          Response& res) {
  const std::string& path = req.path;
  Endpoint endpoint;
  Mode mode;
  bool review = ReviewPath(path, &endpoint, &mode);
  bool probe = path == "/healthz" || path == "/readyz" || path == "/metrics";
  // A refused body stays unread, and the transport closes its connection.
  auto refuse = [&](int status, std::string message) {
    res.status = status;
    res.set_content(message + "\n", kText);
    metrics_.CountRejection(path, status);
    return false;
  };
  if (!review && !probe)
    return refuse(404, "not found: the endpoints are /validate and /mutate (each also as "
                       "/audit, /warn and /deny below it), /healthz, /readyz and /metrics");
  std::string allowed = review ? "POST" : "GET";
  if (req.method != allowed && !(probe && req.method == "HEAD")) {
    res.set_header("Allow", review ? "POST" : "GET, HEAD");
    return refuse(405, "method " + QuotedForMessage(req.method) + " is not allowed on " + path +
                           ": use " + allowed);
  }
  if (probe) return framing.leaves_bytes() ? refuse(400, path + " takes no request body") : true;
  std::string why;
  if (int status = CheckReviewHead(req, framing, &why)) return refuse(status, why);
  if (!options_.tls.client_ca.empty() && !peer.verified)
    return refuse(401, "a client certificate signed by the configured client CA is required");
  return true;
}

// Admit has checked the method and path.
void WebhookServer::Serve(const Request& req, Response& res) {
  const std::string& path = req.path;
  Endpoint endpoint;
  Mode mode;
  try {
    if (ReviewPath(path, &endpoint, &mode)) {
      ServeReview(endpoint, mode, req, res);
    } else if (path == "/healthz") {
      res.set_content("ok\n", kText);
    } else if (path == "/readyz") {
      std::string why, note;
      {
        std::lock_guard<std::mutex> lock(state_mu_);
        if (stopping_) why = "shutting down";
        else if (!cert_loaded_) why = "no valid certificate loaded";
        else if (!policy_) note = " (not enforcing: no valid policy loaded)";
      }
      res.status = why.empty() ? 200 : 503;
      res.set_content(why.empty() ? "ok" + note + "\n" : "not ready: " + why + "\n", kText);
    } else if (path == "/metrics") {
      metrics_.SetReady(ready());
      metrics_.SetConnections(http_->connections(), http_->handshake_failures());
      res.set_content(metrics_.Render(), "text/plain; version=0.0.4; charset=utf-8");
    }
  } catch (const std::exception&) {
    res = Response();
    res.status = 500;
    res.set_content("internal error\n", kText);
    LogLine("error", "exception in handler").Add("path", path).Emit(options_.log);
  }
}

void WebhookServer::ServeReview(Endpoint endpoint, Mode mode, const Request& req,
                                Response& res) {
  auto start = std::chrono::steady_clock::now();
  ReviewResult result = HandleReview(endpoint, req.body, CurrentSnapshot(), mode);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  res.status = result.http_status;
  res.set_content(result.body, result.content_type.c_str());
  LogDecision(endpoint, result, seconds);
}

void WebhookServer::LogDecision(Endpoint endpoint, const ReviewResult& result, double seconds) {
  const ReviewLog& log = result.log;
  metrics_.CountRequest(EndpointName(endpoint), log.operation, log.kind, log.decision, seconds);
  for (size_t i = 0; i < log.finding_rules.size(); ++i)
    metrics_.CountFinding(log.finding_rules[i], log.finding_severities[i]);
  LogLine line(result.http_status == 200 ? "info" : "warn", "admission");
  line.Add("endpoint", EndpointName(endpoint))
      .Add("uid", log.uid)
      .Add("kind", log.kind)
      .Add("namespace", log.namespace_name)
      .Add("name", log.name)
      .Add("operation", log.operation)
      .AddBool("dry_run", log.dry_run)
      .Add("mode", ModeName(log.mode))
      .Add("decision", log.decision)
      .Add("rules", Unique(log.finding_rules));
  if (log.patch_ops) line.Add("patch_ops", static_cast<int64_t>(log.patch_ops));
  if (!log.unapplied_patch.empty()) line.Add("would_patch", log.unapplied_patch);
  if (!log.reason.empty()) line.Add("reason", log.reason);
  line.Add("http_status", int64_t{result.http_status})
      .AddNumber("latency_ms", seconds * 1000, 3)
      .Emit(options_.log);
}

}  // namespace gpulint
