// The engine's object tree: what a YAML document or a JSON body becomes before any
// rule sees it, so the CLI and the webhook cannot disagree.
#ifndef GPULINT_ENGINE_BASE_VALUE_H_
#define GPULINT_ENGINE_BASE_VALUE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpulint {

// 1-based line and column in the source text; 0 means unknown (e.g. JSON from
// an AdmissionReview, where findings carry a JSON path instead).
struct Mark {
  uint32_t line = 0;
  uint32_t column = 0;
};

class Value {
 public:
  // Scalars carry the type a Kubernetes decoder would give them: YAML plain
  // scalars are resolved the way sigs.k8s.io/yaml (go-yaml, YAML 1.1) resolves
  // them, quoted scalars are always strings.
  enum class Type : uint8_t { kNull, kBool, kInt, kFloat, kString, kSequence, kMapping };
  using Member = std::pair<std::string, Value>;

  Value() = default;
  explicit Value(Type type) : type_(type) {}
  static Value Scalar(Type type, std::string text, Mark mark = {}) {
    Value v(type);
    v.text_ = std::move(text);
    v.mark_ = mark;
    return v;
  }
  static Value String(std::string text, Mark mark = {}) {
    return Scalar(Type::kString, std::move(text), mark);
  }

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::kNull; }
  bool is_string() const { return type_ == Type::kString; }
  bool is_scalar() const { return type_ != Type::kSequence && type_ != Type::kMapping; }
  bool is_sequence() const { return type_ == Type::kSequence; }
  bool is_mapping() const { return type_ == Type::kMapping; }
  // A number, bool or string: its text as a JSON decoder would hand it to Go
  // (ints in decimal, "true"/"false" for bools, the string itself for strings).
  const std::string& text() const { return text_; }
  const Mark& mark() const { return mark_; }

  const std::vector<Value>& items() const { return items_; }
  const std::vector<Member>& members() const { return members_; }
  std::vector<Value>& mutable_items() { return items_; }
  std::vector<Member>& mutable_members() { return members_; }
  void set_mark(Mark mark) { mark_ = mark; }
  void set_text(std::string text) { text_ = std::move(text); }

  // The member's value, or nullptr when this is not a mapping or has no such key.
  const Value* Find(std::string_view key) const {
    if (type_ != Type::kMapping) return nullptr;
    for (const Member& m : members_)
      if (m.first == key) return &m.second;
    return nullptr;
  }
  // The string at `key`, or `fallback` when absent or not a string.
  std::string_view StringAt(std::string_view key, std::string_view fallback = {}) const {
    const Value* v = Find(key);
    return v && v->is_string() ? std::string_view(v->text()) : fallback;
  }

 private:
  Type type_ = Type::kNull;
  Mark mark_;
  std::string text_;
  std::vector<Value> items_;
  std::vector<Member> members_;
};

const char* TypeName(Value::Type type);  // "null", "bool", "int", "float", "string", ...

// Compact JSON text of a value (strings escaped per RFC 8259, numbers and
// bools as their text, mappings in member order).
std::string ToJson(const Value& value);
// Appends `s` as a JSON string literal, quotes included.
void AppendJsonString(std::string_view s, std::string* out);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_BASE_VALUE_H_
