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

// "index, name, memory.total [MiB]": the header nvidia-smi prints without
// noheader. Anything else naming columns is a different query.
bool IsHeader(const Field& first) { return first.text == "index"; }

bool CheckHeader(const Field& name, const Field& memory, std::string* problem) {
  if (name.text == "name" && (memory.text == "memory.total [MiB]" || memory.text == "memory.total"))
    return true;
  *problem = "the header names the columns index, " + std::string(name.text) + ", " +
             std::string(memory.text) +
             "; expected index, name, memory.total (run: " + kNvidiaSmiQuery + ")";
  return false;
}

// memory.total: "81920", or "81920 MiB" without nounits.
bool ParseMemory(const Field& f, int64_t* mib, std::string* problem) {
  std::string_view text = f.text;
  if (!text.empty() && text.front() == '[') {
    *problem = "memory.total is " + Quoted(text) + ": nvidia-smi could not read this GPU's memory";
    return false;
  }
  size_t space = text.find(' ');
  if (space != std::string_view::npos) {
    std::string_view unit = text.substr(text.find_first_not_of(' ', space));
    if (unit != "MiB") {
      *problem = "memory.total " + Quoted(text) + " is not in MiB";
      return false;
    }
    text = text.substr(0, space);
  }
  if (!ParseWhole(text, mib)) {
    *problem = "memory.total " + Quoted(f.text) + " is not a whole number of MiB";
    return false;
  }
  if (*mib == 0) {
    *problem = "memory.total is 0 MiB";
    return false;
  }
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
    // No GPU name holds a comma: a fourth field means another query, whose
    // columns would be read as the wrong ones.
    size_t fields = 1 + static_cast<size_t>(std::count(line.begin(), line.end(), ','));
    if (fields != 3) {
      return fail(1, "expected 3 comma-separated fields (index, name, memory.total), found " +
                         std::to_string(fields) + " (run: " + kNvidiaSmiQuery + ")");
    }
    size_t first = line.find(',');
    size_t last = line.rfind(',');
    Field index = Trimmed(line, 0, first);
    Field name = Trimmed(line, first + 1, last);
    Field memory = Trimmed(line, last + 1, line.size());
    std::string problem;
    if (IsHeader(index)) {
      if (!CheckHeader(name, memory, &problem)) return fail(name.column, problem);
      continue;
    }
    GpuRecord gpu;
    gpu.line = line_no;
    if (!ParseWhole(index.text, &gpu.index))
      return fail(index.column, "GPU index " + Quoted(index.text) + " is not a number");
    if (name.text.empty()) return fail(name.column, "the GPU name is empty");
    gpu.name = std::string(name.text);
    if (!ParseMemory(memory, &gpu.memory_mib, &problem)) return fail(memory.column, problem);
    gpus->push_back(std::move(gpu));
  }
  return true;
}

}  // namespace gpulint
