#include "engine/base/finding.h"

#include <cstring>

namespace gpulint {

const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::kInfo:
      return "info";
    case Severity::kWarning:
      return "warning";
    case Severity::kError:
      return "error";
  }
  return "error";
}

bool ParseSeverity(std::string_view text, Severity* out) {
  for (Severity s : {Severity::kInfo, Severity::kWarning, Severity::kError}) {
    if (text == SeverityName(s)) {
      *out = s;
      return true;
    }
  }
  return false;
}

std::string Error::ToString() const {
  std::string out = file;
  if (mark.line != 0) {
    if (!out.empty()) out += ':';
    out += std::to_string(mark.line);
    if (mark.column != 0) out += ':' + std::to_string(mark.column);
  }
  if (!out.empty()) out += ": ";
  out += message;
  return out;
}

std::string ErrnoText(int err) {
  std::string text = std::strerror(err);
  if (!text.empty() && text[0] >= 'A' && text[0] <= 'Z') text[0] = static_cast<char>(text[0] + 32);
  return text;
}

}  // namespace gpulint
