#include "lint/output.h"

#include <algorithm>
#include <charconv>
#include <ostream>
#include <utility>

#include "engine/rule.h"
#include "engine/value.h"

namespace gpulint {
namespace {

// The colours clang uses: bold location, red errors, magenta warnings.
constexpr std::string_view kBold = "\x1b[1m";
constexpr std::string_view kReset = "\x1b[0m";

std::string_view SeverityColor(Severity s) {
  switch (s) {
    case Severity::kError:
      return "\x1b[1;31m";
    case Severity::kWarning:
      return "\x1b[1;35m";
    case Severity::kInfo:
      return "\x1b[1;36m";
  }
  return kBold;
}

void AppendNumber(uint64_t n, std::string* out) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, n);
  out->append(buf, end);
}

void AppendCount(size_t n, std::string_view noun, std::string* out) {
  AppendNumber(n, out);
  out->push_back(' ');
  out->append(noun);
  if (n != 1) out->push_back('s');
}

void AppendKey(std::string_view key, std::string* out) {
  out->push_back('"');
  out->append(key);
  out->append("\":");
}

void AppendStringMember(std::string_view key, std::string_view value, std::string* out) {
  AppendKey(key, out);
  AppendJsonString(value, out);
}

class TextWriter : public BufferedWriter {
 public:
  TextWriter(std::ostream& out, bool color) : BufferedWriter(out), color_(color) {}
  void Add(const Finding& finding) override {
    AppendFindingText(finding, color_, &buf_);
    MaybeFlush();
  }
  void Finish(const Summary&) override { Flush(); }

 private:
  bool color_;
};

class JsonWriter : public BufferedWriter {
 public:
  JsonWriter(std::ostream& out, std::vector<std::string> policies)
      : BufferedWriter(out), policies_(std::move(policies)) {
    buf_.append("{\"findings\":[");
  }
  // One finding per line, so the output stays readable and greppable.
  void Add(const Finding& finding) override {
    buf_.append(first_ ? "\n" : ",\n");
    first_ = false;
    AppendFindingJson(finding, &buf_);
    MaybeFlush();
  }
  void Finish(const Summary& s) override {
    buf_.append(first_ ? "]," : "\n],");
    AppendKey("summary", &buf_);
    const std::pair<std::string_view, size_t> counts[] = {
        {"errors", s.errors},   {"warnings", s.warnings}, {"infos", s.infos},
        {"objects", s.objects}, {"files", s.files},       {"checked", s.checked},
        {"notChecked", s.not_checked},
    };
    char sep = '{';
    for (const auto& [key, n] : counts) {
      buf_.push_back(sep);
      sep = ',';
      AppendKey(key, &buf_);
      AppendNumber(n, &buf_);
    }
    if (s.baselined) {
      buf_.push_back(',');
      AppendKey("baselined", &buf_);
      AppendNumber(*s.baselined, &buf_);
    }
    AppendPolicies();
    buf_.append("}}\n");
    Flush();
  }

 private:
  // "policy": the one policy, when the inputs shared one; "policies": all.
  void AppendPolicies() {
    if (policies_.empty()) return;
    if (policies_.size() == 1) {
      buf_.push_back(',');
      AppendStringMember("policy", policies_[0], &buf_);
    }
    buf_.push_back(',');
    AppendKey("policies", &buf_);
    char sep = '[';
    for (const std::string& name : policies_) {
      buf_.push_back(sep);
      sep = ',';
      AppendJsonString(name, &buf_);
    }
    buf_.push_back(']');
  }

  bool first_ = true;
  std::vector<std::string> policies_;
};

}  // namespace

bool ParseOutputFormat(std::string_view text, OutputFormat* out) {
  if (text == "text") {
    *out = OutputFormat::kText;
  } else if (text == "json") {
    *out = OutputFormat::kJson;
  } else if (text == "markdown") {
    *out = OutputFormat::kMarkdown;
  } else if (text == "sarif") {
    *out = OutputFormat::kSarif;
  } else if (text == "junit") {
    *out = OutputFormat::kJunit;
  } else if (text == "github") {
    *out = OutputFormat::kGithub;
  } else {
    return false;
  }
  return true;
}

const char* OutputFormatName(OutputFormat format) {
  switch (format) {
    case OutputFormat::kText:
      return "text";
    case OutputFormat::kJson:
      return "json";
    case OutputFormat::kMarkdown:
      return "markdown";
    case OutputFormat::kSarif:
      return "sarif";
    case OutputFormat::kJunit:
      return "junit";
    case OutputFormat::kGithub:
      return "github";
  }
  return "?";
}

