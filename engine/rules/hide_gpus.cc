#include "engine/rules/hide_gpus.h"

#include <string_view>
#include <utility>

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

}  // namespace gpulint
