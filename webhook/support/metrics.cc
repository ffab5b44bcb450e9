#include "webhook/support/metrics.h"

#include <cstdio>
#include <ctime>

namespace gpulint {
namespace {

// Counters and gauges are integers; only sums and bucket bounds are not.
std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}
std::string Number(uint64_t v) { return std::to_string(v); }
std::string Number(int64_t v) { return std::to_string(v); }

// Label values escaped as the exposition format wants: \\, \" and \n.
std::string LabelText(const std::vector<std::pair<std::string, std::string>>& labels,
                      const std::string& extra = {}) {
  std::string out = "{";
  for (const auto& [name, value] : labels) {
    if (out.size() > 1) out += ',';
    out += name + "=\"";
    for (char c : value) {
      if (c == '\\') out += "\\\\";
      else if (c == '"') out += "\\\"";
      else if (c == '\n') out += "\\n";
      else out += c;
    }
    out += '"';
  }
  if (!extra.empty()) out += (out.size() > 1 ? "," : "") + extra;
  return out + "}";
}

void Header(std::string* out, const char* name, const char* type, const char* help) {
  *out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

}  // namespace

void Metrics::Add(Family* family, Labels labels, const Labels& overflow) {
  auto it = family->find(labels);
  if (it == family->end() && family->size() >= kMaxSeries) it = family->try_emplace(overflow).first;
  if (it == family->end()) it = family->emplace(std::move(labels), 0).first;
  it->second++;
}

void Metrics::CountRequest(const std::string& endpoint, const std::string& operation,
                           const std::string& kind, const std::string& decision, double seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  Add(&requests_,
      {{"endpoint", endpoint}, {"operation", operation}, {"kind", kind}, {"decision", decision}},
      {{"endpoint", endpoint}, {"operation", "other"}, {"kind", "other"}, {"decision", decision}});
  Histogram& h = latency_[endpoint];
  for (size_t i = 0; i < kBuckets.size(); ++i)
    if (seconds <= kBuckets[i]) h.buckets[i]++;
  h.count++;
  h.sum += seconds;
}

void Metrics::CountFinding(const std::string& rule, const std::string& severity) {
  std::lock_guard<std::mutex> lock(mu_);
  Add(&findings_, {{"rule", rule}, {"severity", severity}},
      {{"rule", "other"}, {"severity", severity}});
}

void Metrics::CountRejection(const std::string& path, int status) {
  std::lock_guard<std::mutex> lock(mu_);
  bool known = path == "/validate" || path == "/mutate" || path == "/healthz" ||
               path == "/readyz" || path == "/metrics";
  Add(&rejections_, {{"path", known ? path : "other"}, {"code", std::to_string(status)}}, {});
}

void Metrics::CountReload(const std::string& what, bool ok) {
  std::lock_guard<std::mutex> lock(mu_);
  Add(&reloads_, {{"what", what}, {"result", ok ? "ok" : "failed"}}, {});
}

void Metrics::CountNodeWatchEvent(const std::string& type) {
  std::lock_guard<std::mutex> lock(mu_);
  Add(&watch_events_, {{"type", type}}, {{"type", "other"}});
}

void Metrics::SetCertificateExpiry(int64_t unix_seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  cert_expiry_ = unix_seconds;
}

void Metrics::SetReady(bool ready) {
  std::lock_guard<std::mutex> lock(mu_);
  ready_ = ready;
}

void Metrics::SetPolicyLoaded(bool loaded) {
  std::lock_guard<std::mutex> lock(mu_);
  policy_loaded_ = loaded;
}

void Metrics::CountInventoryPublish(size_t nodes, size_t groups) {
  std::lock_guard<std::mutex> lock(mu_);
  inventory_nodes_ = nodes;
  inventory_groups_ = groups;
  ++inventory_publishes_;
}

void Metrics::SetConnections(uint64_t accepted, uint64_t handshake_failures) {
  std::lock_guard<std::mutex> lock(mu_);
  connections_ = accepted;
  handshake_failures_ = handshake_failures;
}

void Metrics::CountVramPatch(bool ok) {
  std::lock_guard<std::mutex> lock(mu_);
  (ok ? vram_patches_ok_ : vram_patches_failed_)++;
}

void Metrics::CountRegistrationApply(bool ok) {
  std::lock_guard<std::mutex> lock(mu_);
  (ok ? registration_applies_ok_ : registration_applies_failed_)++;
}

void Metrics::SetRegistered(bool registered) {
  std::lock_guard<std::mutex> lock(mu_);
  registrar_ = true;
  registered_ = registered;
}

void Metrics::SetVramNodes(size_t advertised, size_t pending, size_t skipped) {
  std::lock_guard<std::mutex> lock(mu_);
  vram_advertiser_ = true;
  vram_advertised_ = advertised;
  vram_pending_ = pending;
  vram_skipped_ = skipped;
}

void Metrics::CountWaiver(const std::string& rule, bool honoured) {
  std::lock_guard<std::mutex> lock(mu_);
  const char* h = honoured ? "true" : "false";
  Add(&waivers_, {{"rule", rule}, {"honoured", h}}, {{"rule", "other"}, {"honoured", h}});
}

void Metrics::SetWatchSync(const std::string& resource, double unsynced_seconds, bool stale) {
  std::lock_guard<std::mutex> lock(mu_);
  watch_sync_[resource] = {unsynced_seconds, stale};
}

std::string Metrics::Render() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out;
  auto family = [&out](const char* name, const char* help, const Family& f) {
    Header(&out, name, "counter", help);
    for (const auto& [labels, n] : f) out += name + LabelText(labels) + " " + Number(n) + "\n";
  };
  family("gpulint_webhook_requests_total",
         "Admission reviews answered, by endpoint, operation, kind and decision.", requests_);
  const char* hist = "gpulint_webhook_request_duration_seconds";
  Header(&out, hist, "histogram", "Time from a review's body being read to its answer.");
  for (const auto& [endpoint, h] : latency_) {
    std::vector<std::pair<std::string, std::string>> ep = {{"endpoint", endpoint}};
    for (size_t i = 0; i < kBuckets.size(); ++i)
      out += std::string(hist) + "_bucket" + LabelText(ep, "le=\"" + Number(kBuckets[i]) + "\"") +
             " " + Number(h.buckets[i]) + "\n";
    out += std::string(hist) + "_bucket" + LabelText(ep, "le=\"+Inf\"") + " " + Number(h.count) +
           "\n";
    out += std::string(hist) + "_sum" + LabelText(ep) + " " + Number(h.sum) + "\n";
    out += std::string(hist) + "_count" + LabelText(ep) + " " + Number(h.count) + "\n";
  }
  family("gpulint_webhook_findings_total", "Findings reported by /validate, by rule and severity.",
         findings_);
  family("gpulint_webhook_http_rejections_total",
         "HTTP requests refused before reaching an endpoint, by path and status code.",
         rejections_);
  Family reloads = reloads_;
  for (const char* what : {"policy", "certificate", "nodes"})
    for (const char* result : {"ok", "failed"}) reloads.try_emplace({{"what", what}, {"result", result}}, 0);
  family("gpulint_webhook_reloads_total",
         "Reloads of the policy, the certificate and the nodes file, by result.", reloads);
  family("gpulint_webhook_node_watch_events_total",
         "Node watch events from the API server, by type.", watch_events_);
  family("gpulint_webhook_waivers_total",
         "Ignore annotations that met a finding in a review, by rule and whether the policy "
         "honoured them (exemptions.waiveErrors).",
         waivers_);
  if (!watch_sync_.empty()) {
    Header(&out, "gpulint_webhook_watch_unsynced_seconds", "gauge",
           "Seconds since a list/watch last knew its view of the API server was current; 0 "
           "while its watch is open.");
    for (const auto& [resource, w] : watch_sync_)
      out += "gpulint_webhook_watch_unsynced_seconds{resource=\"" + resource + "\"} " +
             Number(w.unsynced_seconds) + "\n";
    Header(&out, "gpulint_webhook_watch_stale", "gauge",
           "1 when a list/watch has not synced for longer than --watch-stale-after: fit is "
           "judged against what it last read.");
    for (const auto& [resource, w] : watch_sync_)
      out += "gpulint_webhook_watch_stale{resource=\"" + resource + "\"} " +
             (w.stale ? "1" : "0") + "\n";
  }
  Header(&out, "gpulint_webhook_certificate_expiry_timestamp_seconds", "gauge",
         "When the serving certificate expires (unix time).");
  out += "gpulint_webhook_certificate_expiry_timestamp_seconds " + Number(cert_expiry_) + "\n";
  // Also as a flag, read from the clock when scraped, so that an alert needs
  // no arithmetic and a certificate that expires while loaded shows at once.
  Header(&out, "gpulint_webhook_certificate_expired", "gauge",
         "1 when the serving certificate is past its notAfter.");
  bool expired = cert_expiry_ > 0 && std::time(nullptr) >= cert_expiry_;
  out += std::string("gpulint_webhook_certificate_expired ") + (expired ? "1" : "0") + "\n";
  Header(&out, "gpulint_webhook_ready", "gauge", "1 when /readyz answers 200.");
  out += std::string("gpulint_webhook_ready ") + (ready_ ? "1" : "0") + "\n";
  Header(&out, "gpulint_webhook_policy_loaded", "gauge",
         "1 when a valid policy is loaded; 0 while none has: every review is then allowed, "
         "with a warning.");
  out += std::string("gpulint_webhook_policy_loaded ") + (policy_loaded_ ? "1" : "0") + "\n";
  Header(&out, "gpulint_webhook_inventory_nodes", "gauge",
         "Node classes in the inventory (policy classes plus real nodes).");
  out += "gpulint_webhook_inventory_nodes " + Number(uint64_t{inventory_nodes_}) + "\n";
  Header(&out, "gpulint_webhook_inventory_groups", "gauge",
         "Groups of alike nodes in the inventory: a pod is judged once per group.");
  out += "gpulint_webhook_inventory_groups " + Number(uint64_t{inventory_groups_}) + "\n";
  Header(&out, "gpulint_webhook_inventory_publishes_total", "counter",
         "Inventories published: on a reload, a node list, or a node change a rule can see "
         "(not on kubelet heartbeats).");
  out += "gpulint_webhook_inventory_publishes_total " + Number(inventory_publishes_) + "\n";
  Header(&out, "gpulint_webhook_connections_total", "counter", "TCP connections accepted.");
  out += "gpulint_webhook_connections_total " + Number(connections_) + "\n";
  Header(&out, "gpulint_webhook_tls_handshake_failures_total", "counter",
         "Connections dropped because the TLS handshake failed (plain HTTP, bad client certificate).");
  out += "gpulint_webhook_tls_handshake_failures_total " + Number(handshake_failures_) + "\n";
  if (vram_advertiser_) {
    Header(&out, "gpulint_webhook_vram_patches_total", "counter",
           "PATCHes of a node's status that advertise its VRAM, by result.");
    out += "gpulint_webhook_vram_patches_total{result=\"ok\"} " + Number(vram_patches_ok_) + "\n";
    out += "gpulint_webhook_vram_patches_total{result=\"failed\"} " + Number(vram_patches_failed_) +
           "\n";
    // skipped: no VRAM can be worked out for the node, so pods that ask for
    // it cannot land there; worth an alert.
    Header(&out, "gpulint_webhook_vram_nodes", "gauge",
           "Nodes by VRAM advertisement: advertised (a GPU node whose status holds its VRAM), "
           "pending (a patch is owed) or skipped (a Node that does not read, e.g. "
           "nvidia.com/gpu.memory=abc).");
    for (auto [state, n] :
         {std::pair{"advertised", vram_advertised_}, std::pair{"pending", vram_pending_},
          std::pair{"skipped", vram_skipped_}})
      out += std::string("gpulint_webhook_vram_nodes{state=\"") + state + "\"} " +
             Number(uint64_t{n}) + "\n";
  }
  if (registrar_) {
    Header(&out, "gpulint_webhook_registered", "gauge",
           "1 while this webhook keeps its configurations registered with the API server (it "
           "can answer); 0 while it keeps them withdrawn (no valid certificate).");
    out += std::string("gpulint_webhook_registered ") + (registered_ ? "1" : "0") + "\n";
    Header(&out, "gpulint_webhook_registration_applies_total", "counter",
           "Server-side applies of a webhook configuration, by result.");
    out += "gpulint_webhook_registration_applies_total{result=\"ok\"} " +
           Number(registration_applies_ok_) + "\n";
    out += "gpulint_webhook_registration_applies_total{result=\"failed\"} " +
           Number(registration_applies_failed_) + "\n";
  }
  return out;
}

}  // namespace gpulint
