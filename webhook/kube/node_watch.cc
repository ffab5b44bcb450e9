#include "webhook/kube/node_watch.h"

namespace gpulint {
namespace {

constexpr const char* kSource = "api-server";

std::string NameOf(const Value& object) {
  const Value* meta = object.Find("metadata");
  return meta ? std::string(meta->StringAt("name")) : std::string();
}

}  // namespace

NodeWatcher::NodeWatcher(KubeEndpoint endpoint, NodeSink* sink, LogSink log, Metrics* metrics,
                         Options options)
    : sink_(sink),
      log_(log),
      loop_(std::move(endpoint), "node", "/api/v1/nodes", this, &sync_, std::move(log),
            metrics ? std::function<void(const std::string&)>(
                          [metrics](const std::string& type) { metrics->CountNodeWatchEvent(type); })
                    : nullptr,
            options) {}

NodeWatcher::~NodeWatcher() { Stop(); }

void NodeWatcher::Start() { loop_.Start(); }

void NodeWatcher::Stop() { loop_.Stop(); }

void NodeWatcher::NoteRead(const std::string& name, bool ok, const Error& error) {
  if (ok) {
    skipped_.erase(name);
    return;
  }
  std::string problem = error.ToString();
  auto [it, added] = skipped_.try_emplace(name, problem);
  if (!added && it->second == problem) return;
  it->second = problem;
  LogLine("warn", "node skipped").Add("node", name).Add("error", problem).Emit(log_);
}

void NodeWatcher::ListStart() {
  listed_nodes_.clear();
  listed_.clear();
}

void NodeWatcher::ListItem(Value& item) {
  NodeClass node;
  Error e;
  bool ok = NodeClassFromNode(item, kSource, &node, &e);
  listed_.insert(NameOf(item));
  if (observer_) observer_->NodeSeen(item, ok ? &node : nullptr, e);
  NoteRead(NameOf(item), ok, e);
  if (ok) listed_nodes_.push_back(std::move(node));
}

void NodeWatcher::ListEnd(const std::string& resource_version) {
  if (observer_) observer_->Listed(listed_);
  std::erase_if(skipped_, [&](const auto& entry) { return !listed_.count(entry.first); });
  size_t count = listed_nodes_.size();
  sink_->ReplaceNodes(std::move(listed_nodes_));
  listed_nodes_.clear();
  LogLine("info", "nodes listed")
      .Add("nodes", static_cast<int64_t>(count))
      .Add("resource_version", resource_version)
      .Emit(log_);
}

void NodeWatcher::Event(std::string_view type, const Value& object) {
  std::string name = NameOf(object);
  if (type == "DELETED") {
    skipped_.erase(name);
    if (observer_) observer_->NodeGone(name);
    sink_->RemoveNode(name);
    return;
  }
  NodeClass node;
  Error e;
  bool ok = NodeClassFromNode(object, kSource, &node, &e);
  if (observer_) observer_->NodeSeen(object, ok ? &node : nullptr, e);
  NoteRead(name, ok, e);
  if (ok)
    sink_->PutNode(std::move(node));
  else
    sink_->RemoveNode(name);  // stale data would be worse than none
}

}  // namespace gpulint
