// JSON to a Value through nlohmann's SAX parser: the reference that the fast
// parser (json_parser.cc) is held to, and the one that words every error.
// nlohmann's lexer refuses invalid UTF-8, lone surrogates and unescaped control
// characters; its messages say what was read and what was expected.
#include <exception>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "engine/json/json_tree_builder.h"

namespace gpulint {
namespace {

using json = nlohmann::json;

// nlohmann's SAX events, handed to the tree builder.
class NlohmannSax {
 public:
  explicit NlohmannSax(JsonTreeBuilder* tree) : tree_(*tree) {}

  bool null() { return tree_.Add(Value()); }
  bool boolean(bool b) {
    return tree_.Add(Value::Scalar(Value::Type::kBool, b ? "true" : "false"));
  }
  bool number_integer(json::number_integer_t n) {
    return tree_.Add(Value::Scalar(Value::Type::kInt, std::to_string(n)));
  }
  bool number_unsigned(json::number_unsigned_t n) {
    return tree_.Add(Value::Scalar(Value::Type::kInt, std::to_string(n)));
  }
  // The text as written: a float keeps its digits (no binary round trip).
  bool number_float(json::number_float_t, const json::string_t& text) {
    return tree_.Add(Value::Scalar(Value::Type::kFloat, text));
  }
  bool string(json::string_t& s) { return tree_.Add(Value::String(std::move(s))); }
  bool binary(json::binary_t&) { return tree_.Fail("binary values are not JSON"); }
  bool start_object(std::size_t) { return tree_.Open(Value::Type::kMapping); }
  bool start_array(std::size_t) { return tree_.Open(Value::Type::kSequence); }
  bool end_object() { return tree_.Close(); }
  bool end_array() { return tree_.Close(); }
  bool key(json::string_t& key) { return tree_.Key(std::move(key)); }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& ex) {
    // "[json.exception.parse_error.101] parse error at line 1, column 2: syntax
    // error while parsing value - ...": the position goes into the mark.
    std::string what = ex.what();
    size_t colon = what.find(": ", what.find("parse error"));
    error_position_ = position;
    return tree_.Fail(colon == std::string::npos ? what : what.substr(colon + 2));
  }

  // Where the lexer stopped, as a byte count; turned into line:column later.
  size_t error_position() const { return error_position_; }

 private:
  JsonTreeBuilder& tree_;
  size_t error_position_ = 0;
};

Mark MarkAt(std::string_view text, size_t position) {
  // nlohmann counts the character it stopped on.
  size_t end = std::min(text.size(), position == 0 ? 0 : position - 1);
  Mark mark{1, 1};
  for (size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++mark.line;
      mark.column = 1;
    } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      ++mark.column;
    }
  }
  return mark;
}

}  // namespace

bool ParseJsonNlohmann(std::string_view text, size_t max_depth, Value* out, Error* error,
                       const JsonItemSink& items) {
  return ParseJsonNlohmannWithin(text, JsonLimits{max_depth, 0}, out, error, items) ==
         JsonParse::kOk;
}

JsonParse ParseJsonNlohmannWithin(std::string_view text, const JsonLimits& limits, Value* out,
                                  Error* error, const JsonItemSink& items) {
  JsonTreeBuilder tree(limits, items);
  NlohmannSax sax(&tree);
  bool ok = false;
  try {
    ok = json::sax_parse(text, &sax);
  } catch (const std::exception& e) {
    *error = Error{"", {}, std::string("cannot parse JSON: ") + e.what()};
    return JsonParse::kInvalid;
  }
  if (!ok || tree.failed()) {
    *error = tree.error();
    if (tree.over_budget()) return JsonParse::kOverBudget;
    if (sax.error_position() != 0) error->mark = MarkAt(text, sax.error_position());
    if (!tree.failed()) error->message = "cannot parse JSON";
    return JsonParse::kInvalid;
  }
  // nlohmann's lexer takes a NUL byte outside a string for the end of the
  // text (one inside a string it refuses), so whatever follows would be
  // ignored: a place to hide bytes from the parser. JSON allows nothing but
  // whitespace after the value.
  if (size_t nul = text.find('\0'); nul != std::string_view::npos) {
    *error = Error{"", MarkAt(text, nul + 1),
                   "cannot parse JSON: a NUL byte after the value (only whitespace may follow it)"};
    return JsonParse::kInvalid;
  }
  *out = tree.TakeRoot();
  return JsonParse::kOk;
}

}  // namespace gpulint
