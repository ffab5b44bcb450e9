#include "lint/input/nvidia_smi.h"

#include <algorithm>
#include <charconv>

namespace gpulint {
namespace {

struct Field {
  std::string_view text;  // trimmed
  uint32_t column = 0;    // 1-based, of the trimmed text
};

Field Trimmed(std::string_view line, size_t begin, size_t end) {
  while (begin < end && (line[begin] == ' ' || line[begin] == '\t')) ++begin;
  while (end > begin && (line[end - 1] == ' ' || line[end - 1] == '\t' || line[end - 1] == '\r'))
    --end;
  return Field{line.substr(begin, end - begin), static_cast<uint32_t>(begin + 1)};
}

bool ParseWhole(std::string_view text, int64_t* out) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size() && *out >= 0;
}

std::string Quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

// "index, name, memory.total [MiB], memory.reserved [MiB]": the header
// nvidia-smi prints without noheader. Anything else naming columns is a
// different query.
bool IsHeader(const Field& first) { return first.text == "index"; }

bool CheckHeader(const std::vector<Field>& fields, std::string* problem) {
  constexpr std::string_view kNames[] = {"index", "name", "memory.total", "memory.reserved"};
  bool ok = true;
  std::string named;
  for (size_t i = 0; i < fields.size(); ++i) {
    std::string_view text = fields[i].text;
    named += (i ? ", " : "") + std::string(text);
    if (text.ends_with(" [MiB]")) text.remove_suffix(6);
    ok = ok && text == kNames[i];
  }
  if (ok) return true;
  *problem = "the header names the columns " + named +
             "; expected index, name, memory.total, memory.reserved (run: " + kNvidiaSmiQuery +
             ")";
  return false;
}

// A size in MiB: "81920", or "81920 MiB" without nounits.
bool ParseMib(const Field& f, std::string_view column, int64_t* mib, std::string* problem) {
  std::string_view text = f.text;
  std::string what = std::string(column);
  if (!text.empty() && text.front() == '[') {
    *problem = what + " is " + Quoted(text) + ": nvidia-smi could not read this GPU's memory";
    return false;
  }
  size_t space = text.find(' ');
  if (space != std::string_view::npos) {
    std::string_view unit = text.substr(text.find_first_not_of(' ', space));
    if (unit != "MiB") {
      *problem = what + " " + Quoted(text) + " is not in MiB";
      return false;
    }
    text = text.substr(0, space);
  }
  if (!ParseWhole(text, mib)) {
    *problem = what + " " + Quoted(f.text) + " is not a whole number of MiB";
    return false;
  }
  return true;
}

// memory.reserved: a size, or "[N/A]" ("[Not Supported]") from a driver that
// cannot say, which leaves it unknown.
bool ParseReserved(const Field& f, std::optional<int64_t>* mib, std::string* problem) {
  if (f.text.starts_with("[N/A]") || f.text.starts_with("[Not Supported]")) return true;
  int64_t value = 0;
  if (!ParseMib(f, "memory.reserved", &value, problem)) return false;
  *mib = value;
  return true;
}

}  // namespace

bool ParseNvidiaSmi(std::string_view text, const std::string& file, std::vector<GpuRecord>* gpus,
                    Error* error) {
  uint32_t line_no = 0;
  auto fail = [&](uint32_t column, std::string message) {
    *error = Error{file, Mark{line_no, column}, std::move(message)};
    return false;
  };
  while (!text.empty()) {
    ++line_no;
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (Trimmed(line, 0, line.size()).text.empty()) continue;
    // No GPU name holds a comma: a fifth field means another query, whose
    // columns would be read as the wrong ones.
    size_t count = 1 + static_cast<size_t>(std::count(line.begin(), line.end(), ','));
    if (count != 3 && count != 4) {
      return fail(1, "expected 4 comma-separated fields (index, name, memory.total, "
                     "memory.reserved) or the first 3, found " +
                         std::to_string(count) + " (run: " + kNvidiaSmiQuery + ")");
    }
    std::vector<Field> fields;
    size_t begin = 0;
    for (size_t i = 0; i < count; ++i) {
      size_t end = i + 1 == count ? line.size() : line.find(',', begin);
      fields.push_back(Trimmed(line, begin, end));
      begin = end + 1;
    }
    const Field& index = fields[0];
    const Field& name = fields[1];
    std::string problem;
    if (IsHeader(index)) {
      if (!CheckHeader(fields, &problem)) return fail(name.column, problem);
      continue;
    }
    GpuRecord gpu;
    gpu.line = line_no;
    if (!ParseWhole(index.text, &gpu.index))
      return fail(index.column, "GPU index " + Quoted(index.text) + " is not a number");
    if (name.text.empty()) return fail(name.column, "the GPU name is empty");
    gpu.name = std::string(name.text);
    if (!ParseMib(fields[2], "memory.total", &gpu.memory_mib, &problem))
      return fail(fields[2].column, problem);
    if (gpu.memory_mib == 0) return fail(fields[2].column, "memory.total is 0 MiB");
    if (count == 4 && !ParseReserved(fields[3], &gpu.reserved_mib, &problem))
      return fail(fields[3].column, problem);
    if (gpu.reserved_mib && *gpu.reserved_mib >= gpu.memory_mib)
      return fail(fields[3].column, "memory.reserved " + std::to_string(*gpu.reserved_mib) +
                                        " MiB is not less than memory.total " +
                                        std::to_string(gpu.memory_mib) + " MiB");
    gpus->push_back(std::move(gpu));
  }
  return true;
}

}  // namespace gpulint
