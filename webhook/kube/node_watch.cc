#include "webhook/kube/node_watch.h"

#include <algorithm>

#include "engine/json/json_parser.h"
#include "kube/list.h"

namespace gpulint {
namespace {

constexpr size_t kMaxListPageBytes = 64u << 20;
constexpr size_t kMaxEventBytes = 16u << 20;
constexpr size_t kMaxJsonDepth = 64;
constexpr const char* kSource = "api-server";

std::string NameOf(const Value& object) {
  const Value* meta = object.Find("metadata");
  return meta ? std::string(meta->StringAt("name")) : std::string();
}

std::string ResourceVersionOf(const Value& object) {
  const Value* meta = object.Find("metadata");
  return meta ? std::string(meta->StringAt("resourceVersion")) : std::string();
}

}  // namespace

NodeWatcher::NodeWatcher(KubeEndpoint endpoint, NodeSink* sink, LogSink log, Metrics* metrics,
                         Options options)
    : endpoint_(std::move(endpoint)),
      sink_(sink),
      log_(std::move(log)),
      metrics_(metrics),
      options_(options) {}

NodeWatcher::~NodeWatcher() { Stop(); }

void NodeWatcher::Start() {
  loop_.Start([this] { Run(); });
}

void NodeWatcher::Stop() { loop_.Stop(); }

std::unique_ptr<HttpsClient> NodeWatcher::Client(int read_timeout_seconds) {
  std::string error;
  auto client = MakeKubeClient(endpoint_, &error);
  if (!client) {
    LogLine("error", "cannot reach the API server").Add("error", error).Emit(log_);
    return nullptr;
  }
  client->set_read_timeout(read_timeout_seconds);
  return client;
}

void NodeWatcher::Run() {
  const Backoff backoff{options_.min_backoff, options_.max_backoff};
  int failures = 0;  // in a row
  auto fail = [&] { return loop_.SleepFor(backoff.After(++failures)); };
  bool need_list = true;
  while (!loop_.stopping()) {
    if (need_list) {
      if (!List()) {
        if (!fail()) break;
        continue;
      }
      need_list = false;
      failures = 0;
    }
    uint64_t before = events_;
    WatchEnd end = Watch();
    if (end == WatchEnd::kStopped) break;
    if (end == WatchEnd::kGone) {
      LogLine("info", "node watch expired (410 Gone), listing again").Emit(log_);
      need_list = true;
    } else if (end == WatchEnd::kFailed || events_ == before) {
      // Also when a watch ends with nothing in it: do not spin on the API server.
      if (!fail()) break;
    } else {
      failures = 0;
    }
  }
}

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

bool NodeWatcher::List() {
  std::vector<NodeClass> nodes;
  std::set<std::string> listed;  // the usable nodes and the skipped ones
  ListOptions options;
  options.page_size = options_.page_size;
  options.max_page_bytes = kMaxListPageBytes;
  options.on_client = [this](HttpsClient* client) { return loop_.Track(client); };
  ListResult result = ListPaged(endpoint_, "/api/v1/nodes", options, [&](Value& item) {
    NodeClass node;
    Error e;
    bool ok = NodeClassFromNode(item, kSource, &node, &e);
    listed.insert(NameOf(item));
    if (observer_) observer_->NodeSeen(item, ok ? &node : nullptr, e);
    NoteRead(NameOf(item), ok, e);
    if (ok) nodes.push_back(std::move(node));
  });
  if (!result.ok) {
    std::string why = result.status
                          ? "HTTP " + std::to_string(result.status) + ": " + result.message
                          : result.message;
    if (!loop_.stopping()) {
      LogLine("error", "node list failed").Add("error", why).Emit(log_);
      sync_.Failed("node list failed: " + why);
    }
    return false;
  }
  sync_.Listed();
  std::string version = result.resource_version;
  if (observer_) observer_->Listed(listed);
  std::erase_if(skipped_, [&](const auto& entry) { return !listed.count(entry.first); });
  size_t count = nodes.size();
  resource_version_ = version;
  lists_++;
  sink_->ReplaceNodes(std::move(nodes));
  LogLine("info", "nodes listed")
      .Add("nodes", static_cast<int64_t>(count))
      .Add("resource_version", resource_version_)
      .Emit(log_);
  return true;
}

NodeWatcher::WatchEnd NodeWatcher::Watch() {
  auto client = Client(options_.watch_timeout_seconds + 30);
  if (!client) return WatchEnd::kFailed;
  std::string path = endpoint_.base_path +
                     "/api/v1/nodes?watch=1&allowWatchBookmarks=true&timeoutSeconds=" +
                     std::to_string(options_.watch_timeout_seconds) +
                     "&resourceVersion=" + UrlEscape(resource_version_);
  if (!loop_.Track(client.get())) return WatchEnd::kStopped;
  int status = 0;
  std::string pending, error_body;
  WatchEnd end = WatchEnd::kClosed;
  HttpResult res = client->Send(
      "GET", path, {}, {},
      [&](int answered) {
        status = answered;
        if (status == 200) sync_.WatchOpened();
        return true;
      },
      [&](const char* data, size_t n) {
        if (loop_.stopping()) return false;
        if (status != 200) {
          error_body.append(data,
                            std::min<size_t>(n, 512 - std::min<size_t>(512, error_body.size())));
          return true;
        }
        pending.append(data, n);
        for (size_t nl; (nl = pending.find('\n')) != std::string::npos;) {
          std::string line = pending.substr(0, nl);
          pending.erase(0, nl + 1);
          if (!ApplyEvent(line, &end)) return false;
        }
        if (pending.size() > kMaxEventBytes) {
          end = WatchEnd::kFailed;
          return false;
        }
        return true;
      });
  loop_.Untrack();
  if (loop_.stopping()) return WatchEnd::kStopped;
  if (status == 410) {
    sync_.WatchEnded();
    return WatchEnd::kGone;
  }
  if (status != 200) {
    std::string why = status ? "HTTP " + std::to_string(status) + ": " + client->Scrub(error_body)
                             : res.error;
    LogLine("error", "node watch failed").Add("error", why).Emit(log_);
    sync_.Failed("node watch failed: " + why);
    return WatchEnd::kFailed;
  }
  if (end == WatchEnd::kFailed)
    sync_.Failed("node watch failed mid-stream (its log line says why)");
  else if (!res.error.empty())
    sync_.Failed("node watch broke: " + res.error);
  else
    sync_.WatchEnded();
  return end;
}

bool NodeWatcher::ApplyEvent(std::string_view line, WatchEnd* end) {
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return true;
  Value event;
  Error error;
  const Value* object = nullptr;
  if (ParseJson(line, kMaxJsonDepth, &event, &error)) object = event.Find("object");
  if (!object || !object->is_mapping()) {
    LogLine("error", "node watch sent an unreadable event")
        .Add("error", error.ToString())
        .Emit(log_);
    *end = WatchEnd::kFailed;
    return false;
  }
  std::string type(event.StringAt("type"));
  events_++;
  if (metrics_) metrics_->CountNodeWatchEvent(type);
  if (type == "ERROR") {
    // A Status object: 410 means our resourceVersion is too old to resume from.
    const Value* code = object->Find("code");
    *end = code && code->text() == "410" ? WatchEnd::kGone : WatchEnd::kFailed;
    if (*end == WatchEnd::kFailed)
      LogLine("error", "node watch error").Add("message", object->StringAt("message")).Emit(log_);
    return false;
  }
  std::string version = ResourceVersionOf(*object);
  if (!version.empty()) resource_version_ = version;
  if (type == "BOOKMARK") return true;
  std::string name = NameOf(*object);
  if (type == "DELETED") {
    skipped_.erase(name);
    if (observer_) observer_->NodeGone(name);
    sink_->RemoveNode(name);
  } else if (type == "ADDED" || type == "MODIFIED") {
    NodeClass node;
    Error e;
    bool ok = NodeClassFromNode(*object, kSource, &node, &e);
    if (observer_) observer_->NodeSeen(*object, ok ? &node : nullptr, e);
    NoteRead(name, ok, e);
    if (ok)
      sink_->PutNode(std::move(node));
    else
      sink_->RemoveNode(name);  // stale data would be worse than none
  }
  return true;
}

}  // namespace gpulint
