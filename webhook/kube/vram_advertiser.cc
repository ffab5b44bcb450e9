#include "webhook/kube/vram_advertiser.h"

#include <algorithm>
#include <utility>

namespace gpulint {
namespace {

using ResourceMap = std::optional<std::map<std::string, std::string>>;

// A failure of this node's own (it is gone, or changed under the patch); any
// other (no answer, 5xx, 401, 403, 429) is the API server's or the RBAC's, and
// would fail for every node alike.
bool NodeFault(int status) {
  return status == 400 || status == 404 || status == 409 || status == 422;
}

}  // namespace

VramAdvertiser::VramAdvertiser(KubeEndpoint endpoint, TargetSource target, LogSink log,
                               Metrics* metrics, Options options)
    : endpoint_(std::move(endpoint)),
      target_source_(std::move(target)),
      log_(std::move(log)),
      metrics_(metrics),
      options_(options) {}

VramAdvertiser::~VramAdvertiser() { Stop(); }

void VramAdvertiser::Start() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    target_ = target_source_ ? target_source_() : VramTarget{};
    Publish();
  }
  LogLine("info", "advertising node VRAM")
      .Add("resource", target_.resource)
      .Add("driver_reserved_per_gpu", target_.model.driver_reserved.Canonical())
      .Emit(log_);
  loop_.Start([this] { Run(); });
}

void VramAdvertiser::Stop() { loop_.Stop(); }

void VramAdvertiser::NodeSeen(const Value& object, const NodeClass* node, const Error& error) {
  NodeVramFacts facts = ReadNodeVramFacts(object, node, error);
  if (facts.name.empty()) return;
  std::lock_guard<std::mutex> lock(mu_);
  Node& n = nodes_[facts.name];
  // Said once per problem, not on every status update of the node.
  if (!facts.problem.empty() && facts.problem != n.facts.problem)
    LogLine("warn", "node VRAM not advertised: the node does not read")
        .Add("node", facts.name)
        .Add("error", facts.problem)
        .Emit(log_);
  // Its backoff stays: a node that keeps failing must not be retried on
  // every update of its status.
  n.facts = std::move(facts);
  n.seen = ++seen_;
  Plan(&n);
  Publish();
  loop_.Wake();
}

void VramAdvertiser::NodeGone(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  nodes_.erase(name);
  Publish();
}

void VramAdvertiser::Listed(const std::set<std::string>& names) {
  std::lock_guard<std::mutex> lock(mu_);
  std::erase_if(nodes_, [&](const auto& entry) { return !names.count(entry.first); });
  Publish();
}

void VramAdvertiser::Plan(Node* node) { node->patch = VramPatch(node->facts, target_); }

void VramAdvertiser::Publish() {
  size_t advertised = 0, pending = 0, skipped = 0;
  for (const auto& [name, node] : nodes_) {
    if (!node.facts.problem.empty())
      ++skipped;
    else if (!node.patch.empty())
      ++pending;
    else if (node.facts.Vram(target_.model) && !target_.resource.empty())
      ++advertised;
  }
  if (metrics_) metrics_->SetVramNodes(advertised, pending, skipped);
}

void VramAdvertiser::Run() {
  auto next_poll = Clock::now() + options_.policy_poll;
  while (!loop_.stopping()) {
    if (Clock::now() >= next_poll) {
      FollowPolicy();
      next_poll = Clock::now() + options_.policy_poll;
    }
    Work work;
    Clock::time_point wake = next_poll;
    if (TakeDue(&work, &wake)) {
      Send(work);
    } else if (!loop_.SleepUntil(wake)) {
      break;
    }
  }
}

