// The engine's object tree: what a YAML document or a JSON body becomes before any
// rule sees it, so the CLI and the webhook cannot disagree.
#ifndef GPULINT_ENGINE_BASE_VALUE_H_
#define GPULINT_ENGINE_BASE_VALUE_H_

#include <cstdint>
#include <new>
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

// A node of the tree: a scalar (its text) or a container (its items or
// members), tagged by its type. Only the storage its type needs is held, in
// one union, so that a value costs 48 bytes where the three side-by-side
// fields it replaced cost 96 (bench/value_tree: bytes per value), which is
// most of what a large AdmissionReview costs the webhook.
class Value {
 public:
  // Scalars carry the type a Kubernetes decoder would give them: YAML plain
  // scalars are resolved the way sigs.k8s.io/yaml (go-yaml, YAML 1.1) resolves
  // them, quoted scalars are always strings.
  enum class Type : uint8_t { kNull, kBool, kInt, kFloat, kString, kSequence, kMapping };
  using Member = std::pair<std::string, Value>;

  Value() noexcept : type_(Type::kNull) { new (&text_) std::string(); }
  // An empty container, or a scalar with no text.
  explicit Value(Type type) noexcept : type_(type) {
    switch (type) {
      case Type::kSequence: new (&items_) std::vector<Value>(); break;
      case Type::kMapping: new (&members_) std::vector<Member>(); break;
      default: new (&text_) std::string(); break;
    }
  }
  Value(const Value& other);
  Value(Value&& other) noexcept : mark_(other.mark_), type_(other.type_) {
    MoveFrom(std::move(other));
  }
  Value& operator=(const Value& other);
  Value& operator=(Value&& other) noexcept;
  ~Value() { Destroy(); }

  // A scalar of `type` (a container type makes the empty container; the text
  // is then dropped, as a container has none).
  static Value Scalar(Type type, std::string text, Mark mark = {}) {
    Value v(type);
    if (v.holds_text()) v.text_ = std::move(text);
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
  // Empty for a container.
  const std::string& text() const { return holds_text() ? text_ : EmptyText(); }
  const Mark& mark() const { return mark_; }

  // A sequence's items and a mapping's members; empty for any other type.
  const std::vector<Value>& items() const { return is_sequence() ? items_ : EmptyItems(); }
  const std::vector<Member>& members() const { return is_mapping() ? members_ : EmptyMembers(); }
  // For a value of another type, a vector that nothing reads and the next
  // call empties: what is written there is lost. So it was when every value
  // held all three fields: readers look at the type first, and no writer
  // relies on it (each checks the type, or made the value itself).
  std::vector<Value>& mutable_items() { return is_sequence() ? items_ : DiscardedItems(); }
  std::vector<Member>& mutable_members() { return is_mapping() ? members_ : DiscardedMembers(); }
  void set_mark(Mark mark) { mark_ = mark; }
  // Only a scalar has text: on a container this does nothing.
  void set_text(std::string text) {
    if (holds_text()) text_ = std::move(text);
  }

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
  bool holds_text() const { return is_scalar(); }
  // No child of this value could be `other`: it has none.
  bool childless() const {
    return is_scalar() || (is_sequence() ? items_.empty() : members_.empty());
  }
  void Destroy() noexcept {
    switch (type_) {
      case Type::kSequence: items_.~vector(); break;
      case Type::kMapping: members_.~vector(); break;
      default: text_.~basic_string(); break;
    }
  }
  // Into a value whose storage is gone (or was never made), of other's type.
  void MoveFrom(Value&& other) noexcept {
    switch (type_) {
      case Type::kSequence: new (&items_) std::vector<Value>(std::move(other.items_)); break;
      case Type::kMapping: new (&members_) std::vector<Member>(std::move(other.members_)); break;
      default: new (&text_) std::string(std::move(other.text_)); break;
    }
  }
  static const std::string& EmptyText();
  static const std::vector<Value>& EmptyItems();
  static const std::vector<Member>& EmptyMembers();
  static std::vector<Value>& DiscardedItems();
  static std::vector<Member>& DiscardedMembers();

  // Which member is alive follows from type_: text_ for the scalars (null
  // included), items_ for a sequence, members_ for a mapping.
  union {
    std::string text_;
    std::vector<Value> items_;
    std::vector<Member> members_;
  };
  Mark mark_;
  Type type_;
};

// Inline: the parsers move every value two or three times.
inline Value& Value::operator=(Value&& other) noexcept {
  if (this == &other) return *this;
  if (childless()) {
    Destroy();
    mark_ = other.mark_;
    type_ = other.type_;
    MoveFrom(std::move(other));
    return *this;
  }
  // `other` may live inside this value (a tree assigned one of its own
  // children) and would die with it: take it out first.
  Value taken(std::move(other));
  Destroy();
  mark_ = taken.mark_;
  type_ = taken.type_;
  MoveFrom(std::move(taken));
  return *this;
}

const char* TypeName(Value::Type type);  // "null", "bool", "int", "float", "string", ...

// Compact JSON text of a value (strings escaped per RFC 8259, numbers and
// bools as their text, mappings in member order).
std::string ToJson(const Value& value);
// Appends `s` as a JSON string literal, quotes included.
void AppendJsonString(std::string_view s, std::string* out);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_BASE_VALUE_H_
