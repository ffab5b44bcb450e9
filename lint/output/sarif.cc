// SARIF 2.1.0 (https://docs.oasis-open.org/sarif/sarif/v2.1.0/), the format
// GitHub code scanning uploads: one run whose driver lists every rule, then
// one result per finding, and an invocation that says whether the run
// succeeded, with a notification per input error. Results stream out as they
// come; only the rule table is written up front.
//
// Within code scanning's ingestion rules ("SARIF support for code scanning"
// and its limits, in GitHub's docs; tests/sarif_github.py checks them): every
// result has a physical location, a file with a region whose startLine is at
// least 1 (1 where the finding's line is not known); its identity is in
// partialFingerprints.primaryLocationLineHash, the one key code scanning
// reads, so alerts follow gpulint's fingerprint rather than a hash of the
// line; a run holds at most 25,000 results, and a notification says how many
// more there were. A finding with no file (none should come: the commands
// name stdin and a cluster's objects) is not a result but a notification, so
// it is neither lost nor the cause of a refused upload.
#include <cctype>
#include <filesystem>
#include <map>
#include <ostream>
#include <vector>

#include "engine/policy/policy.h"
#include "engine/rules/rule.h"
#include "lint/output/fingerprint.h"
#include "lint/output/formats.h"
#include "lint/output/output.h"
#include "lint/output/output_internal.h"
#include "common/version.h"

