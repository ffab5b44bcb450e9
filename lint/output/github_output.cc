// GitHub Actions workflow commands: each finding becomes an annotation on the
// pull request's diff, e.g.
//   ::error file=k8s/pod.yaml,line=12,col=9,title=gpu-fractional::...
// and each input error one titled "gpulint".
// https://docs.github.com/actions/using-workflows/workflow-commands-for-github-actions
#include <ostream>

#include "lint/output/formats.h"
#include "lint/output/output.h"

namespace gpulint {
namespace {

// The escapes of GitHub's runner (toolkit/core, command.ts): a message may not
// carry a raw line break, and a property value may not carry the ',' and ':'
// that separate properties.
void AppendEscaped(std::string_view s, bool property, std::string* out) {
  for (char c : s) {
    switch (c) {
      case '%':
        *out += "%25";
        break;
      case '\r':
        *out += "%0D";
        break;
      case '\n':
        *out += "%0A";
        break;
      case ':':
        *out += property ? "%3A" : ":";
        break;
      case ',':
        *out += property ? "%2C" : ",";
        break;
      default:
        *out += c;
    }
  }
}

const char* Command(Severity s) {
  switch (s) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kInfo:
      return "notice";
  }
  return "notice";
}

class GithubWriter : public BufferedWriter {
 public:
  using BufferedWriter::BufferedWriter;

  void Add(const Finding& f) override {
    AppendCommand(Command(f.severity), f.file, f.mark, f.rule, f.message, f.message);
  }

  // An annotation titled "gpulint"; stdin or no file: the message says where.
  void AddError(const Error& e) override {
    AppendCommand("error", e.file, e.mark, "gpulint", e.message, e.ToString());
  }

  // A check that did not run is a notice on the run, with no line to annotate.
  void Finish(const Summary& s) override {
    for (const NotRun& n : s.not_run) AppendCommand("notice", "", {}, "gpulint", n.Text(), n.Text());
    Flush();
  }

 private:
  // ::COMMAND file=F,line=L,col=C,title=TITLE::MESSAGE, with `unlocated` as
  // the message when there is no file to point at.
  void AppendCommand(const char* command, const std::string& file, Mark mark,
                     std::string_view title, std::string_view message, std::string_view unlocated) {
    buf_ += "::";
    buf_ += command;
    buf_ += ' ';
    // stdin is no file in the repository: the annotation goes to the run's
    // summary instead of a line of the diff.
    bool located = !file.empty() && file != "<stdin>";
    if (located) {
      buf_ += "file=";
      AppendEscaped(file, true, &buf_);
      if (mark.line > 0) {
        buf_ += ",line=" + std::to_string(mark.line);
        if (mark.column > 0) buf_ += ",col=" + std::to_string(mark.column);
      }
      buf_ += ',';
    }
    buf_ += "title=";
    AppendEscaped(title, true, &buf_);
    buf_ += "::";
    AppendEscaped(located ? message : unlocated, false, &buf_);
    buf_ += '\n';
    MaybeFlush();
  }
};

}  // namespace

extern const OutputFormat kGithubFormat = {
    "github", [](const WriterOptions&, std::ostream& out) -> std::unique_ptr<FindingWriter> {
      return std::make_unique<GithubWriter>(out);
    }};

}  // namespace gpulint
