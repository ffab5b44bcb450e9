// Reporter: a rule's findings, placed and named.
#include <string>
#include <string_view>
#include <utility>

#include "engine/rules/rule.h"

namespace gpulint {
namespace {

// The name of the container whose path holds `path` ("...containers[1]" holds
// "...containers[1].resources.limits.memory", not "...containers[10]").
const std::string* ContainerAt(const ObjectContext& ctx, std::string_view path) {
  for (const PodInfo& pod : ctx.pods) {
    if (path.substr(0, pod.path.size()) != pod.path) continue;
    for (const ContainerInfo& c : pod.containers) {
      if (path.size() < c.path.size() || path.substr(0, c.path.size()) != c.path) continue;
      if (path.size() == c.path.size() || path[c.path.size()] == '.' || path[c.path.size()] == '[')
        return &c.name;
    }
  }
  return nullptr;
}

}  // namespace

Finding& Reporter::Report(const Value* at, std::string path, std::string message) {
  return Add(at, std::move(path), std::move(message), severity_);
}

Finding& Reporter::Report(const Value* at, std::string path, std::string message,
                          Severity severity) {
  return Add(at, std::move(path), std::move(message),
             ctx_.policy.RuleSeverity(rule_.name, severity));
}

Finding& Reporter::Add(const Value* at, std::string path, std::string message, Severity severity) {
  Finding f;
  f.rule = rule_.name;
  f.severity = severity;
  f.message = std::move(message);
  f.file = ctx_.file;
  f.mark = at && at->mark().line ? at->mark() : ctx_.object.mark();
  f.object = ctx_.ref;
  f.path = std::move(path);
  if (const std::string* container = ContainerAt(ctx_, f.path)) f.container = *container;
  if (ctx_.fixes && rule_.no_fix) f.no_fix = rule_.no_fix;
  out_->push_back(std::move(f));
  return out_->back();
}

}  // namespace gpulint
