#include "engine/base/value.h"

#include <cstddef>
#include <new>
#include <utility>

namespace gpulint {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

size_t SkipDigits(std::string_view s, size_t i) {
  while (i < s.size() && IsDigit(s[i])) ++i;
  return i;
}

// RFC 8259: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?
bool IsJsonNumber(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && s[i] == '-') ++i;
  if (i >= s.size() || !IsDigit(s[i])) return false;
  i = s[i] == '0' ? i + 1 : SkipDigits(s, i);
  if (i < s.size() && s[i] == '.') {
    size_t j = SkipDigits(s, i + 1);
    if (j == i + 1) return false;
    i = j;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t j = SkipDigits(s, i);
    if (j == i) return false;
    i = j;
  }
  return i == s.size();
}

// YAML accepts number forms JSON does not (`+1.5`, `.5`, `1.`, `007.5`).
// Rewrites such a text as the same number in JSON syntax; false when the text
// is no finite decimal number at all (`.inf`, `.nan`), which JSON cannot hold.
bool NormalizeNumber(std::string_view s, std::string* out) {
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  size_t int_begin = i;
  i = SkipDigits(s, i);
  std::string_view int_digits = s.substr(int_begin, i - int_begin);
  std::string_view frac_digits;
  if (i < s.size() && s[i] == '.') {
    size_t j = SkipDigits(s, i + 1);
    frac_digits = s.substr(i + 1, j - i - 1);
    i = j;
  }
  if (int_digits.empty() && frac_digits.empty()) return false;
  std::string_view exponent;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    size_t k = SkipDigits(s, j);
    if (k == j) return false;
    exponent = s.substr(i, k - i);
    i = k;
  }
  if (i != s.size()) return false;
  while (int_digits.size() > 1 && int_digits[0] == '0') int_digits.remove_prefix(1);
  if (negative) *out += '-';
  if (int_digits.empty()) {
    *out += '0';
  } else {
    out->append(int_digits);
  }
  if (!frac_digits.empty()) {
    *out += '.';
    out->append(frac_digits);
  }
  out->append(exponent);
  return true;
}

void AppendScalar(const Value& v, std::string* out) {
  const std::string& text = v.text();
  switch (v.type()) {
    case Value::Type::kNull:
      out->append("null");
      return;
    case Value::Type::kBool:
      if (text == "true" || text == "false") {
        out->append(text);
        return;
      }
      break;
    case Value::Type::kInt:
    case Value::Type::kFloat:
      if (IsJsonNumber(text)) {
        out->append(text);
        return;
      }
      if (NormalizeNumber(text, out)) return;
      break;
    default:
      break;
  }
  AppendJsonString(text, out);
}

// Length of the valid UTF-8 sequence at s[i] (a non-ASCII lead byte), or 0.
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n;
  uint32_t min;
  uint32_t cp;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2, min = 0x80, cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3, min = 0x800, cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4, min = 0x10000, cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    unsigned char cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

}  // namespace

Value::Value(const Value& other) : mark_(other.mark_), type_(other.type_) {
  switch (type_) {
    case Type::kSequence: new (&items_) std::vector<Value>(other.items_); break;
    case Type::kMapping: new (&members_) std::vector<Member>(other.members_); break;
    default: new (&text_) std::string(other.text_); break;
  }
}

// Through a copy: `other` may live inside this value (a tree assigned one of
// its own children), and would die with it.
Value& Value::operator=(const Value& other) {
  if (this == &other) return *this;
  Value copy(other);
  return *this = std::move(copy);
}

const std::string& Value::EmptyText() {
  static const std::string* empty = new std::string();
  return *empty;
}
const std::vector<Value>& Value::EmptyItems() {
  static const std::vector<Value>* empty = new std::vector<Value>();
  return *empty;
}
const std::vector<Value::Member>& Value::EmptyMembers() {
  static const std::vector<Member>* empty = new std::vector<Member>();
  return *empty;
}
std::vector<Value>& Value::DiscardedItems() {
  thread_local std::vector<Value> discarded;
  discarded.clear();
  return discarded;
}
std::vector<Value::Member>& Value::DiscardedMembers() {
  thread_local std::vector<Member> discarded;
  discarded.clear();
  return discarded;
}

const char* TypeName(Value::Type type) {
  switch (type) {
    case Value::Type::kNull:
      return "null";
    case Value::Type::kBool:
      return "bool";
    case Value::Type::kInt:
      return "int";
    case Value::Type::kFloat:
      return "float";
    case Value::Type::kString:
      return "string";
    case Value::Type::kSequence:
      return "sequence";
    case Value::Type::kMapping:
      return "mapping";
  }
  return "unknown";
}

void AppendJsonString(std::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->reserve(out->size() + s.size() + 2);
  *out += '"';
  size_t run = 0;  // start of the bytes that need no escaping
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      size_t n = Utf8SequenceLength(s, i);
      if (n != 0) {
        i += n;
        continue;
      }
    }
    out->append(s.substr(run, i - run));
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\b':
        out->append("\\b");
        break;
      case '\f':
        out->append("\\f");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        if (c < 0x20) {
          out->append("\\u00");
          *out += kHex[c >> 4];
          *out += kHex[c & 0xF];
        } else {
          // Not UTF-8: JSON text must be, so say so the way Go's encoder does.
          out->append("\\ufffd");
        }
    }
    run = ++i;
  }
  out->append(s.substr(run));
  *out += '"';
}

// Iterative so that no tree, however it was built, can exhaust the stack.
std::string ToJson(const Value& value) {
  struct Open {
    const Value* value;
    size_t next;
  };
  std::string out;
  std::vector<Open> stack;
  const Value* v = &value;
  while (true) {
    if (v != nullptr) {
      if (v->is_sequence()) {
        out += '[';
        stack.push_back({v, 0});
      } else if (v->is_mapping()) {
        out += '{';
        stack.push_back({v, 0});
      } else {
        AppendScalar(*v, &out);
      }
      v = nullptr;
    }
    if (stack.empty()) break;
    Open& top = stack.back();
    if (top.value->is_sequence()) {
      const std::vector<Value>& items = top.value->items();
      if (top.next == items.size()) {
        out += ']';
        stack.pop_back();
        continue;
      }
      if (top.next != 0) out += ',';
      v = &items[top.next++];
    } else {
      const std::vector<Value::Member>& members = top.value->members();
      if (top.next == members.size()) {
        out += '}';
        stack.pop_back();
        continue;
      }
      if (top.next != 0) out += ',';
      const Value::Member& m = members[top.next++];
      AppendJsonString(m.first, &out);
      out += ':';
      v = &m.second;
    }
  }
  return out;
}

}  // namespace gpulint
