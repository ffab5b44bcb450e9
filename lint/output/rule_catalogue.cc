// The rule catalogue: `gpulint rules` (text, JSON, and the Markdown that
// docs/rules.md is generated from) and `gpulint explain`.
#include "lint/output/rule_catalogue.h"

#include <algorithm>

#include "engine/rules/rule.h"
#include "lint/output/output_internal.h"

namespace gpulint {

void AppendWrapped(std::string_view text, std::string_view indent, size_t width, std::string* out) {
  while (true) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    size_t column = 0;
    bool line_started = false;
    while (!line.empty()) {
      size_t start = line.find_first_not_of(' ');
      if (start == std::string_view::npos) break;
      line.remove_prefix(start);
      size_t end = line.find(' ');
      std::string_view word = line.substr(0, end);
      line.remove_prefix(word.size());
      if (line_started && column + 1 + word.size() > width) {
        out->push_back('\n');
        line_started = false;
      }
      if (!line_started) {
        out->append(indent);
        column = indent.size();
        line_started = true;
      } else {
        out->push_back(' ');
        ++column;
      }
      out->append(word);
      column += word.size();
    }
    out->push_back('\n');
    if (nl == std::string_view::npos) return;
    text.remove_prefix(nl + 1);
  }
}

namespace {

// A Markdown table cell: one line, pipes escaped.
void AppendCell(std::string_view text, std::string* out) {
  for (char c : text) {
    if (c == '|') {
      out->append("\\|");
    } else {
      out->push_back(c == '\n' ? ' ' : c);
    }
  }
}

std::string_view OrEmpty(const char* s) { return s == nullptr ? std::string_view() : s; }

}  // namespace

namespace {

// "error by default", "off by default; warning when enabled".
std::string Default(const RuleInfo& info, const RuleFacts& facts) {
  std::string severity = SeverityName(info.severity);
  return facts.on_by_default ? severity + " by default"
                             : "off by default; " + severity + " when enabled";
}

const char* ScopeName(RuleScope scope) { return scope == RuleScope::kNode ? "node" : "object"; }

// The facts as sentences, for explain and the Markdown sections.
std::vector<std::string> FactSentences(const RuleInfo& info, const RuleFacts& facts,
                                       bool markdown) {
  std::string fix = markdown ? "`gpulint fix`" : "gpulint fix";
  std::string nodes = markdown ? "`--nodes`" : "--nodes";
  std::string vap = markdown ? "`gpulint export vap`" : "gpulint export vap";
  std::vector<std::string> out;
  if (info.scope == RuleScope::kNode)
    out.push_back("It judges a node by the pods bound to it, which " +
                  std::string(markdown ? "`gpulint audit`" : "gpulint audit") + " sums.");
  if (!facts.on_by_default)
    out.push_back("Off in the built-in policy: enable it in spec.rules to use it.");
  out.push_back(facts.fixes ? fix + " repairs its findings where the manifest says how."
                            : fix + " does not repair it.");
  if (facts.needs_nodes)
    out.push_back("Needs a node inventory (" + nodes +
                  ", the policy's node classes, or the webhook's node watch): without one "
                  "it reports nothing.");
  if (facts.cel)
    out.push_back("Exported as CEL by " + vap + ".");
  else if (info.not_cel != nullptr)
    out.push_back("Not exported as CEL by " + vap + ": " + info.not_cel + ".");
  else
    out.push_back("Not exported as CEL (" + vap + " leaves it to the webhook).");
  return out;
}

const char* YesNo(bool b) { return b ? "yes" : "-"; }

}  // namespace

void AppendRulesText(const std::vector<CatalogueRule>& rules, std::string* out) {
  size_t name_width = 4;  // "RULE"
  for (const CatalogueRule& r : rules)
    name_width = std::max(name_width, std::string_view(r.rule->info.name).size());
  auto row = [&](std::vector<std::pair<std::string_view, size_t>> cells,
                 std::string_view title) {
    for (auto [text, width] : cells) {
      out->append(text);
      out->append(width - text.size(), ' ');
    }
    out->append(title);
    out->push_back('\n');
  };
  row({{"RULE", name_width + 2}, {"SEVERITY", 10}, {"SCOPE", 8}, {"DEFAULT", 9}, {"FIX", 5}, {"NODES", 7},
       {"CEL", 5}},
      "TITLE");
  for (const CatalogueRule& r : rules) {
    const RuleInfo& info = r.rule->info;
    row({{info.name, name_width + 2},
         {SeverityName(info.severity), 10},
         {ScopeName(info.scope), 8},
         {r.facts.on_by_default ? "on" : "off", 9},
         {YesNo(r.facts.fixes), 5},
         {YesNo(r.facts.needs_nodes), 7},
         {YesNo(r.facts.cel), 5}},
        OrEmpty(info.title));
  }
}

