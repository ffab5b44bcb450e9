#include "lint/input/template_lines.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <utility>

#include "lint/input/scratch_dir.h"

namespace gpulint {
namespace {

namespace fs = std::filesystem;

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return lines;
}

bool ReadText(const fs::path& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  *out = text.str();
  return static_cast<bool>(in) || in.eof();
}

// The lines of one template to mark: those that hold no action and are not
// inside one (a multi-line action or comment). Not a blank line (a '{{-'
// after it takes it away, which a mark would stop), nor a document marker
// (helm cuts the output at "---" lines, and would keep a mark as a line of
// its own).
std::vector<bool> LiteralLines(const std::vector<std::string_view>& lines) {
  std::vector<bool> literal(lines.size(), false);
  bool inside = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    bool has_action =
        line.find("{{") != std::string_view::npos || line.find("}}") != std::string_view::npos;
    bool marker = line.substr(0, 3) == "---" || line.substr(0, 3) == "...";
    literal[i] = !inside && !has_action && !marker &&
                 line.find_first_not_of(" \t\r") != std::string_view::npos;
    // Inside once a line opens more actions than it closes, until one closes.
    for (size_t at = 0; at < line.size(); ++at) {
      if (line.compare(at, 2, "{{") == 0)
        inside = true, ++at;
      else if (line.compare(at, 2, "}}") == 0)
        inside = false, ++at;
    }
  }
  return literal;
}

// The template files of a chart, its own and its unpacked subcharts': the
// regular files under a templates/ beside a Chart.yaml. Links are left alone
// (they lead out of the copy), and so is what lies outside `root`.
std::vector<fs::path> TemplateFiles(const fs::path& root) {
  std::vector<fs::path> out;
  std::error_code ec;
  bool in_templates = false;
  size_t depth = 0;
  for (auto it = fs::recursive_directory_iterator(root, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (in_templates && static_cast<size_t>(it.depth()) <= depth) in_templates = false;
    if (it->is_symlink(ec)) continue;
    if (it->is_directory(ec) && !in_templates && it->path().filename() == "templates" &&
        fs::exists(it->path().parent_path() / "Chart.yaml", ec)) {
      in_templates = true;
      depth = static_cast<size_t>(it.depth());
    } else if (in_templates && it->is_regular_file(ec)) {
      out.push_back(it->path());
    }
  }
  return out;
}

}  // namespace

TemplateLines TemplateLines::Build(std::vector<std::string> argv, size_t chart_arg,
                                   const std::string& chart, std::string_view output,
                                   const ToolLimits& limits) {
  TemplateLines out;
  ScratchDir scratch;
  if (scratch.path().empty()) return out;
  fs::path copy = scratch.path() / "chart";
  std::error_code ec;
  fs::path source = fs::canonical(chart, ec);
  if (ec) return out;
  fs::copy(source, copy, fs::copy_options::recursive | fs::copy_options::copy_symlinks, ec);
  if (ec || fs::is_symlink(copy, ec)) return out;
  const std::string mark =
      " #gpulint-" + scratch.path().filename().string().substr(sizeof("gpulint-render.") - 1) + ":";
  std::vector<std::vector<std::string>> texts;  // by file, by line
  for (const fs::path& path : TemplateFiles(copy)) {
    std::string text;
    if (!ReadText(path, &text)) return TemplateLines();
    std::vector<std::string_view> lines = SplitLines(text);
    std::vector<bool> literal = LiteralLines(lines);
    std::string marked;
    size_t file = out.files_.size();
    std::vector<std::string>& stored = texts.emplace_back();
    for (size_t i = 0; i < lines.size(); ++i) {
      std::string_view line = lines[i];
      bool cr = !line.empty() && line.back() == '\r';  // the mark goes before it
      if (cr) line.remove_suffix(1);
      marked += line;
      if (literal[i]) marked += mark + std::to_string(file) + ":" + std::to_string(i + 1);
      marked += cr ? "\r\n" : "\n";
      stored.emplace_back(line);
    }
    std::ofstream(path, std::ios::binary | std::ios::trunc) << marked;
    fs::path shown = fs::path(chart) / path.lexically_relative(copy);
    out.files_.push_back(shown.lexically_normal().generic_string());
  }
  argv[chart_arg] = copy.string();
  ToolRun run;
  std::string error;
  if (!RunTool(argv, limits, &run, &error) || !run.ok()) return TemplateLines();
  std::vector<std::string_view> first = SplitLines(output);
  std::vector<std::string_view> second = SplitLines(run.out);
  if (first.size() != second.size()) return TemplateLines();
  out.by_line_.resize(first.size());
  for (size_t i = 0; i < first.size(); ++i) {
    std::string_view line = second[i];
    std::string unmarked;
    std::vector<Segment> segments;
    bool well_formed = true;
    for (size_t at = 0;;) {
      size_t found = line.find(mark, at);
      unmarked += line.substr(at, found == std::string_view::npos ? found : found - at);
      if (found == std::string_view::npos) break;
      // FILE:LINE, digits only.
      size_t p = found + mark.size();
      size_t file = 0, number = 0, digits = 0;
      for (; p < line.size() && line[p] >= '0' && line[p] <= '9'; ++p, ++digits)
        file = file * 10 + static_cast<size_t>(line[p] - '0');
      bool colon = p < line.size() && line[p] == ':' && digits > 0;
      for (digits = 0, ++p; colon && p < line.size() && line[p] >= '0' && line[p] <= '9';
           ++p, ++digits)
        number = number * 10 + static_cast<size_t>(line[p] - '0');
      if (!colon || digits == 0 || file >= texts.size() || number == 0 ||
          number > texts[file].size()) {
        well_formed = false;
        break;
      }
      std::string_view text = texts[file][number - 1];
      std::string_view trimmed = text.substr(std::min(text.find_first_not_of(" \t"), text.size()));
      std::string_view before = unmarked;
      for (std::string_view written : {text, trimmed}) {
        if (before.size() < written.size() ||
            before.substr(before.size() - written.size()) != written)
          continue;
        segments.push_back({file, static_cast<uint32_t>(number),
                            static_cast<uint32_t>(before.size() - written.size()),
                            static_cast<uint32_t>(before.size()),
                            static_cast<uint32_t>(text.size() - written.size())});
        break;
      }
      at = p;
    }
    if (well_formed && unmarked == first[i]) out.by_line_[i] = std::move(segments);
  }
  return out;
}

bool TemplateLines::Find(size_t line, uint32_t column, std::string* file, Mark* at) const {
  if (line >= by_line_.size() || column == 0) return false;
  for (const Segment& s : by_line_[line]) {
    if (column - 1 < s.begin || column - 1 >= s.end) continue;
    *file = files_[s.file];
    at->line = s.line;
    at->column = column - s.begin + s.indent;
    return true;
  }
  return false;
}

}  // namespace gpulint
