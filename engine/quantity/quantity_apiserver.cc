// kube-apiserver's reading of a container request, step by step as
// k8s.io/apimachinery's quantity.go, amount.go and suffix.go and the core
// API's defaulting and validation do it, on decimal digit strings.
#include "engine/quantity/quantity_apiserver.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "engine/quantity/quantity_internal.h"

namespace gpulint {
namespace {

using quantity_internal::uint128;

// ±digits × 10^exp; digits hold no leading zero ("0" for zero).
struct Decimal {
  bool negative = false;
  std::string digits = "0";
  int64_t exp = 0;
  bool zero() const { return digits == "0"; }
};

std::string Normalized(std::string digits) {
  size_t first = digits.find_first_not_of('0');
  return first == std::string::npos ? "0" : digits.substr(first);
}

// digits × m, for m < 2^64.
std::string Times(const std::string& digits, uint64_t m) {
  std::string out(digits.size() + 20, '0');
  uint128 carry = 0;
  size_t o = out.size();
  for (size_t i = digits.size(); i-- > 0;) {
    uint128 t = uint128(digits[i] - '0') * m + carry;
    out[--o] = static_cast<char>('0' + static_cast<int>(t % 10));
    carry = t / 10;
  }
  while (carry != 0) {
    out[--o] = static_cast<char>('0' + static_cast<int>(carry % 10));
    carry /= 10;
  }
  return Normalized(out);
}

// |d| rounded up (away from zero) to a multiple of 10^exp, as inf.Dec's
// Round(..., RoundUp): nothing changes when d has no digit below it.
Decimal RoundedUp(Decimal d, int64_t exp) {
  if (d.zero() || d.exp >= exp) return d;
  uint64_t drop = static_cast<uint64_t>(exp - d.exp);
  std::string kept = drop >= d.digits.size() ? "0" : d.digits.substr(0, d.digits.size() - drop);
  bool rest = drop >= d.digits.size() ||
              d.digits.find_first_not_of('0', d.digits.size() - drop) != std::string::npos;
  if (rest) {
    size_t i = kept.size();
    while (i > 0 && kept[i - 1] == '9') kept[--i] = '0';
    if (i == 0) kept.insert(kept.begin(), '1');
    else ++kept[i - 1];
  }
  d.digits = Normalized(kept);
  d.exp = exp;
  return d;
}

// Position of d's leading digit (its number of integer digits when >= 1).
int64_t Order(const Decimal& d) { return static_cast<int64_t>(d.digits.size()) + d.exp; }

// -1, 0 or 1 as |a| is below, equal to or above |b|.
int CompareMagnitude(const Decimal& a, const Decimal& b) {
  if (a.zero() || b.zero()) return a.zero() == b.zero() ? 0 : (a.zero() ? -1 : 1);
  if (Order(a) != Order(b)) return Order(a) < Order(b) ? -1 : 1;
  size_t n = std::max(a.digits.size(), b.digits.size());
  for (size_t i = 0; i < n; ++i) {
    char x = i < a.digits.size() ? a.digits[i] : '0';
    char y = i < b.digits.size() ? b.digits[i] : '0';
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

Decimal Of(uint64_t v) { return {false, std::to_string(v), 0}; }

// Whether d has no fractional part.
bool IsWhole(const Decimal& d) {
  if (d.exp >= 0 || d.zero()) return true;
  size_t frac = static_cast<size_t>(-d.exp);
  return frac < d.digits.size() &&
         d.digits.find_first_not_of('0', d.digits.size() - frac) == std::string::npos;
}

// Plain decimal text of d; past 10^±1000, digits with an exponent.
std::string PlainText(const Decimal& d) {
  std::string sign = d.negative && !d.zero() ? "-" : "";
  if (d.zero()) return "0";
  if (d.exp > 1000 || d.exp < -1000) return sign + d.digits + "e" + std::to_string(d.exp);
  if (d.exp >= 0) return sign + d.digits + std::string(static_cast<size_t>(d.exp), '0');
  size_t frac = static_cast<size_t>(-d.exp);
  std::string digits = d.digits;
  if (digits.size() <= frac) digits.insert(0, frac - digits.size() + 1, '0');
  std::string whole = digits.substr(0, digits.size() - frac);
  std::string part = digits.substr(digits.size() - frac);
  part.erase(part.find_last_not_of('0') + 1);
  return sign + whole + (part.empty() ? "" : "." + part);
}

// amount.go's AsCanonicalBytes: trailing zeros into the exponent, which is
// then brought down to a multiple of 3.
std::pair<std::string, int64_t> CanonicalMantissa(const Decimal& d) {
  std::string digits = d.digits;
  int64_t exp = d.exp;
  size_t last = digits.find_last_not_of('0');
  exp += static_cast<int64_t>(digits.size() - 1 - last);
  digits.erase(last + 1);
  while (exp % 3 != 0) {
    digits += '0';
    --exp;
  }
  return {(d.negative ? "-" : "") + digits, exp};
}

enum class Format { kDecimalExponent, kBinarySI, kDecimalSI };

// Quantity.String() of a value with no text kept: CanonicalizeBytes. A
// decimal exponent outside n..E has no suffix, and none is written.
std::string StringOf(const Decimal& d, Format format) {
  if (d.zero()) return "0";
  // BinarySI: below 1024, or not whole, it is written as DecimalSI.
  if (format == Format::kBinarySI) {
    if (CompareMagnitude(d, Of(1024)) >= 0 && IsWhole(d)) {
      // BinarySI values are capped at 2^63-1: an int64 holds them.
      uint64_t v = std::stoull(PlainText(Decimal{false, d.digits, d.exp}));
      int k = 0;
      while (v % 1024 == 0) {
        v /= 1024;
        ++k;
      }
      static constexpr const char* kSuffixes[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
      return (d.negative ? "-" : "") + std::to_string(v) + kSuffixes[k];
    }
    format = Format::kDecimalSI;
  }
  auto [number, exp] = CanonicalMantissa(d);
  if (format == Format::kDecimalExponent) return exp == 0 ? number : number + "e" + std::to_string(exp);
  static constexpr const char* kSuffixes[] = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
  return exp >= -9 && exp <= 18 ? number + kSuffixes[(exp + 9) / 3] : number;
}

// ParseQuantity's reading: the value, its format, and the text kept as
// written (its fast path keeps a text that is canonical already).
struct Parsed {
  Decimal value;
  Format format = Format::kDecimalSI;
  std::string kept;
  bool int64_amount = false;  // its fast path's int64Amount, with this scale
  int64_t scale = 0;
  int64_t exponent = 0;  // the suffix's power of its base
};

bool ParseQuantity(std::string_view str, Parsed* out) {
  if (str.empty()) return false;
  if (str == "0") {
    out->kept = "0";
    return true;
  }
  quantity_internal::Parts parts;
  if (!quantity_internal::SplitQuantity(str, &parts)) return false;
  quantity_internal::SuffixMeaning m;
  if (!quantity_internal::InterpretSuffix(parts.suffix, &m)) return false;
  const int base = m.base;
  const int64_t exponent = m.exponent;
  Format format = m.format == QuantityFormat::kBinarySI        ? Format::kBinarySI
                  : m.format == QuantityFormat::kDecimalExponent ? Format::kDecimalExponent
                                                                 : Format::kDecimalSI;
  out->exponent = exponent;
  std::string num = parts.whole.empty() ? "0" : std::string(parts.whole);
  std::string denom(parts.fraction);
  // The fast path: an int64 amount, where the digits fit.
  int64_t precision = -1, scale = 0;
  uint64_t mantissa = 1;
  if (format != Format::kBinarySI) {
    scale = exponent;
    precision = 18 - static_cast<int64_t>(num.size() + denom.size());
  } else if (exponent >= 0 && denom.empty()) {
    mantissa = uint64_t{1} << exponent;
    precision = 15 - static_cast<int64_t>(num.size()) -
                static_cast<int64_t>(static_cast<float>(exponent) * 3 / 10) - 1;
  }
  if (precision >= 0) {
    scale -= static_cast<int64_t>(denom.size());
    std::string shifted = num + denom;
    uint128 v = std::stoull(shifted);
    if (scale >= -9 && v * mantissa <= uint128(std::numeric_limits<int64_t>::max())) {
      out->value = {parts.negative, Normalized(std::to_string(static_cast<uint64_t>(v * mantissa))),
                    scale};
      out->format = format;
      out->int64_amount = true;
      out->scale = scale;
      bool canonical = format == Format::kBinarySI
                           ? (v & 7) != 0
                           : scale % 3 == 0 && shifted.size() >= 1 && shifted[0] != '0' &&
                                 (shifted.size() < 3 || shifted.substr(shifted.size() - 3) != "000");
      if (canonical) out->kept = std::string(str);
      return true;
    }
  }
  // The big-decimal path: the number as written, no digit at all refused.
  if (!parts.has_digits) return false;
  Decimal d{parts.negative, Normalized(std::string(parts.whole) + denom),
            -static_cast<int64_t>(denom.size())};
  if (base == 10) {
    d.exp += exponent;
  } else {
    d.digits = Times(d.digits, uint64_t{1} << exponent);
  }
  d = RoundedUp(d, -9);
  if (format == Format::kBinarySI) {
    const Decimal max = Of(std::numeric_limits<int64_t>::max());
    if (CompareMagnitude(d, max) > 0) d = {d.negative, max.digits, 0};
    // "This avoids rounding and hopefully confusion, too."
    if (!d.zero() && CompareMagnitude(d, Of(1)) < 0) format = Format::kDecimalSI;
  }
  out->value = d;
  out->format = format;
  return true;
}

// Length of the white-space character `text` starts with, or 0.
size_t SpaceAt(std::string_view text) {
  if (text.empty()) return 0;
  const unsigned char c = static_cast<unsigned char>(text[0]);
  if (c == ' ' || (c >= '\t' && c <= '\r')) return 1;
  auto starts = [&](std::string_view s) { return text.substr(0, s.size()) == s; };
  if (starts("\xC2\x85") || starts("\xC2\xA0")) return 2;
  if (starts("\xE1\x9A\x80") || starts("\xE2\x80\xA8") || starts("\xE2\x80\xA9") ||
      starts("\xE2\x80\xAF") || starts("\xE2\x81\x9F") || starts("\xE3\x80\x80"))
    return 3;
  // U+2000..U+200A: E2 80 80..8A.
  if (text.size() >= 3 && starts("\xE2\x80") && static_cast<unsigned char>(text[2]) >= 0x80 &&
      static_cast<unsigned char>(text[2]) <= 0x8A)
    return 3;
  return 0;
}

// Length of the white-space character `text` ends with, or 0.
size_t SpaceBefore(std::string_view text) {
  for (size_t len = 1; len <= 3 && len <= text.size(); ++len)
    if (SpaceAt(text.substr(text.size() - len)) == len) return len;
  return 0;
}

}  // namespace

std::string_view TrimGoSpace(std::string_view text) {
  while (size_t n = SpaceAt(text)) text.remove_prefix(n);
  while (size_t n = SpaceBefore(text)) text.remove_suffix(n);
  return text;
}

ApiServerReading ReadAsApiServer(std::string_view text) {
  ApiServerReading r;
  Parsed p;
  if (!ParseQuantity(TrimGoSpace(text), &p)) return r;
  if (p.exponent >= kApiServerTimeoutExponent || p.exponent <= -kApiServerTimeoutExponent) {
    r.outcome = ApiServerReading::Outcome::kTimeout;
    return r;
  }
  r.value = PlainText(p.value);
  r.canonical = p.kept.empty() ? StringOf(p.value, p.format) : p.kept;
  // Defaulting: RoundUp(-3). An int64 amount at milli scale or coarser keeps
  // its text; anything else is written anew.
  if (p.int64_amount && p.scale >= -3) {
    r.stored = r.canonical;
  } else {
    Decimal d = RoundedUp(p.value, -3);
    r.stored = StringOf(d, p.format);
  }
  r.outcome = p.value.negative && !p.value.zero() ? ApiServerReading::Outcome::kNegative
                                                  : ApiServerReading::Outcome::kAccepted;
  return r;
}

}  // namespace gpulint
