#include "lint/output/output.h"

#include <ostream>

#include "lint/output/output_internal.h"

namespace gpulint {
namespace {

void AppendCount(size_t n, std::string_view noun, std::string* out) {
  AppendNumber(n, out);
  out->push_back(' ');
  out->append(noun);
  if (n != 1) out->push_back('s');
}

}  // namespace

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
  if (s.under_owner > 0) {
    out.append("; ");
    AppendCount(s.under_owner, "object", &out);
    out.append(" judged under their owner");
  }
  if (s.not_objects > 0) {
    out.append("; ");
    AppendCount(s.not_objects, "document", &out);
    out.append(" not checked: no Kubernetes object");
    out.append(s.not_objects == 1 ? "" : "s");
    out.append(" (no apiVersion or kind)");
  }
  if (s.baselined) {
    out.append("; ");
    AppendCount(*s.baselined, "finding", &out);
    out.append(" hidden by the baseline");
  }
  // Short here: the one line holds the counts; the formats with room give
  // NotRun::Text() whole.
  for (const NotRun& n : s.not_run)
    out.append("; " + n.what + " not checked: " + n.why + " (" + n.flag + ")");
  return out;
}

std::string NotRun::Text() const {
  std::string list;
  for (size_t i = 0; i < rules.size(); ++i)
    list += (i == 0 ? "" : i + 1 == rules.size() ? " and " : ", ") + rules[i];
  return what + " not checked" + (list.empty() ? "" : " (" + list + ")") + ": " + why +
         (remedy.empty() ? "" : "; " + remedy);
}

BufferedWriter::BufferedWriter(std::ostream& out) : out_(out) { buf_.reserve(kFlushBytes * 2); }

void BufferedWriter::Flush() {
  if (buf_.empty()) return;
  out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
  buf_.clear();
}

}  // namespace gpulint
