// The rule catalogue: `gpulint rules` in text, JSON, and the Markdown that
// docs/rules.md is generated from; `gpulint explain`.
#ifndef GPULINT_LINT_OUTPUT_RULE_CATALOGUE_H_
#define GPULINT_LINT_OUTPUT_RULE_CATALOGUE_H_

#include <string>
#include <string_view>
#include <vector>

namespace gpulint {

struct Rule;

// What the catalogue says of a rule beyond its RuleInfo, each from where it is
// decided (lint/cli/rules_command.cc gathers them).
struct RuleFacts {
  bool on_by_default = true;  // the built-in policy enables it
  bool fixes = false;         // `gpulint fix` repairs its findings (RuleInfo::no_fix)
  bool needs_nodes = false;   // it reports only with a node inventory (RuleInfo::needs_nodes)
  bool cel = false;           // `gpulint export vap` can hold it
};
struct CatalogueRule {
  const Rule* rule;
  RuleFacts facts;
};

void AppendRulesText(const std::vector<CatalogueRule>& rules, std::string* out);
void AppendRulesJson(const std::vector<CatalogueRule>& rules, std::string* out);
void AppendRulesMarkdown(const std::vector<CatalogueRule>& rules, std::string* out);
// `gpulint explain`: title, severity (or that it is off by default), what
// repairs it, needs and exports it, rationale, fix, example, and how to
// silence the rule for one object with `ignore_prefix` + name.
void AppendExplanation(const CatalogueRule& rule, std::string_view ignore_prefix,
                       std::string* out);

// Appends `text` word-wrapped to `width` columns, each line starting with
// `indent`; the text's own line breaks are kept.
void AppendWrapped(std::string_view text, std::string_view indent, size_t width, std::string* out);

}  // namespace gpulint

#endif  // GPULINT_LINT_OUTPUT_RULE_CATALOGUE_H_
