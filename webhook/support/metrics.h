// The webhook's Prometheus metrics, rendered in the text exposition format
// (version 0.0.4). Thread-safe; label sets are capped so that request fields
// chosen by a client cannot grow memory without end.
#ifndef GPULINT_WEBHOOK_SUPPORT_METRICS_H_
#define GPULINT_WEBHOOK_SUPPORT_METRICS_H_

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace gpulint {

class Metrics {
 public:
  // Label sets kept per counter family; further ones are counted as "other".
  static constexpr size_t kMaxSeries = 1000;

  void CountRequest(const std::string& endpoint, const std::string& operation,
                    const std::string& kind, const std::string& decision, double seconds);
  void CountFinding(const std::string& rule, const std::string& severity);
  // An HTTP request refused before it reached an endpoint (400, 404, 405, 411, 413, 415, ...).
  void CountRejection(const std::string& path, int status);
  // what: "policy", "certificate", "nodes".
  void CountReload(const std::string& what, bool ok);
  void CountNodeWatchEvent(const std::string& type);
  void SetCertificateExpiry(int64_t unix_seconds);
  void SetReady(bool ready);
  // Whether a valid policy is loaded: without one, every review is allowed.
  void SetPolicyLoaded(bool loaded);
  // A new inventory published: its nodes and groups of alike nodes.
  void CountInventoryPublish(size_t nodes, size_t groups);
  void SetConnections(uint64_t accepted, uint64_t handshake_failures);
  // The VRAM advertiser (--advertise-vram): each PATCH of a node's status, and
  // the GPU nodes in each state now. Its families are rendered only once
  // SetVramNodes has been called, so a webhook without it shows none.
  void CountVramPatch(bool ok);
  // Self-registration (--register): each apply of a webhook configuration,
  // and whether they are registered now. Rendered once SetRegistered has
  // been called.
  void CountRegistrationApply(bool ok);
  void SetRegistered(bool registered);
  void SetVramNodes(size_t advertised, size_t pending, size_t skipped);
  // An ignore annotation that met a finding of `rule` in a review: honoured
  // (the finding silenced) or not (policy exemptions.waiveErrors).
  void CountWaiver(const std::string& rule, bool honoured);
  // A list/watch of `resource` (nodes): seconds since it last knew its view
  // was current (0 while its watch is open), and whether that passed the
  // staleness limit. Rendered once set for some resource.
  void SetWatchSync(const std::string& resource, double unsynced_seconds, bool stale);

  std::string Render() const;

 private:
  using Labels = std::vector<std::pair<std::string, std::string>>;
  using Family = std::map<Labels, uint64_t>;
  static constexpr std::array<double, 12> kBuckets = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                                      0.05,   0.1,   0.25,   0.5,   1,    2.5};
  struct Histogram {
    std::array<uint64_t, kBuckets.size()> buckets{};
    uint64_t count = 0;
    double sum = 0;
  };
  void Add(Family* family, Labels labels, const Labels& overflow);

  mutable std::mutex mu_;
  Family requests_, findings_, rejections_, reloads_, watch_events_, waivers_;
  struct WatchSync {
    double unsynced_seconds = 0;
    bool stale = false;
  };
  std::map<std::string, WatchSync> watch_sync_;  // by resource
  std::map<std::string, Histogram> latency_;  // by endpoint
  int64_t cert_expiry_ = 0;
  bool ready_ = false;
  bool policy_loaded_ = false;
  size_t inventory_nodes_ = 0, inventory_groups_ = 0;
  uint64_t inventory_publishes_ = 0;
  uint64_t connections_ = 0;
  uint64_t handshake_failures_ = 0;
  bool vram_advertiser_ = false;
  uint64_t vram_patches_ok_ = 0, vram_patches_failed_ = 0;
  size_t vram_advertised_ = 0, vram_pending_ = 0, vram_skipped_ = 0;
  bool registrar_ = false, registered_ = false;
  uint64_t registration_applies_ok_ = 0, registration_applies_failed_ = 0;
};

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_SUPPORT_METRICS_H_
