// Why a quantity was refused, and what the person most likely meant. Parse
// decides validity exactly as Kubernetes does; this file only explains a
// refusal, so it may read the text more loosely than the grammar.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "engine/quantity/quantity.h"
#include "engine/quantity/quantity_internal.h"

namespace gpulint::quantity_internal {
namespace {

using Code = QuantityError::Code;

QuantityError Error(Code code, std::string message, std::string suggestion = "") {
  QuantityError e;
  e.code = code;
  e.message = std::move(message);
  e.suggestion = std::move(suggestion);
  return e;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// "did you mean A or B?" over the candidates that parse, each with its size in
// both unit systems when it carries a unit. Empty when none parses.
std::string DidYouMean(const std::vector<std::string>& candidates) {
  std::vector<std::string> shown;
  for (const std::string& text : candidates) {
    Quantity q;
    if (!Quantity::Parse(text, &q, nullptr)) continue;
    std::string s = text;
    if (UnitSystemOf(text) != UnitSystem::kNone) s += " (" + FormatBytes(q) + ")";
    if (std::find(shown.begin(), shown.end(), s) == shown.end()) shown.push_back(std::move(s));
  }
  if (shown.empty()) return "";
  std::string out = "did you mean " + shown[0];
  for (size_t i = 1; i < shown.size(); ++i) out += " or " + shown[i];
  return out + "?";
}

// The whole UTF-8 character at `pos`, so a quoted character is never cut in two.
std::string_view CharAt(std::string_view text, size_t pos) {
  size_t len = 1;
  while (pos + len < text.size() && (static_cast<unsigned char>(text[pos + len]) & 0xC0) == 0x80)
    ++len;
  return text.substr(pos, len);
}

QuantityError Unexpected(std::string_view text, size_t pos) {
  return Error(Code::kFormat, "unexpected \"" + std::string(CharAt(text, pos)) + "\" after \"" +
                                  std::string(text.substr(0, pos)) + "\"");
}

QuantityError SpacesError(std::string_view text) {
  std::string compact;
  for (char c : text)
    if (!IsSpace(c)) compact += c;
  if (compact.empty()) return Error(Code::kEmpty, "quantity is empty");
  QuantityError inner;
  std::string suggestion =
      Quantity::Parse(compact, nullptr, &inner) ? DidYouMean({compact}) : inner.suggestion;
  return Error(Code::kFormat, "spaces are not allowed in a quantity", suggestion);
}

int HexDigit(char c) {
  if (IsDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

QuantityError HexError(std::string_view text, size_t digits_at) {
  std::string_view hex = text.substr(digits_at);
  bool readable = !hex.empty() && hex.size() <= 15;
  uint64_t value = 0;
  for (char c : hex) {
    if (HexDigit(c) < 0) readable = false;
    if (readable) value = value * 16 + static_cast<uint64_t>(HexDigit(c));
  }
  std::string sign = text[0] == '-' ? "-" : "";
  return Error(Code::kFormat, "hexadecimal numbers are not allowed",
               readable ? DidYouMean({sign + std::to_string(value)}) : "");
}

QuantityError CommaError(std::string_view text) {
  std::string as_point(text), without;
  for (char& c : as_point)
    if (c == ',') c = '.';
  for (char c : text)
    if (c != ',') without += c;
  return Error(Code::kFormat, "commas are not allowed in a quantity",
               DidYouMean({as_point, without}));
}

// A suffix was given but no number before it. Kubernetes reads some of these as
// zero ("Gi"); the ones that reach here it refuses.
QuantityError NoNumberError(std::string_view rest) {
  SuffixMeaning meaning;
  if (!rest.empty() && InterpretSuffix(rest, &meaning))
    return Error(Code::kNumeric, "missing number before \"" + std::string(rest) + "\"");
  return Error(Code::kFormat, "a quantity must start with a number");
}

bool IsExponentStart(std::string_view rest) {
  if (rest.empty() || (rest[0] != 'e' && rest[0] != 'E')) return false;
  return rest.size() == 1 || rest[1] == '+' || rest[1] == '-' || IsDigit(rest[1]);
}

QuantityError ExponentError(std::string_view text, size_t at) {
  size_t pos = at + 1;
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) ++pos;
  const size_t digits_at = pos;
  while (pos < text.size() && IsDigit(text[pos])) ++pos;
  if (pos == digits_at)
    return Error(Code::kNumeric, "the exponent after \"" +
                                     std::string(text.substr(at, digits_at - at)) +
                                     "\" has no digits");
  if (pos == text.size())
    return Error(Code::kOutOfRange,
                 "the exponent \"" + std::string(text.substr(at)) + "\" is out of range");
  if (text[pos] == '.') return Error(Code::kNumeric, "the exponent must be a whole number");
  if (IsLetter(text[pos]))
    return Error(Code::kSuffix, "an exponent cannot be combined with the suffix \"" +
                                    std::string(text.substr(pos)) + "\"");
  return Unexpected(text, pos);
}

// Units written the way people write them elsewhere: a case slip ("g", "K",
// "gi") or a trailing byte sign ("GB", "MiB").
QuantityError SuffixError(std::string_view number, std::string_view suffix) {
  const std::string n(number);
  const std::string quoted = "unknown suffix \"" + std::string(suffix) + "\"";
  if (suffix == "B" || suffix == "b")
    return Error(Code::kSuffix, quoted + " (Kubernetes counts bytes with no suffix)",
                 DidYouMean({n}));
  std::string_view rest = suffix.substr(1);
  const char letter = static_cast<char>(std::toupper(static_cast<unsigned char>(suffix[0])));
  const bool has_i = !rest.empty() && (rest[0] == 'i' || rest[0] == 'I');
  if (has_i) rest.remove_prefix(1);
  const bool has_b = !rest.empty() && (rest[0] == 'b' || rest[0] == 'B');
  if (has_b) rest.remove_prefix(1);
  if (std::string_view("KMGTPE").find(letter) == std::string_view::npos || !rest.empty())
    return Error(Code::kSuffix, quoted +
                                    " (use n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei or "
                                    "an exponent such as e3)");
  const std::string binary = n + letter + "i";
  const std::string decimal = n + (letter == 'K' ? 'k' : letter);
  return Error(
      Code::kSuffix,
      quoted + (has_b ? " (Kubernetes units have no \"B\")" : " (suffixes are case-sensitive)"),
      has_i ? DidYouMean({binary}) : DidYouMean({decimal, binary}));
}

}  // namespace

QuantityError Diagnose(std::string_view text) {
  if (text.empty()) return Error(Code::kEmpty, "quantity is empty");
  for (char c : text)
    if (IsSpace(c)) return SpacesError(text);
  size_t pos = 0;
  if (text[0] == '+' || text[0] == '-') ++pos;
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-'))
    return Error(Code::kNumeric, "more than one sign");
  if (pos + 1 < text.size() && text[pos] == '0' && (text[pos + 1] == 'x' || text[pos + 1] == 'X'))
    return HexError(text, pos + 2);
  bool has_digits = false;
  for (bool point = false; pos < text.size(); ++pos) {
    if (IsDigit(text[pos])) {
      has_digits = true;
    } else if (text[pos] == '.' && !point) {
      point = true;
    } else {
      break;
    }
  }
  const std::string_view rest = text.substr(pos);
  if (!rest.empty() && rest[0] == '.') return Error(Code::kFormat, "more than one decimal point");
  if (!rest.empty() && rest[0] == ',') return CommaError(text);
  if (!has_digits) return NoNumberError(rest);
  if (IsExponentStart(rest)) return ExponentError(text, pos);
  if (rest.empty()) return Error(Code::kFormat, "not a valid quantity");
  size_t letters = 0;
  while (letters < rest.size() && IsLetter(rest[letters])) ++letters;
  if (letters == 0 || letters < rest.size()) return Unexpected(text, pos + letters);
  return SuffixError(text.substr(0, pos), rest);
}

}  // namespace gpulint::quantity_internal
