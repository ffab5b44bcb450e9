#include "engine/policy.h"

#include <re2/re2.h>

#include <cstdio>
#include <cstdlib>

namespace gpulint {
namespace {

std::string_view GroupOf(std::string_view api_version) {
  size_t slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
}

}  // namespace

Policy::Policy() = default;
Policy::~Policy() = default;
Policy::Policy(Policy&&) noexcept = default;
Policy& Policy::operator=(Policy&&) noexcept = default;

bool Policy::MatchesCudaImage(std::string_view image) const {
  for (const auto& pattern : cuda_image_patterns)
    if (RE2::PartialMatch(image, *pattern)) return true;
  return false;
}

const WorkloadKind* Policy::FindWorkload(std::string_view api_version,
                                         std::string_view kind) const {
  std::string_view group = GroupOf(api_version);
  const WorkloadKind* any_group = nullptr;
  for (const WorkloadKind& w : workloads) {
    if (w.kind != kind) continue;
    if (w.group == group) return &w;
    if (w.group == "*" && !any_group) any_group = &w;
  }
  return any_group;
}

bool Policy::RuleEnabled(std::string_view rule) const {
  auto it = rules.find(std::string(rule));
  return it == rules.end() || it->second.enabled;
}

Severity Policy::RuleSeverity(std::string_view rule, Severity fallback) const {
  auto it = rules.find(std::string(rule));
  if (it == rules.end() || !it->second.severity) return fallback;
  return *it->second.severity;
}

Quantity Policy::ReservedOn(const std::string& resource, const NodeClass& node) const {
  auto it = reserved.find(resource);
  if (it == reserved.end()) return Quantity();
  const Reserve& r = it->second;
  Quantity total = r.fixed;
  auto allocatable = node.allocatable.find(resource);
  if (allocatable != node.allocatable.end() && r.percent_milli > 0) {
    // A share of a node is rounded up to what Kubernetes counts in: whole
    // units (bytes, GPUs), except CPU, which is counted in millicores.
    Quantity share = allocatable->second.ScaledUp(r.percent_milli, 100 * 1000);
    total = total + share.RoundedUp(resource == "cpu" ? -3 : 0);
  }
  return total + r.per_gpu * node.gpu.count;
}

const Policy& DefaultPolicy() {
  static const Policy* policy = [] {
    auto* p = new Policy();
    Error error;
    if (!LoadPolicyText(DefaultPolicyText(), "<default policy>", p, &error)) {
      // The default policy is compiled in and tested; a binary whose default
      // does not load was built wrong, and must not run with no policy at all.
      std::fprintf(stderr, "gpulint: the built-in policy does not load: %s\n",
                   error.ToString().c_str());
      std::abort();
    }
    return p;
  }();
  return *policy;
}

}  // namespace gpulint
