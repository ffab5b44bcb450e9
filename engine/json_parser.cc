// JSON (an AdmissionReview body) to a Value through nlohmann's SAX parser:
// no intermediate nlohmann::json tree, nesting refused before it is built, and
// duplicate keys refused. nlohmann's lexer already refuses invalid UTF-8,
// lone surrogates and unescaped control characters.
#include <exception>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/loader.h"
#include "engine/path.h"

namespace gpulint {
namespace {

using json = nlohmann::json;

constexpr size_t kIndexThreshold = 16;

class JsonBuilder {
 public:
  explicit JsonBuilder(size_t max_depth) : max_depth_(max_depth) {}

  bool null() { return Add(Value()); }
  bool boolean(bool b) { return Add(Value::Scalar(Value::Type::kBool, b ? "true" : "false")); }
  bool number_integer(json::number_integer_t n) {
    return Add(Value::Scalar(Value::Type::kInt, std::to_string(n)));
  }
  bool number_unsigned(json::number_unsigned_t n) {
    return Add(Value::Scalar(Value::Type::kInt, std::to_string(n)));
  }
  // The text as written: a float keeps its digits (no binary round trip).
  bool number_float(json::number_float_t, const json::string_t& text) {
    return Add(Value::Scalar(Value::Type::kFloat, text));
  }
  bool string(json::string_t& s) { return Add(Value::String(std::move(s))); }
  bool binary(json::binary_t&) { return Fail("binary values are not JSON"); }
  bool start_object(std::size_t) { return Open(Value::Type::kMapping); }
  bool start_array(std::size_t) { return Open(Value::Type::kSequence); }
  bool end_object() { return Close(); }
  bool end_array() { return Close(); }
  bool key(json::string_t& key);
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex);

  Value TakeRoot() { return std::move(root_); }
  const Error& error() const { return error_; }
  bool failed() const { return failed_; }
  // Where the lexer stopped, as a byte count; turned into line:column later.
  size_t error_position() const { return error_position_; }

 private:
  struct Frame {
    Value value;
    std::string key;  // the member being read
    std::unordered_map<std::string, size_t> index;
  };

  bool Fail(std::string message) {
    failed_ = true;
    error_.message = std::move(message);
    return false;
  }
  std::string Path() const;
  bool Open(Value::Type type);
  bool Close();
  bool Add(Value v);

  size_t max_depth_;
  std::vector<Frame> stack_;
  Value root_;
  Error error_;
  bool failed_ = false;
  size_t error_position_ = 0;
};

std::string JsonBuilder::Path() const {
  std::string path;
  for (const Frame& f : stack_) {
    path += '/';
    path +=
        f.value.is_mapping() ? EscapePointerSegment(f.key) : std::to_string(f.value.items().size());
  }
  return path;
}

bool JsonBuilder::Open(Value::Type type) {
  if (stack_.size() >= max_depth_) {
    return Fail("nesting is deeper than " + std::to_string(max_depth_) + " levels");
  }
  stack_.emplace_back();
  stack_.back().value = Value(type);
  return true;
}

bool JsonBuilder::Close() {
  Value v = std::move(stack_.back().value);
  stack_.pop_back();
  return Add(std::move(v));
}

bool JsonBuilder::Add(Value v) {
  if (stack_.empty()) {
    root_ = std::move(v);
    return true;
  }
  Frame& f = stack_.back();
  if (f.value.is_sequence()) {
    f.value.mutable_items().push_back(std::move(v));
  } else {
    f.value.mutable_members().emplace_back(std::move(f.key), std::move(v));
  }
  return true;
}

bool JsonBuilder::key(json::string_t& key) {
  Frame& f = stack_.back();
  std::vector<Value::Member>& members = f.value.mutable_members();
  bool duplicate = false;
  if (!f.index.empty()) {
    duplicate = !f.index.emplace(key, members.size()).second;
  } else {
    for (const Value::Member& m : members) duplicate = duplicate || m.first == key;
    if (!duplicate && members.size() + 1 == kIndexThreshold) {
      for (size_t i = 0; i < members.size(); ++i) f.index.emplace(members[i].first, i);
      f.index.emplace(key, members.size());
    }
  }
  if (duplicate) {
    std::string quoted;
    AppendJsonString(key, &quoted);
    f.key = key;
    return Fail("duplicate key " + quoted + " at " + Path());
  }
  f.key = std::move(key);
  return true;
}

bool JsonBuilder::parse_error(std::size_t position, const std::string&,
                              const nlohmann::detail::exception& ex) {
  // "[json.exception.parse_error.101] parse error at line 1, column 2: syntax
  // error while parsing value - ...": the position goes into the mark.
  std::string what = ex.what();
  size_t colon = what.find(": ", what.find("parse error"));
  error_position_ = position;
  return Fail(colon == std::string::npos ? what : what.substr(colon + 2));
}

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

bool ParseJson(std::string_view text, size_t max_depth, Value* out, Error* error) {
  JsonBuilder builder(max_depth);
  bool ok = false;
  try {
    ok = json::sax_parse(text, &builder);
  } catch (const std::exception& e) {
    *error = Error{"", {}, std::string("cannot parse JSON: ") + e.what()};
    return false;
  }
  if (!ok || builder.failed()) {
    *error = builder.error();
    if (builder.error_position() != 0) error->mark = MarkAt(text, builder.error_position());
    if (!builder.failed()) error->message = "cannot parse JSON";
    return false;
  }
  *out = builder.TakeRoot();
  return true;
}

}  // namespace gpulint
