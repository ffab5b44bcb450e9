// --format json: {"findings":[...],"errors":[...],"summary":{...}}, one
// finding or error per line so the output stays readable and greppable. The
// schema is documented in `gpulint check --help`.
#include "lint/output/formats.h"
#include "lint/output/output.h"
#include "lint/output/output_internal.h"

namespace gpulint {
namespace {

// Sets `j`'s members to `f`'s. Called on the same object for every finding:
// its keys stay allocated, only the values change.
void SetFinding(const Finding& f, json* j) {
  json& out = *j;
  out["rule"] = f.rule;
  out["severity"] = SeverityName(f.severity);
  out["message"] = f.message;
  out["file"] = f.file;
  out["line"] = f.mark.line;
  out["column"] = f.mark.column;
  json& object = out["object"];
  object["apiVersion"] = f.object.api_version;
  object["kind"] = f.object.kind;
  object["namespace"] = f.object.namespace_name;
  object["name"] = f.object.name;
  out["path"] = f.path;
  out.erase("rendered");  // last, when there is one
  if (f.fingerprint.empty()) {
    out.erase("fingerprint");
  } else {
    out["fingerprint"] = f.fingerprint;
  }
  if (f.rendered.line > 0)
    out["rendered"] = {{"line", f.rendered.line}, {"column", f.rendered.column}};
}

class JsonWriter : public BufferedWriter {
 public:
  JsonWriter(std::ostream& out, std::vector<std::string> policies)
      : BufferedWriter(out), policies_(std::move(policies)) {
    buf_.append("{\"findings\":[");
  }
  void Add(const Finding& finding) override {
    buf_.append(first_ ? "\n" : ",\n");
    first_ = false;
    SetFinding(finding, &row_);
    buf_.append(DumpJson(row_));
    MaybeFlush();
  }
  // Written at Finish, after the findings: there are few.
  void AddError(const Error& error) override { errors_.push_back(error); }
  void Finish(const Summary& s) override {
    json summary = {
        {"errors", s.errors},          {"warnings", s.warnings}, {"infos", s.infos},
        {"objects", s.objects},        {"files", s.files},       {"checked", s.checked},
        {"notChecked", s.not_checked},
    };
    if (s.baselined) summary["baselined"] = *s.baselined;
    if (s.under_owner > 0) summary["underOwner"] = s.under_owner;
    if (s.not_objects > 0) summary["notKubernetes"] = s.not_objects;
    if (!s.not_run.empty()) {
      json not_run = json::array();
      for (const NotRun& n : s.not_run)
        not_run.push_back(
            {{"what", n.what}, {"rules", n.rules}, {"why", n.why}, {"remedy", n.remedy}});
      summary["notRun"] = std::move(not_run);
    }
    // "policy": the one policy, when the inputs shared one; "policies": all.
    if (policies_.size() == 1) summary["policy"] = policies_[0];
    if (!policies_.empty()) summary["policies"] = policies_;
    buf_.append(first_ ? "]," : "\n],");
    buf_.append("\"errors\":[");
    for (size_t i = 0; i < errors_.size(); ++i) {
      const Error& e = errors_[i];
      buf_.append(i == 0 ? "\n" : ",\n");
      buf_.append(DumpJson({{"message", e.message},
                            {"file", e.file},
                            {"line", e.mark.line},
                            {"column", e.mark.column}}));
    }
    buf_.append(errors_.empty() ? "]," : "\n],");
    buf_.append("\"summary\":");
    buf_.append(DumpJson(summary));
    buf_.append("}\n");
    Flush();
  }

 private:
  bool first_ = true;
  std::vector<std::string> policies_;
  std::vector<Error> errors_;
  json row_;  // the finding being written, reused
};

}  // namespace

std::string FindingJsonText(const Finding& finding) {
  json j;
  SetFinding(finding, &j);
  return DumpJson(j);
}

extern const OutputFormat kJsonFormat = {
    "json",
    [](const WriterOptions& options, std::ostream& out) -> std::unique_ptr<FindingWriter> {
      return std::make_unique<JsonWriter>(out, options.policies);
    },
    /*holds_summary=*/true};

}  // namespace gpulint
