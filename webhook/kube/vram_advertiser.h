// The VRAM advertiser (--advertise-vram): keeps each GPU node's status
// advertising its VRAM as the policy's vram resource (gpulint.io/vram), which
// the mutating webhook adds to GPU containers (incident 2). Without it on the
// node, such pods stay Pending ("Insufficient gpulint.io/vram"); a one-shot
// `gpulint node-patch` is lost when a node is added, replaced or relabelled.
//
// It reads what the node watch reads (NodeObserver: one watch, not a second)
// and PATCHes /api/v1/nodes/NAME/status on a thread of its own, so admission
// never waits on it. It writes exactly one key, the vram resource in
// status.capacity and status.allocatable, and only when the value there
// differs from AdvertisedVram (engine/cluster/gpu_memory.h): a pure function
// of the node's labels and the policy's model of what of a GPU pods get
// (memory.total less the driver's reserve), so replicas that run it together
// write the same value and the one that comes second changes nothing. A MIG
// slice is not advertised as VRAM: its memory is its own, and the mutation
// requests none for it. It never removes the key (a node
// without GPU labels may have been patched by hand, from nvidia-smi).
#ifndef GPULINT_WEBHOOK_KUBE_VRAM_ADVERTISER_H_
#define GPULINT_WEBHOOK_KUBE_VRAM_ADVERTISER_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "engine/base/value.h"
#include "engine/cluster/inventory.h"
#include "engine/mutate/node_vram.h"
#include "engine/quantity/quantity.h"
#include "kube/kube_client.h"
#include "webhook/kube/loop_control.h"
#include "webhook/kube/node_watch.h"
#include "webhook/support/log.h"
#include "webhook/support/metrics.h"

namespace gpulint {

class VramAdvertiser : public NodeObserver {
 public:
  // The policy's vram resource and GPU memory model now (an empty resource
  // while no policy is loaded).
  using TargetSource = std::function<VramTarget()>;
  struct Options {
    // After a failed PATCH: this node waits (doubling up to max), and after a
    // failure that is not the node's own (no answer, 5xx, 401, 403, 429) so
    // does every node, as the API server or the RBAC is at fault.
    std::chrono::milliseconds min_backoff{500};
    std::chrono::milliseconds max_backoff{30000};
    std::chrono::milliseconds policy_poll{1000};  // how soon a reloaded policy is followed
    int request_timeout_seconds = 30;
  };

  VramAdvertiser(KubeEndpoint endpoint, TargetSource target, LogSink log, Metrics* metrics,
                 Options options);
  ~VramAdvertiser() override;
  VramAdvertiser(const VramAdvertiser&) = delete;
  VramAdvertiser& operator=(const VramAdvertiser&) = delete;

  void Start();
  void Stop();  // idempotent; interrupts a PATCH in flight

  // NodeObserver, on the watch thread: records what is owed and wakes the
  // advertiser's thread; never touches the network.
  void NodeSeen(const Value& object, const NodeClass* node, const Error& error) override;
  void NodeGone(const std::string& name) override;
  void Listed(const std::set<std::string>& names) override;

  uint64_t patches() const { return patches_.load(); }  // sent, answered or not

 private:
  using Clock = std::chrono::steady_clock;
  struct Node {
    NodeVramFacts facts;
    std::string patch;  // owed; "" when the status already says the VRAM
    int failures = 0;   // in a row, for this node's backoff
    Clock::time_point not_before;
    uint64_t seen = 0;  // which observation (seen_) the facts are
  };
  struct Work {
    std::string name, patch, value, resource;
    uint64_t seen = 0;  // the node's observation the patch was planned from
  };

  void Run();
  void FollowPolicy();  // plans every node again when the resource or model changed
  // The first node whose patch is due; false (with *wake) when none is.
  bool TakeDue(Work* work, Clock::time_point* wake);
  void Send(const Work& work);
  void Done(const Work& work, const KubeResponse& response);
  void Plan(Node* node);  // under mu_
  void Publish();         // gauges; under mu_

  KubeEndpoint endpoint_;
  TargetSource target_source_;
  LogSink log_;
  Metrics* metrics_;
  Options options_;

  mutable std::mutex mu_;  // guards the members below
  std::map<std::string, Node> nodes_;
  VramTarget target_;
  Clock::time_point paused_until_;  // after a failure of the API server's
  int server_failures_ = 0;
  uint64_t seen_ = 0;  // observations of nodes, counted: which one a patch was planned from

  std::atomic<uint64_t> patches_{0};
  LoopControl loop_;  // last: stopped first
};

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_KUBE_VRAM_ADVERTISER_H_
