// The rule catalogue: `gpulint rules` in text, JSON, and the Markdown that
// docs/rules.md is generated from; `gpulint explain`.
#ifndef GPULINT_LINT_OUTPUT_RULE_CATALOGUE_H_
#define GPULINT_LINT_OUTPUT_RULE_CATALOGUE_H_

#include <string>
#include <string_view>
#include <vector>

namespace gpulint {

struct Rule;

void AppendRulesText(const std::vector<const Rule*>& rules, std::string* out);
void AppendRulesJson(const std::vector<const Rule*>& rules, std::string* out);
void AppendRulesMarkdown(const std::vector<const Rule*>& rules, std::string* out);
// `gpulint explain`: title, severity, rationale, fix, example, and how to
// silence the rule for one object with `ignore_prefix` + name.
void AppendExplanation(const Rule& rule, std::string_view ignore_prefix, std::string* out);

// Appends `text` word-wrapped to `width` columns, each line starting with
// `indent`; the text's own line breaks are kept.
void AppendWrapped(std::string_view text, std::string_view indent, size_t width, std::string* out);

}  // namespace gpulint

#endif  // GPULINT_LINT_OUTPUT_RULE_CATALOGUE_H_
