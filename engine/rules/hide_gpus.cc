#include "engine/rules/hide_gpus.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include "engine/base/edit_distance.h"

namespace gpulint {
namespace {

constexpr std::string_view kVisibleDevices = "NVIDIA_VISIBLE_DEVICES";

}  // namespace

bool SetsVisibleDevices(const Value& container) {
  const Value* env = container.Find("env");
  if (!env || !env->is_sequence()) return false;
  for (const Value& e : env->items())
    if (e.StringAt("name") == kVisibleDevices) return true;
  return false;
}

void AddHideGpusOp(const Value& container, const std::string& pointer, std::vector<PatchOp>* ops) {
  Value var(Value::Type::kMapping);
  var.mutable_members().push_back({"name", Value::String(std::string(kVisibleDevices))});
  var.mutable_members().push_back({"value", Value::String("void")});
  const Value* env = container.Find("env");
  if (env && env->is_sequence()) {
    ops->push_back(PatchOp{"add", pointer + "/env/-", std::move(var)});
    return;
  }
  Value list(Value::Type::kSequence);
  list.mutable_items().push_back(std::move(var));
  ops->push_back(PatchOp{"add", pointer + "/env", std::move(list)});
}

std::string MisspeltGpuResource(const ContainerInfo& c, const Policy& policy) {
  std::vector<std::string_view> gpus(policy.gpu_resources.begin(), policy.gpu_resources.end());
  for (const auto* list : {&c.requests, &c.limits})
    for (const ResourceEntry& e : *list) {
      if (std::find(gpus.begin(), gpus.end(), e.name) != gpus.end() ||
          policy.gpu_assignment_resources.Matches(e.name) || e.name == policy.vram_resource)
        continue;
      if (!ClosestWord(e.name, gpus).empty()) return e.name;
    }
  return "";
}

}  // namespace gpulint
