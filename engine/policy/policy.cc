#include "engine/policy/policy.h"

#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>

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

// Matching each pattern in turn was a search of the text per pattern, for
// every container of every object; a set searches once for all of them.
struct PatternList::OnePass {
  explicit OnePass(const RE2::Options& options) : set(options, RE2::UNANCHORED) {}
  RE2::Set set;
};

PatternList::PatternList() = default;
PatternList::~PatternList() = default;
PatternList::PatternList(PatternList&&) noexcept = default;
PatternList& PatternList::operator=(PatternList&&) noexcept = default;

bool PatternList::Set(std::vector<std::string> texts, std::vector<Bad>* bad) {
  std::vector<std::unique_ptr<re2::RE2>> compiled;
  RE2::Options options;
  options.set_log_errors(false);
  bad->clear();
  for (size_t i = 0; i < texts.size(); ++i) {
    auto re = std::make_unique<re2::RE2>(texts[i], options);
    if (!re->ok()) bad->push_back({i, re->error()});
    compiled.push_back(std::move(re));
  }
  if (!bad->empty()) return false;
  auto one_pass = std::make_unique<OnePass>(options);
  for (const std::string& text : texts) {
    if (one_pass->set.Add(text, nullptr) < 0) {
      one_pass.reset();
      break;
    }
  }
  if (one_pass && !one_pass->set.Compile()) one_pass.reset();
  texts_ = std::move(texts);
  compiled_ = std::move(compiled);
  one_pass_ = std::move(one_pass);
  return true;
}

bool PatternList::Matches(std::string_view text) const {
  if (compiled_.empty()) return false;
  if (one_pass_) {
    RE2::Set::ErrorInfo info{RE2::Set::kNoError};
    if (one_pass_->set.Match(text, nullptr, &info)) return true;
    if (info.kind == RE2::Set::kNoError) return false;
    // The set's DFA ran out of memory: each pattern on its own still answers.
  }
  for (const auto& pattern : compiled_)
    if (RE2::PartialMatch(text, *pattern)) return true;
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
  auto it = rules.find(rule);
  return it == rules.end() || it->second.enabled;
}

Severity Policy::RuleSeverity(std::string_view rule, Severity fallback) const {
  auto it = rules.find(rule);
  if (it == rules.end() || !it->second.severity) return fallback;
  return *it->second.severity;
}

bool Policy::ExemptNamespace(std::string_view ns) const {
  return !ns.empty() && std::find(exempt_namespaces.begin(), exempt_namespaces.end(), ns) !=
                            exempt_namespaces.end();
}

bool Policy::ExemptObject(const Value& object) const {
  const Value* metadata = object.Find("metadata");
  return metadata && ExemptNamespace(metadata->StringAt("namespace"));
}

bool Policy::WaiverHonoured(std::string_view ns, std::string_view rule, Severity severity) const {
  if (severity != Severity::kError || ns.empty()) return true;
  auto listed = [](const std::vector<std::string>& names, std::string_view name) {
    return std::any_of(names.begin(), names.end(),
                       [&](const std::string& n) { return n == "*" || n == name; });
  };
  return listed(waive_errors.namespaces, ns) || listed(waive_errors.rules, rule);
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

}  // namespace gpulint
