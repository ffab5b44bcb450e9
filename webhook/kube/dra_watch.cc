#include "webhook/kube/dra_watch.h"

#include "kube/discovery.h"

namespace gpulint {
namespace {

constexpr const char* kGroup = "resource.k8s.io";
constexpr const char* kSource = "api-server";

std::string NameOf(const Value& object) {
  const Value* meta = object.Find("metadata");
  return meta ? std::string(meta->StringAt("name")) : std::string();
}

// The node whose devices a slice publishes; "" when it may be any.
std::string NodeOf(const ResourceSliceInfo& s) {
  return s.per_device_nodes ? std::string() : s.nodes.node_name;
}

}  // namespace

// DeviceClasses or ResourceSlices, read into the watcher's maps. Objects the
// API server gives are valid; one that does not read all the same (a field
// of a later version gpulint misreads) makes the inventory unknown rather
// than wrong: no DRA objects are published until it reads or goes.
class DraWatcher::Kind : public ListWatchHandler {
 public:
  Kind(DraWatcher* owner, bool slices) : owner_(owner), slices_(slices) {}

  void ListStart() override {
    classes_.clear();
    slices_read_.clear();
    unreadable_.clear();
  }

  void ListItem(Value& item) override { Read(item, &classes_, &slices_read_); }

  void ListEnd(const std::string& resource_version) override {
    size_t count = slices_ ? slices_read_.size() : classes_.size();
    {
      std::lock_guard<std::mutex> lock(owner_->mu_);
      if (slices_) {
        owner_->slices_ = std::move(slices_read_);
        owner_->slices_listed_ = true;
      } else {
        owner_->classes_ = std::move(classes_);
        owner_->classes_listed_ = true;
      }
      owner_->unreadable_[slices_] = unreadable_;
    }
    LogLine("info", slices_ ? "resource slices listed" : "device classes listed")
        .Add("objects", static_cast<int64_t>(count))
        .Add("resource_version", resource_version)
        .Emit(owner_->log_);
    classes_.clear();
    slices_read_.clear();
    owner_->Changed("");
  }

  void Event(std::string_view type, const Value& object) override {
    std::string name = NameOf(object);
    std::vector<std::string> nodes;  // whose devices changed; "" for any node
    {
      std::lock_guard<std::mutex> lock(owner_->mu_);
      if (slices_) {
        auto note = [&](const ResourceSliceInfo& s) { nodes.push_back(NodeOf(s)); };
        if (auto old = owner_->slices_.find(name); old != owner_->slices_.end()) note(*old->second);
        owner_->slices_.erase(name);
        if (type != "DELETED" && Read(object, nullptr, &owner_->slices_))
          note(*owner_->slices_.at(name));
      } else {
        nodes.push_back("");  // a class changes what every device is
        owner_->classes_.erase(name);
        if (type != "DELETED") Read(object, &owner_->classes_, nullptr);
      }
      owner_->unreadable_[slices_] = unreadable_;
    }
    for (const std::string& node : nodes) owner_->Changed(node);
  }

 private:
  // Into `classes` or `slices`, by name; false when it does not read.
  bool Read(const Value& object, std::map<std::string, DeviceClassInfo>* classes,
            std::map<std::string, std::shared_ptr<const ResourceSliceInfo>>* slices) {
    std::string name = NameOf(object);
    Error error;
    bool ok = false;
    if (slices_) {
      ResourceSliceInfo s;
      ok = ReadResourceSlice(object, kSource, &s, &error);
      if (ok) (*slices)[name] = std::make_shared<const ResourceSliceInfo>(std::move(s));
    } else {
      DeviceClassInfo c;
      ok = ReadDeviceClass(object, kSource, &c, &error);
      if (ok) (*classes)[name] = std::move(c);
    }
    if (ok) {
      unreadable_.erase(name);
    } else if (unreadable_.insert(name).second) {
      LogLine("warn", slices_ ? "resource slice does not read: DRA objects are not used until "
                                "it does"
                              : "device class does not read: DRA objects are not used until it does")
          .Add("name", name)
          .Add("error", error.ToString())
          .Emit(owner_->log_);
    }
    return ok;
  }

  DraWatcher* owner_;
  const bool slices_;
  // The list being read, and the objects that do not read.
  std::map<std::string, DeviceClassInfo> classes_;
  std::map<std::string, std::shared_ptr<const ResourceSliceInfo>> slices_read_;
  std::set<std::string> unreadable_;
};

DraWatcher::DraWatcher(KubeEndpoint endpoint, DraSink* sink, LogSink log, Options options)
    : endpoint_(std::move(endpoint)), sink_(sink), log_(std::move(log)), options_(options) {}

DraWatcher::~DraWatcher() { Stop(); }

void DraWatcher::Start() {
  loop_.Start([this] { Run(); });
}

void DraWatcher::Stop() {
  loop_.Stop();  // first: it starts the watches
  if (class_watch_) class_watch_->Stop();
  if (slice_watch_) slice_watch_->Stop();
}

void DraWatcher::Changed(const std::string& node) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    dirty_ = true;
    if (node.empty())
      all_changed_ = true;
    else
      changed_.insert(node);
  }
  loop_.Wake();
}

