// JUnit XML, the test report every CI system shows: a testsuite per file, a
// testcase per object, a <failure> per finding at or above --fail-on; findings
// below it are the testcase's <system-out>, shown but not failing. An input
// error is a testcase of its own with an <error> (what JUnit calls a test that
// could not run, as against one that failed), counted in the suite's
// "errors". A file's suite is written when the file is done, so memory holds
// one file at a time.
#include <optional>
#include <ostream>
#include <vector>

#include "lint/output/formats.h"
#include "lint/output/output.h"

namespace gpulint {
namespace {

// XML 1.0 text: markup characters escaped; control characters, which XML 1.0
// cannot carry at all, and invalid UTF-8 become U+FFFD. In attributes, line
// breaks and tabs are escaped so that attribute normalisation keeps them.
void AppendXml(std::string_view s, bool attribute, std::string* out) {
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '&':
        *out += "&amp;";
        continue;
      case '<':
        *out += "&lt;";
        continue;
      case '>':
        *out += "&gt;";
        continue;
      case '"':
        *out += attribute ? "&quot;" : "\"";
        continue;
      case '\'':
        *out += attribute ? "&apos;" : "'";
        continue;
      case '\n':
      case '\r':
      case '\t':
        if (attribute) {
          *out += c == '\n' ? "&#10;" : c == '\r' ? "&#13;" : "&#9;";
        } else {
          *out += static_cast<char>(c);
        }
        continue;
      default:
        break;
    }
    if (c < 0x20 || c == 0x7f) {
      *out += "\xEF\xBF\xBD";
      continue;
    }
    if (c < 0x80) {
      *out += static_cast<char>(c);
      continue;
    }
    size_t n = c >= 0xF0 && c <= 0xF4   ? 4
               : c >= 0xE0 && c <= 0xEF ? 3
               : c >= 0xC2 && c <= 0xDF ? 2
                                        : 0;
    bool valid = n > 0 && i + n <= s.size();
    for (size_t k = 1; valid && k < n; ++k)
      valid = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
    if (!valid) {
      *out += "\xEF\xBF\xBD";
      continue;
    }
    out->append(s.substr(i, n));
    i += n - 1;
  }
}

std::string Attr(std::string_view s) {
  std::string out;
  AppendXml(s, true, &out);
  return out;
}

struct TestCase {
  std::string name;
  std::string file;
  uint32_t line = 0;
  std::vector<Finding> failures;
  std::string system_out;
  std::optional<Error> error;  // an input error's case
};

std::string TestCaseName(const ObjectRef& o, Mark mark) {
  if (o.kind.empty()) return "document at line " + std::to_string(mark.line);
  std::string out = o.kind;
  if (!o.namespace_name.empty()) out += "/" + o.namespace_name;
  if (!o.name.empty()) return out + "/" + o.name;
  return out + " at line " + std::to_string(mark.line);
}

class JunitWriter : public BufferedWriter {
 public:
  JunitWriter(const WriterOptions& options, std::ostream& out)
      : BufferedWriter(out), fail_on_(options.fail_on) {
    buf_ = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"gpulint\">\n";
  }

  void BeginFile(const std::string& file) override {
    EndFile();
    file_ = file;
    in_file_ = true;
  }

  void BeginObject(const ObjectRef& object, const std::string& file, Mark mark) override {
    if (!in_file_) BeginFile(file);
    cases_.push_back(TestCase{TestCaseName(object, mark), file, mark.line, {}, {}, {}});
  }

  bool PlacesEveryObject() const override { return true; }

  void Add(const Finding& f) override {
    if (cases_.empty()) BeginObject(f.object, f.file, f.mark);
    TestCase& c = cases_.back();
    if (fail_on_ && f.severity >= *fail_on_) {
      c.failures.push_back(f);
    } else {
      AppendFindingText(f, false, &c.system_out);
    }
  }

  // In the suite of its file (the one being read, when it is), else in a
  // suite of its own; "gpulint" when the error has no file.
  void AddError(const Error& e) override {
    std::string file = e.file.empty() ? "gpulint" : e.file;
    if (!in_file_ || file_ != file) BeginFile(file);
    std::string name = "input error";
    if (e.mark.line > 0) name += " at line " + std::to_string(e.mark.line);
    cases_.push_back(TestCase{name, file, e.mark.line, {}, {}, e});
  }

  // A check that did not run is a skipped testcase: CI reports show it as
  // one, not as a pass.
  void Finish(const Summary& s) override {
    EndFile();
    if (!s.not_run.empty()) {
      buf_ += "  <testsuite name=\"gpulint: checks not run\" tests=\"" +
              std::to_string(s.not_run.size()) + "\" failures=\"0\" errors=\"0\" skipped=\"" +
              std::to_string(s.not_run.size()) + "\">\n";
      for (const NotRun& n : s.not_run)
        buf_ += "    <testcase name=\"" + Attr(n.what) + "\" classname=\"gpulint\">\n" +
                "      <skipped message=\"" + Attr(n.Text()) + "\"/>\n    </testcase>\n";
      buf_ += "  </testsuite>\n";
    }
    buf_ += "</testsuites>\n";
    Flush();
  }

 private:
  void EndFile() {
    if (!in_file_) return;
    size_t failed = 0, errors = 0;
    for (const TestCase& c : cases_) {
      failed += !c.failures.empty();
      errors += c.error.has_value();
    }
    buf_ += "  <testsuite name=\"" + Attr(file_) + "\" tests=\"" + std::to_string(cases_.size()) +
            "\" failures=\"" + std::to_string(failed) + "\" errors=\"" + std::to_string(errors) +
            "\" skipped=\"0\">\n";
    for (const TestCase& c : cases_) AppendCase(c);
    buf_ += "  </testsuite>\n";
    cases_.clear();
    in_file_ = false;
    MaybeFlush();
  }

  void AppendCase(const TestCase& c) {
    buf_ += "    <testcase name=\"" + Attr(c.name) + "\" classname=\"" + Attr(c.file) + "\"";
    if (c.failures.empty() && c.system_out.empty() && !c.error) {
      buf_ += "/>\n";
      return;
    }
    buf_ += ">\n";
    if (c.error) {
      buf_ += "      <error type=\"input-error\" message=\"" + Attr(c.error->message) + "\">";
      AppendXml(c.error->ToString(), false, &buf_);
      buf_ += "</error>\n";
    }
    for (const Finding& f : c.failures) {
      buf_ += "      <failure type=\"" + Attr(f.rule) + "\" message=\"" + Attr(f.message) + "\">";
      std::string text;
      AppendFindingText(f, false, &text);
      AppendXml(text, false, &buf_);
      buf_ += "</failure>\n";
    }
    if (!c.system_out.empty()) {
      buf_ += "      <system-out>";
      AppendXml(c.system_out, false, &buf_);
      buf_ += "</system-out>\n";
    }
    buf_ += "    </testcase>\n";
  }

  std::optional<Severity> fail_on_;
  bool in_file_ = false;
  std::string file_;
  std::vector<TestCase> cases_;
};

}  // namespace

extern const OutputFormat kJunitFormat = {
    "junit", [](const WriterOptions& options, std::ostream& out) -> std::unique_ptr<FindingWriter> {
      return std::make_unique<JunitWriter>(options, out);
    }};

}  // namespace gpulint
