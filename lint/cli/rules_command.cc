// `gpulint rules` and `gpulint explain`: the rule catalogue, whole or one rule.
#include <algorithm>
#include <ostream>

#include "engine/policies.h"
#include "engine/rules/rule.h"
#include "lint/cli/commands.h"
#include "lint/output/rule_catalogue.h"

namespace gpulint {
namespace {

constexpr std::string_view kRulesHelp = R"(Usage: gpulint rules [--format text|json|markdown]

Lists every rule with its default severity and title.

Options:
  --format FORMAT   text (default): one rule per line
                    json: {"rules": [{"name", "severity", "title",
                           "rationale", "fix", "example"}]}
                    markdown: a table and one section per rule; docs/rules.md
                    is generated from it
  -h, --help        print this text

Examples:
  gpulint rules
  gpulint rules --format json | jq -r '.rules[].name'
)";

constexpr std::string_view kExplainHelp = R"(Usage: gpulint explain RULE

Prints a rule's title, default severity, why it matters, how to fix it, an
example manifest that fires it and the same manifest fixed, and how to accept a
finding for one object. 'gpulint rules' lists the rule names.

Example:
  gpulint explain gpu-limit-missing
)";

int RunRules(const std::vector<std::string>& args, CliIo& io) {
  ParsedArgs parsed;
  if (int rc = ParseOrExit(args, RulesCommand(), {{"--format", "", true}}, false, &parsed, io);
      rc >= 0)
    return rc;
  if (!parsed.positional.empty()) {
    Fail(io,
         "rules takes no arguments (did you mean 'gpulint explain " + parsed.positional[0] + "'?)");
    return kExitUsage;
  }
  std::string name = parsed.Get("--format", "text");
  // The catalogue's own formats: Markdown is what docs/rules.md is generated from.
  static constexpr std::pair<std::string_view, void (*)(const std::vector<const Rule*>&,
                                                        std::string*)>
      kFormats[] = {{"text", AppendRulesText}, {"json", AppendRulesJson},
                    {"markdown", AppendRulesMarkdown}};
  auto format = std::find_if(std::begin(kFormats), std::end(kFormats),
                             [&](const auto& f) { return f.first == name; });
  if (format == std::end(kFormats)) {
    Fail(io, "--format: unknown format '" + name + "' (choose text, json or markdown)");
    return kExitUsage;
  }
  std::string text;
  format->second(AllRules(), &text);
  io.out << text;
  return kExitClean;
}

int RunExplain(const std::vector<std::string>& args, CliIo& io) {
  ParsedArgs parsed;
  if (int rc = ParseOrExit(args, ExplainCommand(), {}, false, &parsed, io); rc >= 0) return rc;
  const std::vector<std::string>& positional = parsed.positional;
  if (positional.size() != 1) {
    Fail(io, positional.empty() ? "explain needs a RULE ('gpulint rules' lists them)"
                                : "explain takes one RULE");
    return kExitUsage;
  }
  const Rule* rule = FindRule(positional[0]);
  if (rule == nullptr) {
    std::string message = "unknown rule '" + positional[0] + "'";
    if (const Rule* close = ClosestRule(positional[0]))
      message += " (did you mean '" + std::string(close->info.name) + "'?)";
    Fail(io, message + "; 'gpulint rules' lists them");
    return kExitUsage;
  }
  std::string text;
  AppendExplanation(*rule, DefaultPolicy().ignore_annotation_prefix, &text);
  io.out << text;
  return kExitClean;
}

}  // namespace

const Command& RulesCommand() {
  static const Command command{"rules", kRulesHelp, RunRules};
  return command;
}

const Command& ExplainCommand() {
  static const Command command{"explain", kExplainHelp, RunExplain};
  return command;
}

}  // namespace gpulint