namespace gpulint {
namespace {

const char* Level(Severity s) {
  switch (s) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kInfo:
      return "note";
  }
  return "none";
}

// "gpu-limit-missing" -> "GpuLimitMissing": SARIF's rule name is an
// identifier, its id the stable kebab-case name.
std::string PascalCase(std::string_view name) {
  std::string out;
  bool upper = true;
  for (char c : name) {
    if (c == '-') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

// Code scanning refuses a rule description longer than 1,024 characters: the
// whole sentences that fit, the rest in the help's Markdown.
std::string Description(std::string_view text) {
  constexpr size_t kMax = 1024;
  if (text.size() <= kMax) return std::string(text);
  size_t end = text.rfind(". ", kMax - 1);
  if (end == std::string_view::npos) end = text.rfind(' ', kMax - 4);
  if (end == std::string_view::npos) end = kMax - 4;
  return std::string(text.substr(0, end + 1)) + (text[end] == '.' ? "" : "...");
}

json RuleJson(const RuleInfo& info, const Policy* policy) {
  Severity severity = policy ? policy->RuleSeverity(info.name, info.severity) : info.severity;
  std::string rationale = info.rationale;
  std::string markdown = std::string("**Fix:** ") + info.fix;
  if (Description(rationale).size() < rationale.size())
    markdown = "**Why:** " + rationale + "\n\n" + markdown;
  if (info.example != nullptr) {
    std::string example = info.example;
    if (!example.empty() && example.back() != '\n') example += '\n';
    markdown += "\n\n```yaml\n" + example + "```\n";
  }
  json configuration = {{"level", Level(severity)}};
  if (policy && !policy->RuleEnabled(info.name)) configuration["enabled"] = false;
  return {
      {"id", info.name},
      {"name", PascalCase(info.name)},
      {"shortDescription", {{"text", info.title}}},
      {"fullDescription", {{"text", Description(rationale)}}},
      {"help", {{"text", info.fix}, {"markdown", markdown}}},
      {"defaultConfiguration", configuration},
      {"properties", {{"tags", {"kubernetes", "gpu"}}}},
  };
}

std::string ObjectName(const ObjectRef& o) {
  std::string out = o.kind;
  if (!o.namespace_name.empty()) out += "/" + o.namespace_name;
  return out + "/" + o.name;
}

class SarifWriter : public BufferedWriter {
 public:
  SarifWriter(const WriterOptions& options, std::ostream& out)
      : BufferedWriter(out), base_dir_(options.base_dir) {
    json rules = json::array();
    std::vector<const RuleInfo*> infos;
    for (const Rule* rule : AllRules())
      if (rule->info.scope == RuleScope::kObject) infos.push_back(&rule->info);
    infos.insert(infos.end(), options.extra_rules.begin(), options.extra_rules.end());
    for (const RuleInfo* info : infos) {
      rule_index_[info->name] = rules.size();
      rules.push_back(RuleJson(*info, options.policy));
    }
    json driver = {{"name", "gpulint"},
                   {"version", std::string(BuildVersion().version)},
                   {"semanticVersion", std::string(BuildVersion().version)},
                   {"rules", rules}};
    json run = {{"tool", {{"driver", driver}}}, {"columnKind", "unicodeCodePoints"}};
    // Which policy judged the findings: the same file can pass under one and
    // fail under another.
    if (!options.policies.empty()) run["properties"] = {{"policies", options.policies}};
    if (!base_dir_.empty()) {
      std::string root = SarifUri(base_dir_, "");
      if (root.back() != '/') root += '/';
      run["originalUriBaseIds"] = {{"%SRCROOT%", {{"uri", root}}}};
    }
    std::string head = DumpJson({{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                                 {"version", "2.1.0"},
                                 {"runs", json::array({run})}});
    // Everything up to the run's closing "}]}" is written now; results follow.
    head.resize(head.size() - 3);
    buf_ = head + ",\"results\":[";
  }

  // Code scanning refuses a run with more results ("SARIF limits").
  static constexpr size_t kMaxResults = 25000;

  void Add(const Finding& f) override {
    json physical = PhysicalLocation(f.file, f.mark, /*result=*/true);
    if (physical.is_null()) {
      unplaced_.push_back(f);
      return;
    }
    if (results_ == kMaxResults) {
      ++left_out_;
      return;
    }
    ++results_;
    json result = {
        {"ruleId", f.rule}, {"level", Level(f.severity)}, {"message", {{"text", f.message}}}};
    auto it = rule_index_.find(f.rule);
    if (it != rule_index_.end()) result["ruleIndex"] = it->second;
    json location = {{"physicalLocation", std::move(physical)}};
    if (!f.object.kind.empty()) {
      location["logicalLocations"] = json::array({{{"name", f.object.name},
                                                   {"fullyQualifiedName", ObjectName(f.object)},
                                                   {"kind", "resource"}}});
    }
    result["locations"] = json::array({location});
    if (!f.path.empty()) result["properties"] = {{"path", f.path}};
    // A chart's finding is at its template; where helm's output has it.
    if (f.rendered.line > 0)
      result["properties"]["rendered"] = {{"line", f.rendered.line}, {"column", f.rendered.column}};
    // What code scanning matches alerts across runs by, instead of the line:
    // it reads primaryLocationLineHash alone ("hash:occurrence"), and
    // computes one from the line's text where there is none, which would
    // make one alert of the findings a cluster's audit places on one line.
    if (!f.fingerprint.empty()) {
      result["partialFingerprints"] = {{kFingerprintKey, f.fingerprint},
                                       {"primaryLocationLineHash", f.fingerprint + ":1"}};
    }
    buf_ += first_ ? "\n" : ",\n";
    first_ = false;
    buf_ += DumpJson(result);
    MaybeFlush();
  }

  // Written at Finish as the run's invocation: there are few.
  void AddError(const Error& error) override { errors_.push_back(error); }

  // The invocation says whether the run succeeded: a log with no results
  // and executionSuccessful false is a failed run, not a clean one.
  void Finish(const Summary& s) override {
    json invocation = {{"executionSuccessful", errors_.empty()}};
    json notifications = json::array();
    if (left_out_ > 0) {
      notifications.push_back(
          {{"level", "warning"},
           {"message",
            {{"text", std::to_string(left_out_) + " more findings are not in this log: GitHub code "
                      "scanning refuses a run of more than " +
                          std::to_string(kMaxResults) +
                          " results (run gpulint with --format json for all)"}}}});
    }
    for (const Finding& f : unplaced_) {
      notifications.push_back(
          {{"level", "warning"},
           {"message",
            {{"text", "a finding in no file, so not a result: " + f.message + " [" + f.rule +
                          "]"}}}});
    }
    // A check that did not run is a note: the run succeeded, less it.
    for (const NotRun& n : s.not_run)
      notifications.push_back({{"level", "note"}, {"message", {{"text", n.Text()}}}});
    if (!errors_.empty()) {
      for (const Error& e : errors_) {
        json physical = PhysicalLocation(e.file, e.mark, /*result=*/false);
        // The location is said once: in the message when it has no artifact.
        json notification = {
            {"level", "error"},
            {"message", {{"text", physical.is_null() ? e.ToString() : e.message}}}};
        if (!physical.is_null())
          notification["locations"] = json::array({{{"physicalLocation", physical}}});
        notifications.push_back(std::move(notification));
      }
    }
    if (!notifications.empty()) invocation["toolExecutionNotifications"] = std::move(notifications);
    buf_ += "\n],\"invocations\":";
    buf_ += DumpJson(json::array({invocation}));
    buf_ += "}]}\n";
    Flush();
  }

 private:
  // `file` at `mark` as a SARIF physicalLocation; null for no file or stdin,
  // which are no artifact of the repository. A result's region starts on line
  // 1 when the line is not known: code scanning needs a startLine there; a
  // notification's (an error) has a region only where a line is known.
  json PhysicalLocation(const std::string& file, Mark mark, bool result) const {
    if (file.empty() || file == "<stdin>") return nullptr;
    std::string uri = SarifUri(file, base_dir_);
    json artifact = {{"uri", uri}};
    if (uri.rfind("file:", 0) != 0 && !base_dir_.empty()) artifact["uriBaseId"] = "%SRCROOT%";
    if (mark.line == 0 && !result) return {{"artifactLocation", artifact}};
    json region = {{"startLine", mark.line > 0 ? mark.line : 1}};
    if (mark.line > 0 && mark.column > 0) region["startColumn"] = mark.column;
    return {{"artifactLocation", artifact}, {"region", region}};
  }

  std::string base_dir_;
  std::map<std::string, size_t, std::less<>> rule_index_;
  std::vector<Error> errors_;
  std::vector<Finding> unplaced_;  // in no file: notifications
  size_t results_ = 0;
  size_t left_out_ = 0;  // past kMaxResults
  bool first_ = true;
};

void PercentEncode(std::string_view path, std::string* out) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (char ch : path) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      *out += ch;
    } else {
      *out += '%';
      *out += kHex[c >> 4];
      *out += kHex[c & 15];
    }
  }
}

}  // namespace

std::string SarifUri(std::string_view file, std::string_view base_dir) {
  namespace fs = std::filesystem;
  fs::path path = fs::path(file).lexically_normal();
  fs::path base = fs::path(base_dir).lexically_normal();
  if (path.is_relative() && !base_dir.empty()) path = (base / path).lexically_normal();
  std::string out;
  if (!base_dir.empty()) {
    fs::path relative = path.lexically_relative(base);
    std::string text = relative.generic_string();
    if (!text.empty() && text != "." && text.rfind("..", 0) != 0) {
      PercentEncode(text, &out);
      return out;
    }
  }
  if (path.is_relative()) {
    PercentEncode(path.generic_string(), &out);
    return out;
  }
  out = "file://";
  PercentEncode(path.generic_string(), &out);
  return out;
}

extern const OutputFormat kSarifFormat = {
    "sarif", [](const WriterOptions& options, std::ostream& out) -> std::unique_ptr<FindingWriter> {
      return std::make_unique<SarifWriter>(options, out);
    }};

}  // namespace gpulint