void AppendRulesJson(const std::vector<CatalogueRule>& rules, std::string* out) {
  out->append("{\"rules\":[");
  bool first = true;
  for (const CatalogueRule& r : rules) {
    const RuleInfo& info = r.rule->info;
    out->append(first ? "\n" : ",\n");
    first = false;
    json rule = {
        {"name", info.name},
        {"severity", SeverityName(info.severity)},
        {"enabledByDefault", r.facts.on_by_default},
        {"fixable", r.facts.fixes},
        {"needsNodes", r.facts.needs_nodes},
        {"exportedAsCel", r.facts.cel},
        {"notExportedBecause", info.not_cel ? json(info.not_cel) : json(nullptr)},
        {"scope", ScopeName(info.scope)},
        {"title", OrEmpty(info.title)},
        {"rationale", OrEmpty(info.rationale)},
        {"fix", OrEmpty(info.fix)},
        {"gpus", info.gpus ? json(info.gpus) : json(nullptr)},
        {"example", info.example ? json(info.example) : json(nullptr)},
    };
    out->append(DumpJson(rule));
  }
  out->append(first ? "]}\n" : "\n]}\n");
}

// Headings are the bare rule names so that GitHub's anchors (#rule-name) are
// the names themselves, and the table can link to them.
void AppendRulesMarkdown(const std::vector<CatalogueRule>& rules, std::string* out) {
  out->append("<!-- Generated by `gpulint rules --format markdown`. Do not edit. -->\n\n");
  out->append(
      "| Rule | Severity | Scope | On by default | `fix` repairs | Needs nodes | CEL (`export vap`) "
      "| Title |\n|---|---|---|---|---|---|---|---|\n");
  for (const CatalogueRule& r : rules) {
    const RuleInfo& info = r.rule->info;
    out->append("| [`");
    out->append(info.name);
    out->append("`](#");
    out->append(info.name);
    out->append(") | ");
    out->append(SeverityName(info.severity));
    out->append(" | ");
    out->append(ScopeName(info.scope));
    for (bool fact : {r.facts.on_by_default, r.facts.fixes, r.facts.needs_nodes, r.facts.cel}) {
      out->append(" | ");
      out->append(fact ? "yes" : "no");
    }
    out->append(" | ");
    AppendCell(OrEmpty(info.title), out);
    out->append(" |\n");
  }
  for (const CatalogueRule& r : rules) {
    const RuleInfo& info = r.rule->info;
    out->append("\n### ");
    out->append(info.name);
    out->append("\n\n**");
    out->append(Default(info, r.facts));
    out->append("**: ");
    out->append(OrEmpty(info.title));
    out->append("\n\n");
    std::vector<std::string> facts = FactSentences(info, r.facts, true);
    for (size_t i = 0; i < facts.size(); ++i) out->append((i ? " " : "") + facts[i]);
    out->append("\n\n");
    out->append(OrEmpty(info.rationale));
    if (info.gpus != nullptr) {
      out->append("\n\n**GPUs:** ");
      out->append(info.gpus);
    }
    out->append("\n\n**Fix:** ");
    out->append(OrEmpty(info.fix));
    out->push_back('\n');
    if (info.example != nullptr) {
      out->append("\n```yaml\n");
      out->append(info.example);
      if (out->back() != '\n') out->push_back('\n');
      out->append("```\n");
    }
  }
}

void AppendExplanation(const CatalogueRule& rule, std::string_view ignore_prefix,
                       std::string* out) {
  constexpr size_t kWidth = 80;
  const RuleInfo& info = rule.rule->info;
  out->append(info.name);
  out->append(" (");
  out->append(Default(info, rule.facts));
  out->append(")\n");
  AppendWrapped(OrEmpty(info.title), "  ", kWidth, out);
  out->push_back('\n');
  for (const std::string& fact : FactSentences(info, rule.facts, false))
    AppendWrapped(fact, "  ", kWidth, out);
  out->append("\nWhy it matters:\n");
  AppendWrapped(OrEmpty(info.rationale), "  ", kWidth, out);
  if (info.gpus != nullptr) {
    out->append("\nWhat counts as a GPU:\n");
    AppendWrapped(info.gpus, "  ", kWidth, out);
  }
  out->append("\nHow to fix:\n");
  AppendWrapped(OrEmpty(info.fix), "  ", kWidth, out);
  if (info.example != nullptr) {
    // Examples are YAML: indent them, never re-wrap them.
    out->append("\nExample:\n");
    std::string_view text = info.example;
    while (!text.empty()) {
      size_t nl = text.find('\n');
      std::string_view line = text.substr(0, nl);
      if (!line.empty()) out->append("  ");
      out->append(line);
      out->push_back('\n');
      text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    }
  }
  if (info.scope == RuleScope::kNode) {
    out->append("\nTo turn it off, or change its severity, set it in the policy's spec.rules.\n");
    return;
  }
  out->append("\nTo accept it for one object, annotate the object (the reason is required):\n  ");
  out->append(ignore_prefix);
  out->append(info.name);
  out->append(": \"why this is fine\"\nor for one of its containers only:\n  ");
  out->append(ignore_prefix);
  out->append(info.name);
  out->append(".CONTAINER: \"why this is fine\"\n");
}

}  // namespace gpulint
