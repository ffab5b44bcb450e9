#include "engine/workload/serving_runtimes.h"

#include "engine/base/objects.h"

namespace gpulint {
namespace {

// The container KServe merges the predictor into: kserve-container, else the first.
const Value* ServingContainer(const Value& spec) {
  const Value* containers = spec.Find("containers");
  if (!containers || !containers->is_sequence() || containers->items().empty()) return nullptr;
  for (const Value& c : containers->items())
    if (c.is_mapping() && c.StringAt("name") == "kserve-container") return &c;
  return containers->items()[0].is_mapping() ? &containers->items()[0] : nullptr;
}

}  // namespace

bool ServingRuntimes::Add(const Value& object) {
  std::string_view kind = object.StringAt("kind");
  if ((kind != "ServingRuntime" && kind != "ClusterServingRuntime") ||
      ApiGroupOf(object.StringAt("apiVersion")) != "serving.kserve.io")
    return false;
  ObjectRef ref = RefOf(object);
  ServingRuntime r{std::string(kind), ref.name, {}, ""};
  const Value* spec = object.Find("spec");
  if (spec && spec->is_mapping()) {
    if (const Value* formats = spec->Find("supportedModelFormats");
        formats && formats->is_sequence())
      for (const Value& f : formats->items())
        if (f.is_mapping() && f.Find("autoSelect") && f.Find("autoSelect")->text() == "true")
          r.auto_formats.emplace_back(f.StringAt("name"));
    if (const Value* c = ServingContainer(*spec)) {
      const Value* resources = c->Find("resources");
      const Value* limits = resources ? resources->Find("limits") : nullptr;
      const Value* memory = limits ? limits->Find("memory") : nullptr;
      if (memory && memory->is_scalar() && !memory->is_null())
        r.memory_limit = std::string(memory->text());
    }
  }
  if (kind == "ClusterServingRuntime")
    cluster_[ref.name] = std::move(r);
  else
    namespaced_[{ref.namespace_name, ref.name}] = std::move(r);
  return true;
}

std::vector<const ServingRuntime*> ServingRuntimes::For(std::string_view ns,
                                                        const Value& model) const {
  std::vector<const ServingRuntime*> out;
  std::string_view named = model.StringAt("runtime");
  if (!named.empty()) {
    if (auto it = namespaced_.find({std::string(ns), std::string(named)}); it != namespaced_.end())
      out.push_back(&it->second);
    else if (auto c = cluster_.find(std::string(named)); c != cluster_.end())
      out.push_back(&c->second);
    return out;
  }
  const Value* format = model.Find("modelFormat");
  std::string_view name = format ? format->StringAt("name") : std::string_view();
  if (name.empty()) return out;
  auto selects = [&](const ServingRuntime& r) {
    for (const std::string& f : r.auto_formats)
      if (f == name) return true;
    return false;
  };
  for (const auto& [key, r] : namespaced_)
    if (key.first == ns && selects(r)) out.push_back(&r);
  for (const auto& [key, r] : cluster_)
    if (selects(r)) out.push_back(&r);
  return out;
}

}  // namespace gpulint
