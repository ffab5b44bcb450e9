// The output formats of `gpulint check --format`, listed once (formats.cc).
// --format's check, its error, check's help and the main help's usage line are
// all read from that list. Adding a format is a writer file that defines its
// OutputFormat and one line in the list, as engine/rules/registry.cc is for rules.
#ifndef GPULINT_LINT_OUTPUT_FORMATS_H_
#define GPULINT_LINT_OUTPUT_FORMATS_H_

#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lint/output/output.h"

namespace gpulint {

// One format, defined in its writer's file (format_text.cc, format_json.cc,
// sarif.cc, junit.cc, github_output.cc).
struct OutputFormat {
  std::string_view name;
  std::unique_ptr<FindingWriter> (*make)(const WriterOptions& options, std::ostream& out);
  // The output holds the summary (JSON); otherwise the summary line goes to
  // stderr, leaving stdout to the findings.
  bool holds_summary = false;
};

// Every format, in the order help lists them; the first is the default.
const std::vector<const OutputFormat*>& OutputFormats();
const OutputFormat* FindOutputFormat(std::string_view name);
// "text, json, sarif, junit or github" for errors; with `mark_default`,
// "text (default), json, ..." for check's help.
std::string OutputFormatChoices(bool mark_default = false);
// "text|json|sarif|junit|github", for usage lines.
std::string OutputFormatAlternatives();
// `help` with its "@FORMATS@" replaced by `formats`, one of the lists above.
std::string HelpWithFormats(std::string_view help, std::string_view formats);

}  // namespace gpulint

#endif  // GPULINT_LINT_OUTPUT_FORMATS_H_