void VramAdvertiser::FollowPolicy() {
  // Asked outside mu_: the server takes its own lock to answer.
  VramTarget target = target_source_ ? target_source_() : VramTarget{};
  std::lock_guard<std::mutex> lock(mu_);
  if (target == target_) return;
  // The old resource stays on the nodes: it may be another tool's now.
  if (target.resource != target_.resource)
    LogLine("info", "advertising node VRAM under a new name")
        .Add("resource", target.resource)
        .Add("was", target_.resource)
        .Emit(log_);
  else
    LogLine("info", "advertising node VRAM under a new driver reserve")
        .Add("resource", target.resource)
        .Add("driver_reserved_per_gpu", target.model.driver_reserved.Canonical())
        .Add("was", target_.model.driver_reserved.Canonical())
        .Emit(log_);
  target_ = target;
  for (auto& [name, node] : nodes_) Plan(&node);
  Publish();
}

bool VramAdvertiser::TakeDue(Work* work, Clock::time_point* wake) {
  std::lock_guard<std::mutex> lock(mu_);
  Clock::time_point now = Clock::now();
  if (now < paused_until_) {
    *wake = std::min(*wake, paused_until_);
    return false;
  }
  for (const auto& [name, node] : nodes_) {
    if (node.patch.empty()) continue;
    if (node.not_before > now) {
      *wake = std::min(*wake, node.not_before);
      continue;
    }
    *work = Work{name, node.patch, node.facts.Vram(target_.model)->Canonical(), target_.resource,
                 node.seen};
    return true;
  }
  return false;
}

void VramAdvertiser::Send(const Work& work) {
  std::string error;
  std::unique_ptr<HttpsClient> client = MakeKubeClient(endpoint_, &error);
  KubeResponse response;
  if (!client) {
    response.error = error;
  } else {
    client->set_read_timeout(options_.request_timeout_seconds);
    client->set_write_timeout(options_.request_timeout_seconds);
    if (!loop_.Track(client.get())) return;
    patches_++;
    // The field manager names who owns the key on the node (managedFields),
    // rather than the HTTP client's User-Agent.
    response = JsonPatch(*client,
                         endpoint_.base_path + "/api/v1/nodes/" + UrlEscape(work.name) +
                             "/status?fieldManager=gpulint-webhook",
                         work.patch);
    loop_.Untrack();
  }
  if (loop_.stopping()) return;
  Done(work, response);
}

void VramAdvertiser::Done(const Work& work, const KubeResponse& response) {
  if (metrics_) metrics_->CountVramPatch(response.ok());
  std::lock_guard<std::mutex> lock(mu_);
  auto it = nodes_.find(work.name);
  Node* node = it == nodes_.end() ? nullptr : &it->second;
  // The watch brought the node again while the patch was out: what it said is
  // newer than what the patch wrote, and may be a node made again by that
  // name, without the resource, which must be patched again.
  bool current = node && node->seen == work.seen;
  if (response.ok()) {
    server_failures_ = 0;
    if (node) node->failures = 0;
    if (current) {
      // What the status says now, until the watch brings the node back: a
      // policy reload plans from it.
      NodeVramFacts& f = node->facts;
      f.has_status = true;
      for (ResourceMap* list : {&f.capacity, &f.allocatable}) {
        if (!*list) list->emplace();
        (**list)[work.resource] = work.value;
      }
      Plan(node);  // nothing, unless the labels or the policy moved on meanwhile
    }
    LogLine("info", "node VRAM advertised")
        .Add("node", work.name)
        .Add("resource", work.resource)
        .Add("value", work.value)
        .Emit(log_);
    Publish();
    return;
  }
  Clock::time_point now = Clock::now();
  const Backoff backoff{options_.min_backoff, options_.max_backoff};
  auto retry = options_.min_backoff;
  if (node) {
    retry = backoff.After(++node->failures);
    node->not_before = now + retry;
    // Gone: the watch says so, and tells of a node made again by that name.
    if (response.status == 404 && current) node->patch.clear();
  }
  if (!NodeFault(response.status)) {
    retry = backoff.After(++server_failures_);
    paused_until_ = now + retry;
  }
  LogLine line("error", "node VRAM advertisement failed");
  line.Add("node", work.name).Add("error", response.Describe());
  if (node && !node->patch.empty()) line.Add("retry_ms", static_cast<int64_t>(retry.count()));
  line.Emit(log_);
  Publish();
}

}  // namespace gpulint
