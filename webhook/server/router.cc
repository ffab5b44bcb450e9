#include "webhook/server/router.h"

#include <cctype>
#include <chrono>
#include <set>
#include <string_view>
#include <vector>

#include "webhook/net/http_message.h"

namespace gpulint {
namespace {

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
int CheckReviewHead(const HttpRequest& req, const BodyFraming& framing, std::string* why) {
  if (framing.refused()) {
    *why = framing.why;
    return framing.status;
  }
  for (size_t i = 0, n = req.headers.Count("Content-Encoding"); i < n; ++i) {
    std::string enc = Lower(req.headers.Get("Content-Encoding", i));
    if (!enc.empty() && enc != "identity") {
      *why = "Content-Encoding " + QuotedForMessage(enc) +
             " is not accepted: send the body uncompressed";
      return 415;
    }
  }
  std::string_view type = req.headers.Get("Content-Type");
  if (Lower(TrimBlanks(type.substr(0, type.find(';')))) != "application/json") {
    *why = "Content-Type must be application/json, not " + QuotedForMessage(type);
    return 415;
  }
  if (framing.length == 0) {
    *why = "request body is empty: expected an AdmissionReview";
    return 400;
  }
  return 0;
}

// "/validate", "/mutate", "/admit" (deny mode), and each with a mode: "/validate/warn".
bool ReviewPath(std::string_view path, Endpoint* endpoint, Mode* mode) {
  for (Endpoint e : kEndpoints) {
    std::string base = std::string("/") + EndpointName(e);
    if (path.substr(0, base.size()) != base) continue;
    std::string_view rest = path.substr(base.size());
    *endpoint = e;
    *mode = Mode::kDeny;
    if (rest.empty()) return true;
    return rest[0] == '/' && ParseEnforcement(rest.substr(1), mode);
  }
  return false;
}

}  // namespace

Router::Router(const SnapshotStore& store, ServerStatus& status, Metrics& metrics, LogSink log,
               bool client_certificate)
    : store_(store),
      status_(status),
      metrics_(metrics),
      log_(std::move(log)),
      client_certificate_(client_certificate) {}

// Refuses, before the body is read, what is not a review this server takes.
// Returns false with `res` filled when it refuses.
bool Router::Admit(const HttpRequest& req, const PeerInfo& peer, const BodyFraming& framing,
                   HttpResponse& res) {
  const std::string& path = req.path;
  Endpoint endpoint;
  Mode mode;
  bool review = ReviewPath(path, &endpoint, &mode);
  bool probe = path == "/healthz" || path == "/readyz" || path == "/metrics";
  // A refused body stays unread, and the transport closes its connection.
  auto refuse = [&](int status, std::string message) {
    res.status = status;
    res.SetContent(message + "\n", kText);
    metrics_.CountRejection(path, status);
    return false;
  };
  if (!review && !probe)
    return refuse(404,
                  "not found: the endpoints are /validate, /mutate and /admit (each also as "
                  "/audit, /warn and /deny below it), /healthz, /readyz and /metrics");
  std::string allowed = review ? "POST" : "GET";
  if (req.method != allowed && !(probe && req.method == "HEAD")) {
    res.headers.Set("Allow", review ? "POST" : "GET, HEAD");
    return refuse(405, "method " + QuotedForMessage(req.method) + " is not allowed on " + path +
                           ": use " + allowed);
  }
  if (probe) return framing.leaves_bytes() ? refuse(400, path + " takes no request body") : true;
  std::string why;
  if (int status = CheckReviewHead(req, framing, &why)) return refuse(status, why);
  if (client_certificate_ && !peer.verified)
    return refuse(401, "a client certificate signed by the configured client CA is required");
  return true;
}

// Admit has checked the method and path.
void Router::Serve(const HttpRequest& req, HttpResponse& res) {
  const std::string& path = req.path;
  Endpoint endpoint;
  Mode mode;
  try {
    if (ReviewPath(path, &endpoint, &mode)) {
      ServeReview(endpoint, mode, req, res);
    } else if (path == "/healthz") {
      res.SetContent("ok\n", kText);
    } else if (path == "/readyz") {
      std::string why = status_.NotReadyReason(), note;
      std::vector<std::string> notes = status_.ReadinessNotes();
      if (!store_.policy_loaded()) notes.insert(notes.begin(), "not enforcing: no valid policy loaded");
      for (const std::string& n : notes) note += (note.empty() ? " (" : "; ") + n;
      if (!note.empty()) note += ")";
      res.status = why.empty() ? 200 : 503;
      res.SetContent(why.empty() ? "ok" + note + "\n" : "not ready: " + why + "\n", kText);
    } else if (path == "/metrics") {
      status_.RefreshMetrics();
      res.SetContent(metrics_.Render(), "text/plain; version=0.0.4; charset=utf-8");
    }
  } catch (const std::exception&) {
    res = HttpResponse();
    res.status = 500;
    res.SetContent("internal error\n", kText);
    LogLine("error", "exception in handler").Add("path", path).Emit(log_);
  }
}

void Router::ServeReview(Endpoint endpoint, Mode mode, const HttpRequest& req, HttpResponse& res) {
  auto start = std::chrono::steady_clock::now();
  ReviewResult result = HandleReview(endpoint, req.body, store_.Current(), mode);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  res.status = result.http_status;
  res.SetContent(result.body, result.content_type);
  LogDecision(endpoint, result, seconds);
}

void Router::LogDecision(Endpoint endpoint, const ReviewResult& result, double seconds) {
  const ReviewLog& log = result.log;
  metrics_.CountRequest(EndpointName(endpoint), log.operation, log.kind, log.decision, seconds);
  for (size_t i = 0; i < log.finding_rules.size(); ++i)
    metrics_.CountFinding(log.finding_rules[i], log.finding_severities[i]);
  std::vector<std::string> waived, refused;
  for (const ReviewLog::Waiver& w : log.waivers) {
    metrics_.CountWaiver(w.rule, w.honoured);
    (w.honoured ? waived : refused).push_back(w.text);
  }
  LogLine line(result.http_status == 200 ? "info" : "warn", "admission");
  line.Add("endpoint", EndpointName(endpoint))
      .Add("uid", log.uid)
      .Add("kind", log.kind)
      .Add("namespace", log.namespace_name)
      .Add("name", log.name)
      .Add("operation", log.operation)
      .AddBool("dry_run", log.dry_run)
      .Add("mode", EnforcementName(log.mode))
      .Add("decision", log.decision)
      .Add("rules", Unique(log.finding_rules));
  if (log.patch_ops) line.Add("patch_ops", static_cast<int64_t>(log.patch_ops));
  if (!log.unapplied_patch.empty()) line.Add("would_patch", log.unapplied_patch);
  if (!waived.empty()) line.Add("waived", waived);
  if (!refused.empty()) line.Add("waivers_refused", refused);
  if (!log.reason.empty()) line.Add("reason", log.reason);
  line.Add("http_status", int64_t{result.http_status})
      .AddNumber("latency_ms", seconds * 1000, 3)
      .Emit(log_);
}

}  // namespace gpulint
