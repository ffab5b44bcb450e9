#include "webhook/server.h"

#include <sched.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <thread>

#include "common/cpus.h"
#include "webhook/http_message.h"

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

std::string Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

// A client's header value, shortened and quoted for a message.
std::string Shown(std::string_view value) {
  std::string v(value.substr(0, 64));
  for (char& c : v)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return "\"" + v + (value.size() > 64 ? "...\"" : "\"");
}

// Digits only, as RFC 9110 has it (strtoull would take "-1" and " 12").
bool ParseLength(const std::string& text, uint64_t* out) {
  if (text.empty() || text.size() > 19) return false;
  uint64_t n = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = n;
  return true;
}

std::vector<std::string> Unique(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const std::string& s : items)
    if (seen.insert(s).second) out.push_back(s);
  return out;
}

// Why a POST to /validate or /mutate is refused before its body is read:
// its status and message, or 0 when it may go on (*length set).
int CheckReviewHeaders(const Request& req, size_t max_body, uint64_t* length, std::string* why) {
  if (req.has_header("Transfer-Encoding")) {
    *why = "Transfer-Encoding " + Shown(req.get_header_value("Transfer-Encoding")) +
           " is not accepted: send the body with a Content-Length";
    return 411;
  }
  for (size_t i = 0, n = req.get_header_value_count("Content-Encoding"); i < n; ++i) {
    std::string enc = Lower(Trim(req.get_header_value("Content-Encoding", i)));
    if (!enc.empty() && enc != "identity") {
      *why = "Content-Encoding " + Shown(enc) + " is not accepted: send the body uncompressed";
      return 415;
    }
  }
  std::string type = req.get_header_value("Content-Type");
  if (Lower(Trim(type.substr(0, type.find(';')))) != "application/json") {
    *why = "Content-Type must be application/json, not " + Shown(type);
    return 415;
  }
  size_t lengths = req.get_header_value_count("Content-Length");
  if (lengths != 1) {
    *why = lengths ? "more than one Content-Length header" : "Content-Length is required";
    return lengths ? 400 : 411;
  }
  std::string text = req.get_header_value("Content-Length");
  if (!ParseLength(text, length)) {
    *why = "Content-Length " + Shown(text) + " is not a number";
    return 400;
  }
  if (*length > max_body) {
    *why = "request body of " + std::to_string(*length) + " bytes is over the limit of " +
           std::to_string(max_body) + " bytes";
    return 413;
  }
  if (*length == 0) {
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
  uint64_t p = 0;
  if (!ParseLength(text.substr(colon + 1), &p) || p > 65535) return false;
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

bool WebhookServer::ready() const {
  std::lock_guard<std::mutex> lock(state_mu_);
  return !stopping_ && policy_ && cert_loaded_;
}

Snapshot WebhookServer::CurrentSnapshot() const {
  std::lock_guard<std::mutex> lock(state_mu_);
  return snapshot_;
}

bool WebhookServer::Start(std::string* error) {
  TlsLimits limits;
  limits.max_body_bytes = options_.max_body_bytes;
  limits.request_read_timeout = std::chrono::seconds(options_.read_timeout_seconds);
  limits.write_timeout = std::chrono::seconds(options_.write_timeout_seconds);
  limits.keep_alive_timeout = std::chrono::seconds(options_.keep_alive_seconds);
  limits.keep_alive_requests = std::max<size_t>(1, options_.keep_alive_requests);
  HttpHandlers handlers;
  handlers.admit = [this](const Request& req, Response& res) { return Admit(req, res); };
  handlers.serve = [this](const Request& req, Response& res) { Serve(req, res); };
  http_ = std::make_unique<TlsHttpServer>(limits, std::move(handlers));

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

// Refuses, before the body is read, what is not a review this server takes.
// Returns false with `res` filled when it refuses.
bool WebhookServer::Admit(const Request& req, Response& res) {
  const std::string& path = req.path;
  bool review = path == "/validate" || path == "/mutate";
  bool probe = path == "/healthz" || path == "/readyz" || path == "/metrics";
  // A refused body stays unread, and the transport closes its connection.
  auto refuse = [&](int status, std::string message) {
    res.status = status;
    res.set_content(message + "\n", kText);
    metrics_.CountRejection(path, status);
    return false;
  };
  if (!review && !probe)
    return refuse(404, "not found: the endpoints are /validate, /mutate, /healthz, /readyz and "
                       "/metrics");
  std::string allowed = review ? "POST" : "GET";
  if (req.method != allowed && !(probe && req.method == "HEAD")) {
    res.set_header("Allow", review ? "POST" : "GET, HEAD");
    return refuse(405, "method " + Shown(req.method) + " is not allowed on " + path + ": use " +
                           allowed);
  }
  if (probe) return MayHaveBody(req) ? refuse(400, path + " takes no request body") : true;
  uint64_t length = 0;
  std::string why;
  if (int status = CheckReviewHeaders(req, options_.max_body_bytes, &length, &why))
    return refuse(status, why);
  if (!options_.tls.client_ca.empty() && !(req.ssl && SSL_get0_peer_certificate(req.ssl)))
    return refuse(401, "a client certificate signed by the configured client CA is required");
  return true;
}

// Admit has checked the method and path.
void WebhookServer::Serve(const Request& req, Response& res) {
  const std::string& path = req.path;
  try {
    if (path == "/validate" || path == "/mutate") {
      ServeReview(path == "/validate" ? Endpoint::kValidate : Endpoint::kMutate, req, res);
    } else if (path == "/healthz") {
      res.set_content("ok\n", kText);
    } else if (path == "/readyz") {
      std::string why;
      {
        std::lock_guard<std::mutex> lock(state_mu_);
        if (stopping_) why = "shutting down";
        else if (!policy_) why = "no valid policy loaded";
        else if (!cert_loaded_) why = "no valid certificate loaded";
      }
      res.status = why.empty() ? 200 : 503;
      res.set_content(why.empty() ? "ok\n" : "not ready: " + why + "\n", kText);
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

void WebhookServer::ServeReview(Endpoint endpoint, const Request& req, Response& res) {
  auto start = std::chrono::steady_clock::now();
  ReviewResult result = HandleReview(endpoint, req.body, CurrentSnapshot());
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
      .Add("decision", log.decision)
      .Add("rules", Unique(log.finding_rules));
  if (log.patch_ops) line.Add("patch_ops", static_cast<int64_t>(log.patch_ops));
  if (!log.reason.empty()) line.Add("reason", log.reason);
  line.Add("http_status", int64_t{result.http_status})
      .AddNumber("latency_ms", seconds * 1000, 3)
      .Emit(options_.log);
}

}  // namespace gpulint
