#include "engine/yaml/yaml_scalar.h"

#include <charconv>
#include <cstdint>
#include <limits>
#include <system_error>

namespace gpulint {
namespace {

using Type = Value::Type;

constexpr std::string_view kYamlTagPrefix = "tag:yaml.org,2002:";

// go-yaml v2's resolve_map: the spellings YAML 1.1 gives a meaning to.
struct Known {
  std::string_view in;
  Type type;
  std::string_view text;
};
// clang-format off
constexpr Known kKnown[] = {
    {"y", Type::kBool, "true"},       {"Y", Type::kBool, "true"},
    {"yes", Type::kBool, "true"},     {"Yes", Type::kBool, "true"},
    {"YES", Type::kBool, "true"},     {"true", Type::kBool, "true"},
    {"True", Type::kBool, "true"},    {"TRUE", Type::kBool, "true"},
    {"on", Type::kBool, "true"},      {"On", Type::kBool, "true"},
    {"ON", Type::kBool, "true"},      {"n", Type::kBool, "false"},
    {"N", Type::kBool, "false"},      {"no", Type::kBool, "false"},
    {"No", Type::kBool, "false"},     {"NO", Type::kBool, "false"},
    {"false", Type::kBool, "false"},  {"False", Type::kBool, "false"},
    {"FALSE", Type::kBool, "false"},  {"off", Type::kBool, "false"},
    {"Off", Type::kBool, "false"},    {"OFF", Type::kBool, "false"},
    {"", Type::kNull, ""},            {"~", Type::kNull, ""},
    {"null", Type::kNull, ""},        {"Null", Type::kNull, ""},
    {"NULL", Type::kNull, ""},        {".nan", Type::kFloat, ".nan"},
    {".NaN", Type::kFloat, ".NaN"},   {".NAN", Type::kFloat, ".NAN"},
    {".inf", Type::kFloat, ".inf"},   {".Inf", Type::kFloat, ".Inf"},
    {".INF", Type::kFloat, ".INF"},   {"+.inf", Type::kFloat, "+.inf"},
    {"+.Inf", Type::kFloat, "+.Inf"}, {"+.INF", Type::kFloat, "+.INF"},
    {"-.inf", Type::kFloat, "-.inf"}, {"-.Inf", Type::kFloat, "-.Inf"},
    {"-.INF", Type::kFloat, "-.INF"},
};
// clang-format on

constexpr size_t LongestKnown() {
  size_t n = 0;
  for (const Known& k : kKnown) n = k.in.size() > n ? k.in.size() : n;
  return n;
}
constexpr size_t kLongestKnown = LongestKnown();  // 5: "false", "+.inf"

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

size_t SkipDigits(std::string_view s, size_t i) {
  while (i < s.size() && IsDigit(s[i])) ++i;
  return i;
}

int DigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

// Go's strconv.ParseUint(s, 0, 64): 0x/0o/0b prefixes, a leading 0 means octal.
bool ParseGoUint(std::string_view s, uint64_t* out) {
  if (s.empty()) return false;
  int base = 10;
  if (s[0] == '0') {
    char p = s.size() >= 3 ? static_cast<char>(s[1] | 0x20) : '\0';
    base = p == 'x' ? 16 : p == 'b' ? 2 : 8;
    s.remove_prefix(p == 'x' || p == 'b' || p == 'o' ? 2 : 1);
  }
  uint64_t n = 0;
  for (char c : s) {
    int d = DigitValue(c);
    if (d >= base) return false;
    if (n > (std::numeric_limits<uint64_t>::max() - d) / base) return false;
    n = n * base + d;
  }
  *out = n;
  return true;
}

// go-yaml v2 tries strconv.ParseInt(s, 0, 64), then ParseUint (which takes no sign).
bool ResolveInt(std::string_view s, std::string* text) {
  bool has_sign = !s.empty() && (s[0] == '+' || s[0] == '-');
  bool negative = has_sign && s[0] == '-';
  uint64_t magnitude;
  if (!ParseGoUint(has_sign ? s.substr(1) : s, &magnitude)) return false;
  constexpr uint64_t kMaxInt = std::numeric_limits<int64_t>::max();
  if (negative) {
    if (magnitude > kMaxInt + 1) return false;
    *text = magnitude == 0 ? "0" : "-" + std::to_string(magnitude);
    return true;
  }
  if (magnitude > kMaxInt && has_sign) return false;
  *text = std::to_string(magnitude);
  return true;
}

// Roughly floor(log10(|x|)) of a decimal text, enough to tell a huge number
// from a tiny one.
int64_t DecimalMagnitude(std::string_view s) {
  size_t i = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
  while (i < s.size() && s[i] == '0') ++i;
  size_t int_end = SkipDigits(s, i);
  int64_t magnitude = static_cast<int64_t>(int_end - i) - 1;
  size_t k = int_end;
  if (int_end == i && k < s.size() && s[k] == '.') {
    ++k;
    while (k < s.size() && s[k] == '0') ++k;
    magnitude = -static_cast<int64_t>(k - int_end);
  }
  size_t e = s.find_first_of("eE");
  if (e == std::string_view::npos) return magnitude;
  size_t j = e + 1;
  bool negative = j < s.size() && s[j] == '-';
  if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
  int64_t exponent = 0;
  for (; j < s.size() && exponent < 1000000; ++j) exponent = exponent * 10 + (s[j] - '0');
  return magnitude + (negative ? -exponent : exponent);
}

// Go's ParseFloat fails (ErrRange) when a finite-looking text overflows a
// double; underflow to zero is no error.
bool Overflows(std::string_view s) {
  std::string_view digits = !s.empty() && s[0] == '+' ? s.substr(1) : s;
  double d;
  auto result = std::from_chars(digits.data(), digits.data() + digits.size(), d);
  return result.ec == std::errc::result_out_of_range && DecimalMagnitude(s) >= 0;
}

// The text Kubernetes ends up with for a YAML float: go-yaml reads it as a
// float64 and the API server gets it as encoding/json writes that float (the
// shortest text that reads back as the same double, in exponent form below
// 1e-6 and from 1e21). So `-0.30000000000000001` is `-0.3` to the API server
// and must be to us. Only called on text that matched the float form and does
// not overflow.
std::string GoJsonFloatText(std::string_view s) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  double d = 0;
  std::from_chars(s.data(), s.data() + s.size(), d);  // underflow gives 0, as in Go
  double magnitude = d < 0 ? -d : d;
  bool exponent = magnitude != 0 && (magnitude < 1e-6 || magnitude >= 1e21);
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, d,
                              exponent ? std::chars_format::scientific : std::chars_format::fixed);
  std::string text(buffer, result.ptr);
  // encoding/json writes e-07 as e-7 (and keeps e+21).
  size_t n = text.size();
  if (exponent && n >= 4 && text[n - 4] == 'e' && text[n - 3] == '-' && text[n - 2] == '0')
    text.erase(n - 2, 1);
  return text;
}