void Summary::Count(Severity severity) {
  switch (severity) {
    case Severity::kError:
      ++errors;
      break;
    case Severity::kWarning:
      ++warnings;
      break;
    case Severity::kInfo:
      ++infos;
      break;
  }
}

size_t Summary::AtLeast(Severity threshold) const {
  size_t n = errors;
  if (threshold <= Severity::kWarning) n += warnings;
  if (threshold <= Severity::kInfo) n += infos;
  return n;
}

std::string SummaryText(const Summary& s) {
  std::string out;
  AppendCount(s.errors, "error", &out);
  out.append(", ");
  AppendCount(s.warnings, "warning", &out);
  if (s.infos > 0) {
    out.append(", ");
    AppendCount(s.infos, "info", &out);
  }
  out.append(" in ");
  AppendCount(s.objects, "object", &out);
  out.append(" (");
  AppendCount(s.files, "file", &out);
  out.push_back(')');
  if (s.not_checked > 0) {
    out.append("; ");
    AppendCount(s.checked, "workload", &out);
    out.append(" checked, " + std::to_string(s.not_checked) + " not checked");
  }
  if (s.baselined) {
    out.append("; ");
    AppendCount(*s.baselined, "finding", &out);
    out.append(" hidden by the baseline");
  }
  return out;
}

void AppendFindingText(const Finding& f, bool color, std::string* out) {
  // Webhook-style findings (no file) still get a line number when they have one.
  bool located = !f.file.empty() || f.mark.line > 0;
  if (located) {
    if (color) out->append(kBold);
    out->append(f.file);
    if (f.mark.line > 0) {
      if (!f.file.empty()) out->push_back(':');
      AppendNumber(f.mark.line, out);
      if (f.mark.column > 0) {
        out->push_back(':');
        AppendNumber(f.mark.column, out);
      }
    }
    out->push_back(':');
    if (color) out->append(kReset);
    out->push_back(' ');
  }
  if (color) out->append(SeverityColor(f.severity));
  out->append(SeverityName(f.severity));
  out->push_back(':');
  if (color) out->append(kReset);
  out->push_back(' ');
  out->append(f.message);
  out->append(" [");
  out->append(f.rule);
  out->append("]\n");
}

void AppendFindingJson(const Finding& f, std::string* out) {
  out->push_back('{');
  AppendStringMember("rule", f.rule, out);
  out->push_back(',');
  AppendStringMember("severity", SeverityName(f.severity), out);
  out->push_back(',');
  AppendStringMember("message", f.message, out);
  out->push_back(',');
  AppendStringMember("file", f.file, out);
  out->push_back(',');
  AppendKey("line", out);
  AppendNumber(f.mark.line, out);
  out->push_back(',');
  AppendKey("column", out);
  AppendNumber(f.mark.column, out);
  out->push_back(',');
  AppendKey("object", out);
  out->push_back('{');
  AppendStringMember("apiVersion", f.object.api_version, out);
  out->push_back(',');
  AppendStringMember("kind", f.object.kind, out);
  out->push_back(',');
  AppendStringMember("namespace", f.object.namespace_name, out);
  out->push_back(',');
  AppendStringMember("name", f.object.name, out);
  out->append("},");
  AppendStringMember("path", f.path, out);
  if (!f.fingerprint.empty()) {
    out->push_back(',');
    AppendStringMember("fingerprint", f.fingerprint, out);
  }
  out->push_back('}');
}

BufferedWriter::BufferedWriter(std::ostream& out) : out_(out) { buf_.reserve(kFlushBytes * 2); }

void BufferedWriter::Flush() {
  if (buf_.empty()) return;
  out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
  buf_.clear();
}

std::unique_ptr<FindingWriter> NewFindingWriter(const WriterOptions& options, std::ostream& out) {
  switch (options.format) {
    case OutputFormat::kJson:
      return std::make_unique<JsonWriter>(out, options.policies);
    case OutputFormat::kSarif:
      return NewSarifWriter(options, out);
    case OutputFormat::kJunit:
      return NewJunitWriter(options, out);
    case OutputFormat::kGithub:
      return NewGithubWriter(options, out);
    default:
      return std::make_unique<TextWriter>(out, options.color);
  }
}

