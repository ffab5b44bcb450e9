#include <yaml.h>

#include <cstdio>
#include <string>

#include "engine/yaml/yaml_document.h"

namespace gpulint {
namespace {

// libyaml's contexts ("while parsing a block mapping") as the thing a person
// would look for in the file.
struct Context {
  std::string_view libyaml;
  std::string_view noun;
};
constexpr Context kContexts[] = {
    {"while scanning a quoted scalar", "the quoted string"},
    {"while scanning a block scalar", "the block scalar"},
    {"while scanning a plain scalar", "the plain scalar"},
    {"while parsing a block mapping", "the mapping"},
    {"while parsing a flow mapping", "the mapping"},
    {"while parsing a block collection", "the sequence"},
    {"while parsing a flow sequence", "the sequence"},
    {"while parsing a node", "the node"},
    {"while scanning an anchor", "the anchor"},
    {"while scanning an alias", "the alias"},
    {"while scanning a tag", "the tag"},
    {"while parsing a tag", "the tag"},
    {"while scanning a directive", "the directive"},
    {"while scanning a %YAML directive", "the %YAML directive"},
    {"while scanning a %TAG directive", "the %TAG directive"},
};

// Steps through `text` counting lines and columns the way libyaml does
// (columns in characters; \r\n, \r, \n, NEL, LS and PS end a line).
class Walker {
 public:
  explicit Walker(std::string_view text) : text_(text) {}
  bool AtEnd() const { return offset_ >= text_.size(); }
  size_t offset() const { return offset_; }
  size_t line() const { return line_; }
  size_t column() const { return column_; }
  void Step() {
    unsigned char c = static_cast<unsigned char>(text_[offset_]);
    size_t width = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    std::string_view rest = text_.substr(offset_);
    bool is_break = c == '\n' || c == '\r' || rest.substr(0, 2) == "\xC2\x85" ||
                    rest.substr(0, 3) == "\xE2\x80\xA8" || rest.substr(0, 3) == "\xE2\x80\xA9";
    if (rest.substr(0, 2) == "\r\n") width = 2;
    offset_ = std::min(text_.size(), offset_ + width);
    if (is_break) {
      ++line_;
      column_ = 0;
    } else {
      ++column_;
    }
  }

 private:
  std::string_view text_;
  size_t offset_ = 0;
  size_t line_ = 0;
  size_t column_ = 0;
};

Mark ToMark(uint32_t first_line, size_t line, size_t column) {
  return {static_cast<uint32_t>(first_line + line + 1), static_cast<uint32_t>(column + 1)};
}

// Walks to a libyaml mark; false when the text ends before it.
bool WalkTo(Walker* w, const yaml_mark_t& mark) {
  while (!w->AtEnd() && (w->line() < mark.line || w->column() < mark.column)) {
    if (w->line() > mark.line) return false;
    w->Step();
  }
  return !w->AtEnd() && w->line() == mark.line;
}

std::string ProblemText(const yaml_parser_t& parser, std::string_view text) {
  std::string problem = parser.problem ? parser.problem : "syntax error";
  if (problem == "found unexpected end of stream") return "found unexpected end of document";
  Walker w(text);
  if (!WalkTo(&w, parser.problem_mark)) {
    // Each document is parsed on its own: its end is where libyaml stopped.
    return problem + " before the end of the document";
  }
  if (problem == "found character that cannot start any token") {
    char c = text[w.offset()];
    if (c == '\t') return "found a tab character; YAML indents with spaces, not tabs";
    if (c > ' ' && c < 0x7F)
      return std::string("found character '") + c + "' that cannot start any token";
  }
  return problem;
}

std::string ContextText(const yaml_parser_t& parser, uint32_t first_line) {
  if (parser.context == nullptr) return "";
  const yaml_mark_t& at = parser.context_mark;
  if (at.line == parser.problem_mark.line && at.column == parser.problem_mark.column) return "";
  std::string_view context = parser.context;
  if (context == "while scanning for the next token") return "";
  Mark mark = ToMark(first_line, at.line, at.column);
  std::string where = " that starts at line " + std::to_string(mark.line) + ", column " +
                      std::to_string(mark.column);
  for (const Context& c : kContexts) {
    if (c.libyaml == context) return " (in " + std::string(c.noun) + where + ")";
  }
  return " (" + std::string(context) + where + ")";
}

// Reader errors come with a byte offset, not a mark.
Error ReaderError(const yaml_parser_t& parser, std::string_view text, uint32_t first_line) {
  Walker w(text);
  while (!w.AtEnd() && w.offset() < parser.problem_offset) w.Step();
  Error error;
  error.mark = ToMark(first_line, w.line(), w.column());
  error.message = parser.problem ? parser.problem : "cannot read the text";
  if (parser.problem_value != -1) {
    char value[32];
    bool octet = error.message.find("octet") != std::string::npos;
    std::snprintf(value, sizeof value, octet ? " (byte 0x%02X)" : " (U+%04X)",
                  static_cast<unsigned>(parser.problem_value));
    error.message += value;
  }
  return error;
}

}  // namespace

Error LibyamlError(const yaml_parser_t& parser, std::string_view text, uint32_t first_line) {
  if (parser.error == YAML_READER_ERROR) return ReaderError(parser, text, first_line);
  Error error;
  if (parser.error == YAML_MEMORY_ERROR) {
    error.mark = ToMark(first_line, 0, 0);
    error.message = "out of memory";
    return error;
  }
  if (parser.context != nullptr &&
      std::string_view(parser.context) == "while scanning a simple key") {
    // The problem mark is wherever libyaml gave up looking for the ':'; the
    // line to fix is the key's.
    error.mark = ToMark(first_line, parser.context_mark.line, parser.context_mark.column);
    error.message = "could not find expected ':' after this key";
    return error;
  }
  error.mark = ToMark(first_line, parser.problem_mark.line, parser.problem_mark.column);
  error.message = ProblemText(parser, text) + ContextText(parser, first_line);
  return error;
}

}  // namespace gpulint