// go-yaml v2's yamlStyleFloat: ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$
bool IsYamlFloat(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (i < s.size() && s[i] == '.') {
    size_t j = SkipDigits(s, i + 1);
    if (j == i + 1) return false;
    i = j;
  } else {
    size_t j = SkipDigits(s, i);
    if (j == i) return false;
    i = j;
    if (i < s.size() && s[i] == '.') i = SkipDigits(s, i + 1);
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

// What go-yaml v2's resolve() makes of an untagged plain scalar.
Type ResolveImplicit(std::string_view in, std::string* text) {
  char first = in.empty() ? '~' : in[0];
  bool numeric = IsDigit(first) || first == '+' || first == '-';
  if (!numeric) {
    // Most keys and names ("name", "namespace", "nvidia.com/gpu") start with
    // one of these letters: only a float (".5e-3") is longer than the longest
    // spelling of kKnown and still special.
    if ((first != '.' && in.size() > kLongestKnown) ||
        std::string_view("yYnNtTfFoO~.").find(first) == std::string_view::npos) {
      *text = in;
      return Type::kString;
    }
  }
  if (!IsDigit(first) && in.size() <= kLongestKnown) {
    for (const Known& k : kKnown) {
      // Sizes and first bytes first: most words here are keys such as "name".
      if (k.in.size() == in.size() && (in.empty() || k.in[0] == first) && k.in == in) {
        *text = k.text;
        return k.type;
      }
    }
  }
  if (first == '.') {
    // strconv.ParseFloat on the text as written (no '_' allowed there).
    if (IsYamlFloat(in) && !Overflows(in)) {
      *text = GoJsonFloatText(in);
      return Type::kFloat;
    }
    *text = in;
    return Type::kString;
  }
  if (numeric) {
    std::string plain;
    plain.reserve(in.size());
    for (char c : in)
      if (c != '_') plain += c;
    if (ResolveInt(plain, text)) return Type::kInt;
    if (IsYamlFloat(plain) && !Overflows(plain)) {
      *text = GoJsonFloatText(plain);
      return Type::kFloat;
    }
  }
  *text = in;
  return Type::kString;
}

// go-yaml v2's parseTimestamp starts with this check; the formats it then
// tries are all YYYY-M-D with an optional time.
bool LooksLikeTimestamp(std::string_view s) {
  if (s.size() < 8 || SkipDigits(s, 0) != 4 || s[4] != '-') return false;
  size_t i = SkipDigits(s, 5);
  if (i == 5 || i > 7 || i >= s.size() || s[i] != '-') return false;
  size_t j = SkipDigits(s, i + 1);
  if (j == i + 1 || j > i + 3) return false;
  return j == s.size() || s[j] == 'T' || s[j] == 't' || s[j] == ' ';
}

std::string NotValid(std::string_view in, std::string_view tag) {
  constexpr size_t kShown = 40;
  std::string message;
  AppendJsonString(in.substr(0, kShown), &message);
  if (in.size() > kShown) message.insert(message.size() - 1, "...");
  message += " is not a valid !!";
  message += tag;
  return message;
}

}  // namespace

bool ResolveScalar(std::string_view in, std::string_view tag, bool plain, Type* type,
                   std::string* text, std::string* problem) {
  if (tag.empty()) {
    if (plain) {
      *type = ResolveImplicit(in, text);
    } else {
      *type = Type::kString;
      *text = in;
    }
    return true;
  }
  std::string_view name;
  if (tag.substr(0, kYamlTagPrefix.size()) == kYamlTagPrefix) {
    name = tag.substr(kYamlTagPrefix.size());
  }
  Type want;
  if (name == "null") {
    want = Type::kNull;
  } else if (name == "bool") {
    want = Type::kBool;
  } else if (name == "int") {
    want = Type::kInt;
  } else if (name == "float") {
    want = Type::kFloat;
  } else if (name == "timestamp") {
    *type = Type::kString;
    *text = in;
    if (LooksLikeTimestamp(in)) return true;
    *problem = NotValid(in, "timestamp");
    return false;
  } else {
    // !!str, !!binary, !!merge, application tags (`!foo`): a string, as in go-yaml.
    *type = Type::kString;
    *text = in;
    return true;
  }
  // A standard tag re-resolves the text whatever its style (`!!int "10"` is 10).
  Type got = ResolveImplicit(in, text);
  if (got == Type::kInt && want == Type::kFloat) got = Type::kFloat;
  *type = got;
  if (got == want) return true;
  *problem = NotValid(in, name);
  return false;
}

bool IsMergeKey(std::string_view in, std::string_view tag, bool plain) {
  if (in != "<<") return false;
  return (tag.empty() && plain) || tag == "tag:yaml.org,2002:merge";
}

}  // namespace gpulint