std::unique_ptr<FindingWriter> NewFindingWriter(OutputFormat format, std::ostream& out,
                                                bool color) {
  WriterOptions options;
  options.format = format;
  options.color = color;
  return NewFindingWriter(options, out);
}

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

void AppendOptionalString(std::string_view key, const char* value, std::string* out) {
  AppendKey(key, out);
  if (value == nullptr) {
    out->append("null");
  } else {
    AppendJsonString(value, out);
  }
}

std::string_view OrEmpty(const char* s) { return s == nullptr ? std::string_view() : s; }

}  // namespace

void AppendRulesText(const std::vector<const Rule*>& rules, std::string* out) {
  size_t name_width = 4;  // "RULE"
  for (const Rule* r : rules)
    name_width = std::max(name_width, std::string_view(r->info.name).size());
  auto row = [&](std::string_view name, std::string_view severity, std::string_view title) {
    out->append(name);
    out->append(name_width + 2 - name.size(), ' ');
    out->append(severity);
    out->append(10 - severity.size(), ' ');
    out->append(title);
    out->push_back('\n');
  };
  row("RULE", "SEVERITY", "TITLE");
  for (const Rule* r : rules)
    row(r->info.name, SeverityName(r->info.severity), OrEmpty(r->info.title));
}

void AppendRulesJson(const std::vector<const Rule*>& rules, std::string* out) {
  out->append("{\"rules\":[");
  bool first = true;
  for (const Rule* r : rules) {
    out->append(first ? "\n{" : ",\n{");
    first = false;
    AppendStringMember("name", r->info.name, out);
    out->push_back(',');
    AppendStringMember("severity", SeverityName(r->info.severity), out);
    out->push_back(',');
    AppendStringMember("title", OrEmpty(r->info.title), out);
    out->push_back(',');
    AppendStringMember("rationale", OrEmpty(r->info.rationale), out);
    out->push_back(',');
    AppendStringMember("fix", OrEmpty(r->info.fix), out);
    out->push_back(',');
    AppendOptionalString("example", r->info.example, out);
    out->push_back('}');
  }
  out->append(first ? "]}\n" : "\n]}\n");
}

// Headings are the bare rule names so that GitHub's anchors (#rule-name) are
// the names themselves, and the table can link to them.
void AppendRulesMarkdown(const std::vector<const Rule*>& rules, std::string* out) {
  out->append("<!-- Generated by `gpulint rules --format markdown`. Do not edit. -->\n\n");
  out->append("| Rule | Severity | Title |\n|---|---|---|\n");
  for (const Rule* r : rules) {
    out->append("| [`");
    out->append(r->info.name);
    out->append("`](#");
    out->append(r->info.name);
    out->append(") | ");
    out->append(SeverityName(r->info.severity));
    out->append(" | ");
    AppendCell(OrEmpty(r->info.title), out);
    out->append(" |\n");
  }
  for (const Rule* r : rules) {
    out->append("\n### ");
    out->append(r->info.name);
    out->append("\n\n**");
    out->append(SeverityName(r->info.severity));
    out->append("**: ");
    out->append(OrEmpty(r->info.title));
    out->append("\n\n");
    out->append(OrEmpty(r->info.rationale));
    out->append("\n\n**Fix:** ");
    out->append(OrEmpty(r->info.fix));
    out->push_back('\n');
    if (r->info.example != nullptr) {
      out->append("\n```yaml\n");
      out->append(r->info.example);
      if (out->back() != '\n') out->push_back('\n');
      out->append("```\n");
    }
  }
}

void AppendExplanation(const Rule& rule, std::string_view ignore_prefix, std::string* out) {
  constexpr size_t kWidth = 80;
  const RuleInfo& info = rule.info;
  out->append(info.name);
  out->append(" (");
  out->append(SeverityName(info.severity));
  out->append(" by default)\n");
  AppendWrapped(OrEmpty(info.title), "  ", kWidth, out);
  out->append("\nWhy it matters:\n");
  AppendWrapped(OrEmpty(info.rationale), "  ", kWidth, out);
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
  out->append("\nTo accept it for one object, annotate the object (the reason is required):\n  ");
  out->append(ignore_prefix);
  out->append(info.name);
  out->append(": \"why this is fine\"\nor for one of its containers only:\n  ");
  out->append(ignore_prefix);
  out->append(info.name);
  out->append(".CONTAINER: \"why this is fine\"\n");
}

}  // namespace gpulint
