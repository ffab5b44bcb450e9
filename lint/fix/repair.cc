#include "lint/fix/repair.h"

#include <algorithm>
#include <map>
#include <utility>

#include "engine/base/path.h"
#include "engine/quantity/quantity.h"
#include "engine/workload/workload.h"

namespace gpulint {
namespace {

constexpr std::string_view kLimitMissing = "gpu-limit-missing";
constexpr std::string_view kMismatch = "gpu-request-limit-mismatch";
constexpr std::string_view kMilli = "quantity-milli-memory";
constexpr std::string_view kVisibleDevices = "NVIDIA_VISIBLE_DEVICES";

// The findings still to answer, by rule and path.
class Pending {
 public:
  Pending(const std::vector<Finding>& findings, const std::set<std::string, std::less<>>& rules) {
    for (const Finding& f : findings) {
      bool repairable = false;
      for (std::string_view r : RepairableRules()) repairable |= r == f.rule;
      if (repairable && (rules.empty() || rules.count(f.rule)))
        by_key_.emplace(std::pair(f.rule, f.path), &f);
    }
  }
  // The finding of `rule` at `path`, taken out, or null.
  const Finding* Take(std::string_view rule, const std::string& path) {
    auto it = by_key_.find(std::pair(std::string(rule), path));
    if (it == by_key_.end()) return nullptr;
    const Finding* f = it->second;
    by_key_.erase(it);
    return f;
  }
  // What no repair answered, in the findings' order.
  void Rest(std::vector<Unrepaired>* left) const {
    std::vector<Unrepaired> rest;
    for (const auto& [key, f] : by_key_) rest.push_back(Unrepaired{f, RestReason(f->rule)});
    std::sort(rest.begin(), rest.end(),
              [](const Unrepaired& a, const Unrepaired& b) { return a.finding < b.finding; });
    left->insert(left->end(), rest.begin(), rest.end());
  }

 private:
  static std::string RestReason(std::string_view rule) {
    if (rule == "quantity-invalid")
      return "it can be read more than one way, or not at all; 'gpulint quantity VALUE' shows "
             "the candidates";
    return "no repair can be read from the manifest alone";
  }
  std::map<std::pair<std::string, std::string>, const Finding*> by_key_;
};

class Repairer {
 public:
  Repairer(const Policy& policy, Pending& pending, std::vector<Repair>* repairs,
           std::vector<Unrepaired>* left)
      : policy_(policy), pending_(pending), repairs_(repairs), left_(left) {}

  void Container(const ContainerInfo& c) {
    HideGpus(c);
    for (const ResourceEntry& r : c.requests) Mismatch(c, r);
    for (const ResourceEntry& e : c.requests) Milli(c, e, "requests", c.Limit(e.name), "limit");
    for (const ResourceEntry& e : c.limits) Milli(c, e, "limits", c.Request(e.name), "request");
  }

 private:
  void Leave(const Finding* f, std::string why) { left_->push_back(Unrepaired{f, std::move(why)}); }

  void HideGpus(const ContainerInfo& c) {
    const Finding* f = pending_.Take(kLimitMissing, c.path);
    if (!f) return;
    if (!policy_.mutations.hide_gpus)
      return Leave(f, "the policy turns hiding GPUs off (spec.mutations.hideGpus: false); set a "
                      "GPU limit, or NVIDIA_VISIBLE_DEVICES=void if it needs no GPU");
    if (c.Privileged())
      return Leave(f, "it is privileged: it sees every GPU device whatever NVIDIA_VISIBLE_DEVICES "
                      "says; drop privileged, or set a GPU limit");
    Repair repair{std::string(kLimitMissing), {}, c.node, c.path,
                  "add env NVIDIA_VISIBLE_DEVICES=void (no GPU limit: it must see no GPU)"};
    std::vector<PatchOp> ops;
    AddHideGpusOp(*c.node, c.pointer, &ops);
    repair.op = std::move(ops.at(0));
    repairs_->push_back(std::move(repair));
  }

