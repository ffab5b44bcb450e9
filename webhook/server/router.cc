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

Router::Router(const SnapshotStore& store, RouterSetup setup)
    : store_(store), setup_(std::move(setup)) {}

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
    setup_.metrics->CountRejection(path, status);
    if (status == 413) {
      setup_.refusals->Record(Refusal::kOversize, LogLine("warn", "refused")
                                                      .Add("path", path)
                                                      .Add("client", peer.address)
                                                      .Add("http_status", int64_t{status})
                                                      .Add("detail", message));
    }
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
  if (setup_.client_certificate && !peer.verified)
    return refuse(401, "a client certificate signed by the configured client CA is required");
  return true;
}

void Router::Refused(int status, const std::string& why, const PeerInfo& peer) {
  setup_.metrics->CountRejection("", status);
  Refusal reason;
  if (status == 413 || status == 414 || status == 431) {
    reason = Refusal::kOversize;
  } else if (status == 503) {
    reason = Refusal::kShed;
  } else {
    return;  // a malformed request: counted as a rejection, not a limit reached
  }
  setup_.refusals->Record(reason, LogLine("warn", "refused")
                                      .Add("client", peer.address)
                                      .Add("http_status", int64_t{status})
                                      .Add("detail", why));
}

// A review, its body and what it holds of the buffer budget, on its way to a
// worker.
struct Router::Job {
  Endpoint endpoint;
  Mode mode;
  std::string path;
  std::string client;
  std::string body;
  BudgetCharge held;
  std::shared_ptr<PendingAnswer> answer;  // null: judged where it was served
  std::chrono::steady_clock::time_point queued;
};

// Admit has checked the method and path.
std::shared_ptr<PendingAnswer> Router::Serve(HttpRequest& req, HttpResponse& res,
                                             const ConnectionWakerPtr& waker) {
  Endpoint endpoint;
  Mode mode;
  if (ReviewPath(req.path, &endpoint, &mode)) return QueueReview(endpoint, mode, req, res, waker);
  ServeProbe(req, res);
  return nullptr;
}

std::shared_ptr<PendingAnswer> Router::QueueReview(Endpoint endpoint, Mode mode, HttpRequest& req,
                                                   HttpResponse& res,
                                                   const ConnectionWakerPtr& waker) {
  auto job = std::make_shared<Job>();
  job->endpoint = endpoint;
  job->mode = mode;
  job->path = req.path;
  // The body moves from its connection, which lets go of its own bytes
  // right after, to the job: the budget counts it until it is judged.
  job->held = BudgetCharge(setup_.buffers, req.body.size());
  job->body = std::move(req.body);
  job->queued = std::chrono::steady_clock::now();
  if (!waker || !setup_.pool) {  // no loop to come back to: judged here
    res = Judge(*job);
    return nullptr;
  }
  job->answer = std::make_shared<PendingAnswer>(waker);
  std::shared_ptr<PendingAnswer> answer = job->answer;
  if (setup_.pool->TrySubmit([this, job] { job->answer->Complete(Judge(*job)); })) return answer;
  size_t limit = setup_.pool->max_in_flight();
  res.status = 503;
  res.headers.Set("Retry-After", "1");
  res.SetContent("server busy: " + std::to_string(limit) +
                     " reviews are waiting or being judged, its limit "
                     "(--max-reviews-in-flight); try again\n",
                 kText);
  setup_.refusals->Record(Refusal::kShed,
                          LogLine("warn", "refused")
                              .Add("path", req.path)
                              .Add("http_status", int64_t{503})
                              .Add("detail", "reviews in flight at their limit of " +
                                                 std::to_string(limit)));
  return nullptr;
}

// On a worker (or where it was served): never throws.
HttpResponse Router::Judge(Job& job) {
  HttpResponse res;
  auto start = std::chrono::steady_clock::now();
  double queued = std::chrono::duration<double>(start - job.queued).count();
  try {
    if (job.answer && job.answer->abandoned()) {
      // Its connection closed while it waited (a deadline passed, the client
      // left): nobody would read the answer.
      setup_.refusals->Record(Refusal::kShed,
                              LogLine("warn", "refused")
                                  .Add("path", job.path)
                                  .AddNumber("queued_ms", queued * 1000, 3)
                                  .Add("detail", "its connection closed before a worker took it"));
      return res;
    }
    ReviewResult result = HandleReview(job.endpoint, job.body, store_.Current(), job.mode,
                                       setup_.review);
    std::string().swap(job.body);  // let go before the answer is sent
    job.held.Release();
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    res.status = result.http_status;
    res.SetContent(std::move(result.body), result.content_type);
    LogDecision(job.endpoint, result, seconds, queued);
    if (result.log.over_budget) {
      setup_.refusals->Record(Refusal::kOverBudget, LogLine("warn", "refused")
                                                        .Add("path", job.path)
                                                        .Add("http_status", int64_t{400})
                                                        .Add("detail", result.log.reason));
    }
  } catch (const std::exception&) {
    res = HttpResponse();
    res.status = 500;
    res.SetContent("internal error\n", kText);
    LogLine("error", "exception in handler").Add("path", job.path).Emit(setup_.log);
  }
  return res;
}

void Router::ServeProbe(const HttpRequest& req, HttpResponse& res) {
  const std::string& path = req.path;
  try {
    if (path == "/healthz") {
      res.SetContent("ok\n", kText);
    } else if (path == "/readyz") {
      std::string why = setup_.status->NotReadyReason(), note;
      std::vector<std::string> notes = setup_.status->ReadinessNotes();
      if (!store_.policy_loaded()) notes.insert(notes.begin(), "not enforcing: no valid policy loaded");
      for (const std::string& n : notes) note += (note.empty() ? " (" : "; ") + n;
      if (!note.empty()) note += ")";
      res.status = why.empty() ? 200 : 503;
      res.SetContent(why.empty() ? "ok" + note + "\n" : "not ready: " + why + "\n", kText);
    } else if (path == "/metrics") {
      setup_.status->RefreshMetrics();
      res.SetContent(setup_.metrics->Render(), "text/plain; version=0.0.4; charset=utf-8");
    }
  } catch (const std::exception&) {
    res = HttpResponse();
    res.status = 500;
    res.SetContent("internal error\n", kText);
    LogLine("error", "exception in handler").Add("path", path).Emit(setup_.log);
  }
}

void Router::LogDecision(Endpoint endpoint, const ReviewResult& result, double seconds,
                         double queued_seconds) {
  const ReviewLog& log = result.log;
  Metrics& metrics = *setup_.metrics;
  metrics.CountRequest(EndpointName(endpoint), log.operation, log.kind, log.decision, seconds);
  for (size_t i = 0; i < log.finding_rules.size(); ++i)
    metrics.CountFinding(log.finding_rules[i], log.finding_severities[i]);
  std::vector<std::string> waived, refused;
  for (const ReviewLog::Waiver& w : log.waivers) {
    metrics.CountWaiver(w.rule, w.honoured);
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
  if (!log.existing.empty()) line.Add("existing", log.existing).Add("existing_in", log.existing_in);
  if (!log.reason.empty()) line.Add("reason", log.reason);
  line.Add("http_status", int64_t{result.http_status})
      .AddNumber("latency_ms", seconds * 1000, 3)
      .AddNumber("queued_ms", queued_seconds * 1000, 3)
      .Emit(setup_.log);
}

}  // namespace gpulint
