#include "engine/base/decoder.h"

#include <algorithm>
#include <charconv>

#include "engine/base/edit_distance.h"
#include "engine/base/path.h"

namespace gpulint {
namespace {

// How a value shows up in "got ..." of a type error.
std::string Describe(const Value& v) {
  switch (v.type()) {
    case Value::Type::kNull:
      return "null";
    case Value::Type::kMapping:
      return "a mapping";
    case Value::Type::kSequence:
      return "a sequence";
    case Value::Type::kString:
      return "string \"" + v.text() + "\"";
    default:
      return std::string(TypeName(v.type())) + " " + v.text();
  }
}

}  // namespace

bool StrictDecoder::Fail(const Value& at, std::string_view path, std::string_view message) {
  errors_.push_back(
      Error{file_, at.mark(),
            path.empty() ? std::string(message) : std::string(path) + ": " + std::string(message)});
  if (first_ && errors_.size() == 1) *first_ = errors_.front();
  return false;
}

bool StrictDecoder::WrongType(const Value& v, std::string_view path, std::string_view expected) {
  std::string message = "expected " + std::string(expected) + ", got " + Describe(v);
  // Labels and names read as numbers or booleans are the usual slip: say how
  // to keep them strings. A boolean's spelling is gone by now ("n" and "off"
  // both read as false), so name the words instead.
  if (expected == "a string" && v.type() == Value::Type::kBool)
    message += " (YAML reads y, n, yes, no, on and off as booleans: quote the value)";
  else if (expected == "a string" && v.is_scalar() && !v.is_null())
    message += " (quote it: \"" + v.text() + "\")";
  return Fail(v, path, message);
}

bool StrictDecoder::ExpectMapping(const Value& v, std::string_view path) {
  if (v.is_mapping() || v.is_null()) return true;
  return WrongType(v, path, "a mapping");
}

bool StrictDecoder::ExpectSequence(const Value& v, std::string_view path) {
  if (v.is_sequence() || v.is_null()) return true;
  return WrongType(v, path, "a sequence");
}

bool StrictDecoder::ExpectFields(const Value& v, std::string_view path,
                                 const std::vector<std::string_view>& names) {
  if (!ExpectMapping(v, path)) return false;
  bool ok = true;
  for (const auto& [key, child] : v.members()) {
    if (std::find(names.begin(), names.end(), key) != names.end()) continue;
    std::string message = "unknown field \"" + key + "\"";
    std::string closest = ClosestWord(key, names);
    if (!closest.empty()) message += " (did you mean \"" + closest + "\"?)";
    ok = Fail(child, path, message);
  }
  return ok;
}

bool StrictDecoder::ReadString(const Value& v, std::string_view path, std::string* out) {
  if (!v.is_string()) return WrongType(v, path, "a string");
  *out = v.text();
  return true;
}

bool StrictDecoder::ReadNonEmptyString(const Value& v, std::string_view path, std::string* out) {
  if (!ReadString(v, path, out)) return false;
  if (out->empty()) return Fail(v, path, "must not be empty");
  return true;
}

bool StrictDecoder::ReadBool(const Value& v, std::string_view path, bool* out) {
  if (v.type() != Value::Type::kBool) return WrongType(v, path, "true or false");
  *out = v.text() == "true";
  return true;
}

bool StrictDecoder::ReadInt(const Value& v, std::string_view path, int64_t min, int64_t max,
                            int64_t* out) {
  const std::string& t = v.text();
  // Integers too large for int64 arrive as floats, as in go-yaml; they are
  // whole numbers out of range, not fractions.
  bool integer_text = !t.empty() && t.find_first_not_of("+-0123456789") == std::string::npos;
  bool is_float_integer = v.type() == Value::Type::kFloat && integer_text;
  if (v.type() != Value::Type::kInt && !is_float_integer)
    return WrongType(v, path, "a whole number");
  std::string_view digits = t;
  if (!digits.empty() && digits[0] == '+') digits.remove_prefix(1);
  int64_t n = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  bool parsed = ec == std::errc() && end == digits.data() + digits.size();
  if (!parsed || n < min || n > max)
    return Fail(
        v, path,
        "must be from " + std::to_string(min) + " to " + std::to_string(max) + ", got " + t);
  *out = n;
  return true;
}

bool StrictDecoder::ReadQuantity(const Value& v, std::string_view path, Quantity* out) {
  bool number_or_string = v.type() == Value::Type::kString || v.type() == Value::Type::kInt ||
                          v.type() == Value::Type::kFloat;
  if (!number_or_string) return WrongType(v, path, "a quantity such as \"8Gi\" or \"500m\"");
  QuantityError qe;
  if (Quantity::Parse(v.text(), out, &qe)) return true;
  std::string message = "invalid quantity \"" + v.text() + "\": " + qe.message;
  if (!qe.suggestion.empty()) message += " (" + qe.suggestion + ")";
  return Fail(v, path, message);
}

bool StrictDecoder::ReadPercentMilli(const Value& v, std::string_view path, int64_t* out) {
  const char* kExpected = "a number from 0 to 100 (at most 3 decimals, e.g. 2.5)";
  if (v.type() != Value::Type::kInt && v.type() != Value::Type::kFloat)
    return WrongType(v, path, kExpected);
  const std::string& t = v.text();
  size_t dot = t.find('.');
  std::string whole = t.substr(0, dot);
  std::string fraction = dot == std::string::npos ? "" : t.substr(dot + 1);
  auto all_digits = [](const std::string& s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  bool ok = !whole.empty() && whole.size() <= 3 && all_digits(whole) && all_digits(fraction);
  // Trailing zeros carry no precision ("2.50" is 2.5).
  while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
  ok = ok && fraction.size() <= 3;
  int64_t milli = 0;
  if (ok) {
    fraction.resize(3, '0');
    milli = std::stoll(whole) * 1000 + std::stoll(fraction);
    ok = milli <= 100000;
  }
  if (!ok) return Fail(v, path, "expected " + std::string(kExpected) + ", got " + t);
  *out = milli;
  return true;
}

bool StrictDecoder::ReadStringList(const Value& v, std::string_view path,
                                   std::vector<std::string>* out) {
  if (!ExpectSequence(v, path)) return false;
  out->clear();
  bool ok = true;
  for (size_t i = 0; i < v.items().size(); ++i) {
    std::string s;
    if (ReadNonEmptyString(v.items()[i], std::string(path) + "[" + std::to_string(i) + "]", &s))
      out->push_back(std::move(s));
    else
      ok = false;
  }
  return ok;
}

bool StrictDecoder::ReadStringMap(const Value& v, std::string_view path,
                                  std::map<std::string, std::string>* out) {
  if (!ExpectMapping(v, path)) return false;
  out->clear();
  bool ok = true;
  for (const auto& [key, child] : v.members()) {
    std::string s;
    if (ReadString(child, AppendKey(path, key), &s))
      (*out)[key] = std::move(s);
    else
      ok = false;
  }
  return ok;
}

}  // namespace gpulint