  void Mismatch(const ContainerInfo& c, const ResourceEntry& request) {
    const Finding* f = pending_.Take(kMismatch, request.path);
    if (!f) return;
    const ResourceEntry* limit = c.Limit(request.name);
    std::string key = EscapePointerSegment(request.name);
    if (limit) {
      // The device plugin hands out what the limit says; the request only
      // has to agree with it.
      repairs_->push_back(Repair{
          std::string(kMismatch),
          PatchOp{"replace", c.pointer + "/resources/requests/" + key, *limit->value},
          request.value, request.path,
          std::string(request.Text()) + " -> " + std::string(limit->Text()) +
              " (the limit: what the device plugin allocates; extended resources need requests "
              "equal to limits)"});
      return;
    }
    const Value* limits = c.node->Find("resources")->Find("limits");
    PatchOp op{"add", c.pointer + "/resources/limits/" + key, *request.value};
    if (!limits || !limits->is_mapping()) {
      Value map(Value::Type::kMapping);
      map.mutable_members().push_back({request.name, *request.value});
      op = PatchOp{limits ? "replace" : "add", c.pointer + "/resources/limits", std::move(map)};
    }
    repairs_->push_back(Repair{std::string(kMismatch), std::move(op), request.value, request.path,
                               "add limit " + std::string(request.Text()) +
                                   " (equal to the request: extended resources need limits "
                                   "equal to requests)"});
  }

  // "500m" memory: Mi or M? Certain only when every reading is the same size
  // (zero) or the other side of the container says which ("500Mi").
  void Milli(const ContainerInfo& c, const ResourceEntry& e, std::string_view list,
             const ResourceEntry* other, std::string_view other_name) {
    const Finding* f = pending_.Take(kMilli, e.path);
    if (!f) return;
    std::string_view text = e.Text();
    if (text.empty() || text.back() != 'm')
      return Leave(f, "a byte count must be whole, and only the author knows the size meant");
    std::string number(text.substr(0, text.size() - 1));
    std::string fixed, why;
    Value::Type type = Value::Type::kString;
    if (e.quantity.sign() == 0) {
      fixed = "0";
      type = Value::Type::kInt;  // a plain 0, as the author would write it
      why = "zero in any unit";
    } else if (other && other->valid &&
               (other->Text() == number + "Mi" || other->Text() == number + "M")) {
      fixed = std::string(other->Text());
      why = "the " + std::string(other_name) + " is " + fixed;
    } else {
      return Leave(f, std::string(text) + " could be " + number + "Mi or " + number +
                          "M, and only the author knows which");
    }
    std::string pointer =
        c.pointer + "/resources/" + std::string(list) + "/" + EscapePointerSegment(e.name);
    repairs_->push_back(Repair{std::string(kMilli),
                               PatchOp{"replace", std::move(pointer), Value::Scalar(type, fixed)}, e.value,
                               e.path, std::string(text) + " -> " + fixed + " (" + why + ")"});
  }

  const Policy& policy_;
  Pending& pending_;
  std::vector<Repair>* repairs_;
  std::vector<Unrepaired>* left_;
};

}  // namespace

const std::vector<std::string_view>& RepairableRules() {
  static const std::vector<std::string_view> rules = {"quantity-invalid", kMilli, kMismatch,
                                                      kLimitMissing};
  return rules;
}

void RepairFindings(const Value& object, const std::vector<Finding>& findings,
                    const Policy& policy, const Inventory& inventory,
                    const std::set<std::string, std::less<>>& rules, std::vector<Repair>* repairs,
                    std::vector<Unrepaired>* left) {
  Pending pending(findings, rules);
  Repairer repairer(policy, pending, repairs, left);
  for (const PodInfo& pod : ExtractPods(object, policy, inventory)) {
    for (const ContainerInfo& c : pod.containers) repairer.Container(c);
  }
  pending.Rest(left);
}

}  // namespace gpulint
