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

Lists every rule with its default severity, its scope (SCOPE: object, or
node: a node by the pods bound to it, which 'gpulint audit' judges), whether
the built-in policy turns it on (DEFAULT), whether 'gpulint fix' repairs it
(FIX), whether it needs a node inventory to report anything (NODES: --nodes,
the policy's node classes or the webhook's node watch), whether 'gpulint
export vap' exports it as CEL (CEL; 'gpulint explain' says why not), and its
title.

Options:
  --format FORMAT   text (default): one rule per line
                    json: {"rules": [{"name", "severity",
                           "enabledByDefault", "fixable", "needsNodes",
                           "exportedAsCel", "notExportedBecause",
                           "scope", "title", "rationale", "fix", "gpus",
                           "example"}]}
                    markdown: a table and one section per rule; docs/rules.md
                    is generated from it
  -h, --help        print this text

Examples:
  gpulint rules
  gpulint rules --format json | jq -r '.rules[].name'
)";

constexpr std::string_view kExplainHelp = R"(Usage: gpulint explain RULE

Prints a rule's title, default severity (or that the built-in policy leaves it
off), whether 'gpulint fix' repairs it, needs a node inventory or is exported
as CEL, why it matters, how to fix it, an example manifest that fires it and
the same manifest fixed, and how to accept a finding for one object. 'gpulint
rules' lists the rule names.

Example:
  gpulint explain gpu-limit-missing
)";

// Each rule with what the catalogue says of it, from where each is decided.
CatalogueRule Catalogued(const Rule& rule) {
  RuleFacts facts;
  facts.on_by_default = DefaultPolicy().RuleEnabled(rule.info.name);
  facts.fixes = rule.info.no_fix != nullptr;
  facts.needs_nodes = rule.info.needs_nodes;
  facts.cel = rule.info.not_cel == nullptr;  // declared; vap_test holds it to engine/vap
  return {&rule, facts};
}

int RunRules(const std::vector<std::string>& args, CliIo& io) {
  ParsedArgs parsed;
  if (int rc = ParseOrExit(args, RulesCommand(), &parsed, io); rc >= 0) return rc;
  if (!parsed.positional.empty()) {
    Fail(io,
         "rules takes no arguments (did you mean 'gpulint explain " + parsed.positional[0] + "'?)");
    return kExitUsage;
  }
  std::string name = parsed.Get("--format", "text");
  // The catalogue's own formats: Markdown is what docs/rules.md is generated from.
  static constexpr std::pair<std::string_view, void (*)(const std::vector<CatalogueRule>&,
                                                        std::string*)>
      kFormats[] = {{"text", AppendRulesText}, {"json", AppendRulesJson},
                    {"markdown", AppendRulesMarkdown}};
  auto format = std::find_if(std::begin(kFormats), std::end(kFormats),
                             [&](const auto& f) { return f.first == name; });
  if (format == std::end(kFormats)) {
    Fail(io, "--format: unknown format '" + name + "' (choose text, json or markdown)");
    return kExitUsage;
  }
  std::vector<CatalogueRule> rules;
  for (const Rule* rule : AllRules()) rules.push_back(Catalogued(*rule));
  std::string text;
  format->second(rules, &text);
  io.out << text;
  return kExitClean;
}

int RunExplain(const std::vector<std::string>& args, CliIo& io) {
  ParsedArgs parsed;
  if (int rc = ParseOrExit(args, ExplainCommand(), &parsed, io); rc >= 0) return rc;
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
  AppendExplanation(Catalogued(*rule), DefaultPolicy().ignore_annotation_prefix, &text);
  io.out << text;
  return kExitClean;
}

}  // namespace

const Command& RulesCommand() {
  static const Command command{
      "rules", kRulesHelp, RunRules, {{"--format", "", true, false, "text json markdown"}}};
  return command;
}

const Command& ExplainCommand() {
  // Completion offers the rule names as its argument.
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Rule* r : AllRules()) out.emplace_back(r->info.name);
    return out;
  }();
  static const std::vector<std::string_view> words(names.begin(), names.end());
  static const Command command{"explain", kExplainHelp, RunExplain, {}, words};
  return command;
}

}  // namespace gpulint