void DraWatcher::Run() {
  const Backoff backoff{options_.watch.min_backoff, options_.watch.max_backoff};
  const auto decide_by = LoopControl::Clock::now() + options_.decide_within;
  bool told = false;  // the sink has heard from us
  // The sink waits for a first word: unknown, when none comes in time.
  auto tell_unknown = [&] {
    if (told || LoopControl::Clock::now() < decide_by) return;
    told = true;
    LogLine("warn", "DRA objects not read in time: extended resources no node lists are only "
                    "warnings until they are")
        .Emit(log_);
    sink_->SetDra(nullptr, nullptr);
  };
  int failures = 0;
  std::string last_problem;
  const ApiResource* classes = nullptr;
  const ApiResource* slices = nullptr;
  Discovery discovery;
  while (!loop_.stopping()) {
    discovery = Discovery();
    std::string problem;
    if (Discover(endpoint_, {kGroup}, &discovery, &problem)) {
      for (const std::string& p : discovery.problems)
        if (p.find(kGroup) != std::string::npos) problem = p;
    }
    if (problem.empty()) break;
    if (problem != last_problem)
      LogLine("error", "cannot discover resource.k8s.io").Add("error", problem).Emit(log_);
    last_problem = problem;
    for (WatchSync* sync : {&class_sync_, &slice_sync_})
      sync->Failed("cannot discover resource.k8s.io: " + problem);
    tell_unknown();
    if (!loop_.SleepFor(backoff.After(++failures))) return;
  }
  if (loop_.stopping()) return;
  classes = discovery.Find(kGroup, "DeviceClass");
  slices = discovery.Find(kGroup, "ResourceSlice");
  if (!classes || !slices) {
    LogLine("info",
            "resource.k8s.io is not served: no DRA devices, and none of the inventory's extended "
            "resources is DRA's")
        .Emit(log_);
    class_sync_.NotServed();
    slice_sync_.NotServed();
    sink_->SetDra(DraInventory::Make({}), nullptr);
    return;
  }
  LogLine("info", "watching DRA objects").Add("version", classes->ApiVersion()).Emit(log_);
  class_kind_ = std::make_unique<Kind>(this, false);
  slice_kind_ = std::make_unique<Kind>(this, true);
  class_watch_ = std::make_unique<ListWatch>(endpoint_, "device class", classes->Path(),
                                             class_kind_.get(), &class_sync_, log_, nullptr,
                                             options_.watch);
  slice_watch_ = std::make_unique<ListWatch>(endpoint_, "resource slice", slices->Path(),
                                             slice_kind_.get(), &slice_sync_, log_, nullptr,
                                             options_.watch);
  class_watch_->Start();
  slice_watch_->Start();
  while (!loop_.stopping()) {
    auto wait = told ? LoopControl::Clock::now() + std::chrono::hours(24) : decide_by;
    if (!loop_.SleepUntil(wait)) break;
    // Coalesce: publish at most once per `coalesce`.
    auto until = LoopControl::Clock::now() + options_.coalesce;
    while (LoopControl::Clock::now() < until)
      if (!loop_.SleepUntil(until)) return;
    told = Publish() || told;
    tell_unknown();
  }
}

bool DraWatcher::Publish() {
  DraObjects objects;
  std::set<std::string> changed;
  bool all = false, unknown = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!dirty_ || !classes_listed_ || !slices_listed_) return false;
    for (const auto& [name, c] : classes_) objects.classes.push_back(c);
    for (const auto& [name, s] : slices_) objects.slices.push_back(s);
    all = all_changed_ || !published_;
    changed = std::move(changed_);
    changed_.clear();
    dirty_ = all_changed_ = false;
    unknown = !unreadable_[false].empty() || !unreadable_[true].empty();
  }
  if (unknown) {
    published_ = nullptr;
    sink_->SetDra(nullptr, nullptr);
    return true;
  }
  size_t class_count = objects.classes.size(), slice_count = objects.slices.size();
  published_ = DraInventory::Make(std::move(objects), published_.get());
  ++publishes_;
  if (all)
    LogLine("info", "DRA objects published")
        .Add("device_classes", static_cast<int64_t>(class_count))
        .Add("resource_slices", static_cast<int64_t>(slice_count))
        .Add("devices", static_cast<int64_t>(published_->devices().size()))
        .Emit(log_);
  sink_->SetDra(published_, all ? nullptr : &changed);
  return true;
}

}  // namespace gpulint
