// --format text: one compiler-style line per finding (the summary line goes
// to stderr, written by the caller).
#include "lint/output/formats.h"
#include "lint/output/output.h"
#include "lint/output/output_internal.h"

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

class TextWriter : public BufferedWriter {
 public:
  TextWriter(std::ostream& out, bool color) : BufferedWriter(out), color_(color) {}
  void Add(const Finding& finding) override {
    AppendFindingText(finding, color_, &buf_);
    MaybeFlush();
  }
  void AddError(const Error&) override {}  // on stderr, by the caller
  void Finish(const Summary&) override { Flush(); }

 private:
  bool color_;
};

}  // namespace

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

extern const OutputFormat kTextFormat = {
    "text", [](const WriterOptions& options, std::ostream& out) -> std::unique_ptr<FindingWriter> {
      return std::make_unique<TextWriter>(out, options.color);
    }};

}  // namespace gpulint
