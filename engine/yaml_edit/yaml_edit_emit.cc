// Values written as YAML text for an edit: plain scalars where they read back
// as the same string, quotes where they would not, block or flow collections
// in the document's own indentation.
#include <string>

#include "engine/yaml/yaml_scalar.h"
#include "engine/yaml_edit/yaml_edit_internal.h"

namespace gpulint::yaml_edit {
namespace {

bool PrintableAscii(std::string_view s) {
  for (char c : s)
    if (c < 0x20 || c > 0x7e) return false;
  return true;
}

// Whether `s` can be written without quotes and read back as the same string.
// Conservative: quoting something that needed none costs nothing.
bool PlainSafe(std::string_view s, bool flow) {
  if (s.empty() || !PrintableAscii(s) || s.front() == ' ' || s.back() == ' ') return false;
  if (std::string_view("-?:,[]{}#&*!|>'\"%@`").find(s.front()) != std::string_view::npos)
    return false;
  if (s.find(": ") != std::string_view::npos || s.find(" #") != std::string_view::npos ||
      s.back() == ':')
    return false;
  if (flow && s.find_first_of(",[]{}:") != std::string_view::npos) return false;
  Value::Type type;
  std::string text, problem;
  return ResolveScalar(s, "", true, &type, &text, &problem) && type == Value::Type::kString &&
         text == s;
}

// Single quotes take any printable text; line breaks and control characters
// need the escapes of double quotes.
bool SingleQuotable(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) return false;
    // NEL, LS and PS are line breaks to YAML 1.1.
    if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x85) return false;
    if (c == 0xE2 && s.substr(i, 3) >= "\xE2\x80\xA8" && s.substr(i, 3) <= "\xE2\x80\xA9")
      return false;
  }
  return true;
}

std::string SingleQuoted(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

std::string DoubleQuoted(std::string_view s) {
  std::string out;
  AppendJsonString(s, &out);  // JSON's escapes are YAML's too
  return out;
}

std::string Spaces(uint32_t n) { return std::string(n, ' '); }

bool EmptyCollection(const Value& v) {
  return (v.is_mapping() && v.members().empty()) || (v.is_sequence() && v.items().empty());
}

}  // namespace

std::string ScalarText(const Value& v, bool flow, bool json, ScalarStyle prefer) {
  switch (v.type()) {
    case Value::Type::kNull:
      return "null";
    case Value::Type::kBool:
    case Value::Type::kInt:
    case Value::Type::kFloat:
      return v.text();
    default:
      break;
  }
  const std::string& s = v.text();
  if (json || prefer == ScalarStyle::kDouble) return DoubleQuoted(s);
  if (prefer == ScalarStyle::kSingle && SingleQuotable(s)) return SingleQuoted(s);
  if (PlainSafe(s, flow)) return s;
  return SingleQuotable(s) ? SingleQuoted(s) : DoubleQuoted(s);
}

std::string KeyText(std::string_view key, bool flow, bool json) {
  return ScalarText(Value::String(std::string(key)), flow, json, ScalarStyle::kPlain);
}

std::string FlowText(const Value& v, bool json) {
  if (v.is_mapping()) {
    std::string out = "{";
    for (const Value::Member& m : v.members()) {
      if (out.size() > 1) out += ", ";
      out += KeyText(m.first, true, json) + ": " + FlowText(m.second, json);
    }
    return out + "}";
  }
  if (v.is_sequence()) {
    std::string out = "[";
    for (const Value& item : v.items()) {
      if (out.size() > 1) out += ", ";
      out += FlowText(item, json);
    }
    return out + "]";
  }
  return ScalarText(v, true, json, ScalarStyle::kPlain);
}

std::string AfterKey(const Value& v, uint32_t key_column, const Tree& style, bool flow) {
  if (v.is_scalar()) return " " + ScalarText(v, false, false, ScalarStyle::kPlain);
  if (flow || EmptyCollection(v)) return " " + FlowText(v, false);
  std::string out;
  if (v.is_mapping()) {
    uint32_t column = key_column + style.indent;
    for (const Value::Member& m : v.members())
      out += style.newline + Spaces(column) + KeyText(m.first, false, false) + ":" +
             AfterKey(m.second, column, style, false);
  } else {
    uint32_t column = key_column + style.sequence_indent;
    for (const Value& item : v.items())
      out += style.newline + Spaces(column) + "- " + AfterDash(item, column, style, false);
  }
  return out;
}

std::string AfterDash(const Value& v, uint32_t dash_column, const Tree& style, bool flow) {
  if (v.is_scalar()) return ScalarText(v, false, false, ScalarStyle::kPlain);
  if (flow || EmptyCollection(v)) return FlowText(v, false);
  // The entries line up with the first one, written right after the dash.
  uint32_t column = dash_column + 2;
  std::string out;
  if (v.is_mapping()) {
    for (const Value::Member& m : v.members()) {
      if (!out.empty()) out += style.newline + Spaces(column);
      out += KeyText(m.first, false, false) + ":" + AfterKey(m.second, column, style, false);
    }
  } else {
    for (const Value& item : v.items()) {
      if (!out.empty()) out += style.newline + Spaces(column);
      out += "- " + AfterDash(item, column, style, false);
    }
  }
  return out;
}

}  // namespace gpulint::yaml_edit
