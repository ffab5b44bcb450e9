// What the rules' CEL is made of: a rule's findings as records, kept when of
// the policy's severity class and not silenced, and worded as the webhook's
// denial words them. Internal to engine/vap.
#ifndef GPULINT_ENGINE_VAP_CEL_RULE_BUILDER_H_
#define GPULINT_ENGINE_VAP_CEL_RULE_BUILDER_H_

#include <string>

#include "engine/base/finding.h"
#include "engine/policy/policy.h"
#include "engine/rules/rule.h"
#include "engine/vap/cel_text.h"

namespace gpulint::cel {

// One rule's CEL, for one severity class.
class Builder {
 public:
  Builder(const Policy& policy, const RuleInfo& info, bool errors, Names* names)
      : policy_(policy), info_(info), errors_(errors), names_(names) {}

  // The severity of a finding reported at `s` (Reporter::Report): the
  // policy's setting for the rule wins.
  std::string Sev(Severity s) const {
    return Str(SeverityName(policy_.RuleSeverity(info_.name, s)));
  }
  std::string Default() const { return Sev(info_.severity); }
  Names* names() const { return names_; }
  const Policy& policy() const { return policy_; }

  // A finding record.
  static std::string Find(const std::string& sev, const std::string& path, const std::string& msg);

  // A list of finding records as text: those of this class and not silenced
  // for their container, as "rule (path): message", joined.
  std::string Collect(const std::string& findings) const {
    std::string f = names_->Next("f");
    std::string keep = f + ".s " + (errors_ ? "==" : "!=") + " 'error'";
    if (!policy_.ignore_annotation_prefix.empty()) {
      std::string cn = names_->Next("cn"), a = names_->Next("a");
      std::string key = Str(policy_.ignore_annotation_prefix + info_.name + ".") + " + " + cn;
      keep += " && " + Let(cn, ContainerAt(f + ".p"),
                           cn + " == '' || !variables.annotations.exists(" + a + ", (" + key +
                               ") in " + a + " && " + Reason(a + "[" + key + "]") + ")");
    }
    return "(" + findings + ").filter(" + f + ", " + keep + ").map(" + f + ", " + Str(info_.name) +
           " + (" + f + ".p != '' ? ' (' + " + f + ".p + ')' : '') + ': ' + " + f +
           ".m).join('; ')";
  }

  // The whole expression: '' when the object's annotations silence the rule.
  std::string Wrap(const std::string& body) const {
    if (policy_.ignore_annotation_prefix.empty()) return body;
    std::string a = names_->Next("a"), key = Str(policy_.ignore_annotation_prefix + info_.name);
    return "variables.annotations.exists(" + a + ", " + key + " in " + a + " && " +
           Reason(a + "[" + key + "]") + ") ? '' : " + body;
  }

 private:
  // HasIgnoreReason: a string with more than spaces in it.
  static std::string Reason(const std::string& v) {
    return "(type(" + v + ") == string && " + v + ".matches('[^ \\\\t\\\\r\\\\n]'))";
  }
  // The name of the container whose path holds `path` (Reporter's
  // ContainerAt), '' for none.
  std::string ContainerAt(const std::string& path) const {
    std::string ps = names_->Next("ps"), q = names_->Next("q"), c = names_->Next("c");
    std::string within =
        Fill("($x == $c.path || $x.startsWith($c.path + '.') || $x.startsWith($c.path + '['))",
             {{"x", path}, {"c", c}});
    return Let(ps,
               "variables.pods.filter(" + q + ", " + path + ".startsWith(" + q + ".path) && " + q +
                   ".containers.exists(" + c + ", " + within + "))",
               "size(" + ps + ") > 0 ? " + ps + "[0].containers.filter(" + c + ", " + within +
                   ")[0].name : ''");
  }

  const Policy& policy_;
  const RuleInfo& info_;
  bool errors_;
  Names* names_;
};

// "container \"name\"" (ContainerLabel) of a container record `c`.
std::string Label(const std::string& c);
// The pod of container `c`, and the container of entry `e`.
std::string PodOf(const std::string& c);
std::string ContainerOf(const std::string& e);
// The entries of variables.entries that `prefilter` keeps (a cheap test of
// each, `e` standing for it), each made a cel::Entry (parsed), that `keep`
// keeps (`f` standing for the Entry).
std::string Judged(const std::string& e, const std::string& prefilter, const std::string& f,
                   const std::string& keep, Names* n);

// Each rule's findings (cel_rules_gpu.cc, cel_rules_quantity.cc).
std::string GpuLimitMissing(const Builder& b);
std::string GpuVisibilityBypass(const Builder& b);
std::string MemoryLimitMissing(const Builder& b);
std::string LimitsMissingOnGpuNode(const Builder& b);
std::string GpuRequestLimitMismatch(const Builder& b);
std::string GpuFractional(const Builder& b);
std::string QuantityCpuUnits(const Builder& b);
std::string QuantityMilliMemory(const Builder& b);

}  // namespace gpulint::cel

#endif  // GPULINT_ENGINE_VAP_CEL_RULE_BUILDER_H_
