// The list of output formats: one explicit line per format, in help order.
#include "lint/output/formats.h"

namespace gpulint {

extern const OutputFormat kTextFormat;
extern const OutputFormat kJsonFormat;
extern const OutputFormat kSarifFormat;
extern const OutputFormat kJunitFormat;
extern const OutputFormat kGithubFormat;

const std::vector<const OutputFormat*>& OutputFormats() {
  static const std::vector<const OutputFormat*> kFormats = {
      &kTextFormat, &kJsonFormat, &kSarifFormat, &kJunitFormat, &kGithubFormat,
  };
  return kFormats;
}

const OutputFormat* FindOutputFormat(std::string_view name) {
  for (const OutputFormat* format : OutputFormats())
    if (format->name == name) return format;
  return nullptr;
}

std::string OutputFormatChoices(bool mark_default) {
  const std::vector<const OutputFormat*>& formats = OutputFormats();
  std::string out;
  for (size_t i = 0; i < formats.size(); ++i) {
    if (i > 0) out += i + 1 == formats.size() ? " or " : ", ";
    out += formats[i]->name;
    if (i == 0 && mark_default) out += " (default)";
  }
  return out;
}

std::string OutputFormatAlternatives() {
  std::string out;
  for (const OutputFormat* format : OutputFormats()) {
    if (!out.empty()) out += '|';
    out += format->name;
  }
  return out;
}

std::string HelpWithFormats(std::string_view help, std::string_view formats) {
  constexpr std::string_view kPlaceholder = "@FORMATS@";
  std::string text(help);
  text.replace(text.find(kPlaceholder), kPlaceholder.size(), formats);
  return text;
}

}  // namespace gpulint
