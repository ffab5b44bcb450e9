// Parsing, arithmetic and rounding of Quantity. Behaviour follows
// k8s.io/apimachinery/pkg/api/resource (quantity.go, suffix.go, amount.go); the
// value is exact, in nano-units, so no big-decimal type is needed below 10^29.
#include "engine/quantity/quantity.h"

#include <cctype>
#include <limits>
#include <string>

#include "engine/quantity/quantity_internal.h"

namespace gpulint {

using quantity_internal::kNanoPerUnit;
using quantity_internal::Magnitude;
using quantity_internal::uint128;

namespace {

// Results that would overflow 128 bits saturate here; the bound is symmetric
// so that negation never overflows.
constexpr int128 kSaturated = std::numeric_limits<int128>::max();
// Parse does not evaluate magnitudes of 10^29 units (10^38 nano) or more.
constexpr uint128 kParseLimitNano =
    uint128(10'000'000'000'000'000'000ull) * 10'000'000'000'000'000'000ull;
// Kubernetes caps BinarySI values at 2^63-1 units.
constexpr uint128 kBinaryCapNano = uint128(std::numeric_limits<int64_t>::max()) * kNanoPerUnit;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The characters parseQuantityString lets into a suffix before an exponent's digits.
bool IsSuffixChar(char c) {
  return std::string_view("eEinumkKMGTP").find(c) != std::string_view::npos;
}

int128 Clamp(int128 v) { return v < -kSaturated ? -kSaturated : v; }

int128 Signed(uint128 magnitude, bool negative) {
  int128 v = magnitude > uint128(kSaturated) ? kSaturated : static_cast<int128>(magnitude);
  return negative ? -v : v;
}

// Digits as an integer; false on overflow. Linear in the length, so absurdly
// long inputs cost no more than reading them.
bool DigitsValue(std::string_view digits, uint128* out) {
  uint128 v = 0;
  for (char c : digits)
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, uint128(c - '0'), &v))
      return false;
  *out = v;
  return true;
}

// floor(0.<leading zeros><digits> × 2^bits) and whether anything is left over.
// Multiplying the fraction's digits by 2^bits from the right keeps it exact:
// the carry out of the top is the integer part.
uint128 FractionTimesPow2(std::string_view digits, int64_t leading_zeros, int bits, bool* inexact) {
  *inexact = false;
  bool nonzero = digits.find_first_not_of('0') != std::string_view::npos;
  // Below 10^-20, times at most 2^60, the product is under 1: only "nonzero" matters.
  if (leading_zeros > 20) {
    *inexact = nonzero;
    return 0;
  }
  uint128 carry = 0;
  auto step = [&](int digit) {
    uint128 t = (uint128(digit) << bits) + carry;
    if (t % 10 != 0) *inexact = true;
    carry = t / 10;
  };
  for (size_t i = digits.size(); i-- > 0;) step(digits[i] - '0');
  for (int64_t i = 0; i < leading_zeros; ++i) step(0);
  return carry;
}

// |digits × 10^shift × 2^bits| in nano-units, rounded up as Kubernetes rounds
// (inf.RoundUp: away from zero). False when it does not fit 128 bits.
bool NanoMagnitude(std::string_view digits, int64_t shift, int bits, uint128* out) {
  uint128 v = 0;
  if (shift >= 0) {
    if (!DigitsValue(digits, &v)) return false;
    for (int64_t i = 0; i < shift && v != 0; ++i)
      if (__builtin_mul_overflow(v, 10, &v)) return false;
    if (v != 0 && bits > 0 && (v >> (128 - bits)) != 0) return false;
    *out = v << bits;
    return true;
  }
  // The last `drop` digits (and `leading_zeros` implicit zeros before them)
  // are below one nano-unit.
  uint64_t drop = static_cast<uint64_t>(-shift);
  size_t keep = digits.size() > drop ? digits.size() - drop : 0;
  int64_t leading_zeros = digits.size() >= drop ? 0 : static_cast<int64_t>(drop - digits.size());
  if (!DigitsValue(digits.substr(0, keep), &v)) return false;
  if (v != 0 && bits > 0 && (v >> (128 - bits)) != 0) return false;
  v <<= bits;
  bool inexact = false;
  uint128 part = FractionTimesPow2(digits.substr(keep), leading_zeros, bits, &inexact);
  if (__builtin_add_overflow(v, part + (inexact ? 1 : 0), &v)) return false;
  *out = v;
  return true;
}

// Kubernetes reads the number through two paths. Its fast path turns a number
// with no digits at all ("Gi", ".", "-") into zero; its slow path (binary
// exponents of Pi and up, or decimal scales below nano) refuses it.
bool KubernetesAcceptsNoDigits(const quantity_internal::SuffixMeaning& m) {
  return m.base == 2 ? m.exponent <= 40 : m.exponent >= -9;
}

QuantityError Unrepresentable() {
  QuantityError e;
  e.code = QuantityError::Code::kUnrepresentable;
  e.message = "quantity is too large to evaluate exactly (a magnitude of 10^29 or more)";
  return e;
}

}  // namespace

namespace quantity_internal {

// Parses ParseInt-style "[+-]digits" into an int64; false on syntax or overflow.
bool ParseInt64(std::string_view s, int64_t* out) {
  bool negative = !s.empty() && s[0] == '-';
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  if (s.empty()) return false;
  uint128 v = 0;
  for (char c : s) {
    if (!IsDigit(c)) return false;
    v = v * 10 + uint128(c - '0');
    if (v > uint128(std::numeric_limits<int64_t>::max()) + 1) return false;
  }
  if (!negative && v > uint128(std::numeric_limits<int64_t>::max())) return false;
  *out = negative ? static_cast<int64_t>(-static_cast<int128>(v)) : static_cast<int64_t>(v);
  return true;
}

bool SplitQuantity(std::string_view s, Parts* p) {
  *p = Parts{};
  size_t pos = 0;
  const size_t end = s.size();
  if (pos < end && (s[0] == '-' || s[0] == '+')) p->negative = s[pos++] == '-';
  while (pos < end && s[pos] == '0') {
    ++pos;
    p->has_digits = true;
  }
  if (pos == end) return true;
  size_t start = pos;
  while (pos < end && IsDigit(s[pos])) ++pos;
  p->whole = s.substr(start, pos - start);
  if (pos < end && s[pos] == '.') {
    start = ++pos;
    while (pos < end && IsDigit(s[pos])) ++pos;
    p->fraction = s.substr(start, pos - start);
  }
  if (!p->whole.empty() || !p->fraction.empty()) p->has_digits = true;
  const size_t suffix_start = pos;
  while (pos < end && IsSuffixChar(s[pos])) ++pos;
  if (pos < end && (s[pos] == '-' || s[pos] == '+')) ++pos;
  while (pos < end && IsDigit(s[pos])) ++pos;
  if (pos != end) return false;
  p->suffix = s.substr(suffix_start);
  return true;
}

bool InterpretSuffix(std::string_view s, SuffixMeaning* m) {
  static constexpr std::string_view kDecimal[] = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
  static constexpr std::string_view kBinary[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  for (int i = 0; i < 10; ++i)
    if (s == kDecimal[i]) {
      *m = {10, 3 * i - 9, QuantityFormat::kDecimalSI};
      return true;
    }
  for (int i = 0; i < 6; ++i)
    if (s == kBinary[i]) {
      *m = {2, 10 * (i + 1), QuantityFormat::kBinarySI};
      return true;
    }
  // suffix.go reads the exponent as an int64 and keeps it as an int32: one
  // past that range wraps (kube-apiserver 1.36 stores "1e4294967297" as 10).
  int64_t exponent = 0;
  if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E') && ParseInt64(s.substr(1), &exponent)) {
    *m = {10, static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(exponent))),
          QuantityFormat::kDecimalExponent};
    return true;
  }
  return false;
}

std::string ToDecimal(uint128 v) {
  std::string out;
  do {
    out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v != 0);
  return out;
}

}  // namespace quantity_internal

bool Quantity::Parse(std::string_view text, Quantity* out, QuantityError* error) {
  quantity_internal::Parts parts;
  quantity_internal::SuffixMeaning meaning;
  if (text.empty() || !quantity_internal::SplitQuantity(text, &parts) ||
      !quantity_internal::InterpretSuffix(parts.suffix, &meaning) ||
      (!parts.has_digits && !KubernetesAcceptsNoDigits(meaning))) {
    if (error) *error = quantity_internal::Diagnose(text);
    return false;
  }
  std::string digits;
  digits.reserve(parts.whole.size() + parts.fraction.size());
  digits.append(parts.whole).append(parts.fraction);
  const bool binary = meaning.base == 2;
  int64_t shift = (binary ? 0 : meaning.exponent) - static_cast<int64_t>(parts.fraction.size()) + 9;
  uint128 magnitude = 0;
  bool fits =
      NanoMagnitude(digits, shift, binary ? static_cast<int>(meaning.exponent) : 0, &magnitude);
  QuantityFormat format = meaning.format;
  if (binary) {
    if (!fits || magnitude > kBinaryCapNano) magnitude = kBinaryCapNano;
    // Kubernetes: "This avoids rounding and hopefully confusion, too."
    if (magnitude > 0 && magnitude < uint128(kNanoPerUnit)) format = QuantityFormat::kDecimalSI;
  } else if (!fits || magnitude >= kParseLimitNano) {
    if (error) *error = Unrepresentable();
    return false;
  }
  if (out) {
    out->nano_ = Signed(magnitude, parts.negative);
    out->format_ = format;
  }
  if (error) *error = QuantityError{};
  return true;
}

Quantity Quantity::FromNano(int128 nano, QuantityFormat format) {
  Quantity q;
  q.nano_ = Clamp(nano);
  q.format_ = format;
  return q;
}

Quantity Quantity::FromInt(int64_t value, QuantityFormat format) {
  return FromNano(int128(value) * kNanoPerUnit, format);
}

bool Quantity::is_whole() const { return nano_ % kNanoPerUnit == 0; }

namespace {

// nano / divisor, rounded away from zero, saturated to int64.
int64_t ScaledInt64(int128 nano, int128 divisor) {
  uint128 mag = Magnitude(nano);
  uint128 q = mag / uint128(divisor) + (mag % uint128(divisor) != 0 ? 1 : 0);
  if (nano < 0) {
    uint128 limit = uint128(std::numeric_limits<int64_t>::max()) + 1;
    return q >= limit ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(q);
  }
  return q > uint128(std::numeric_limits<int64_t>::max()) ? std::numeric_limits<int64_t>::max()
                                                          : static_cast<int64_t>(q);
}

}  // namespace

int64_t Quantity::Value() const { return ScaledInt64(nano_, kNanoPerUnit); }

int64_t Quantity::MilliValue() const { return ScaledInt64(nano_, 1'000'000); }

Quantity Quantity::RoundedUp(int scale) const {
  if (scale <= -9 || nano_ == 0) return *this;
  Quantity q = *this;
  uint128 mag = Magnitude(nano_);
  // A step of 10^39 nano or more is past every representable value.
  if (scale > 29) {
    q.nano_ = Signed(~uint128(0), nano_ < 0);
    return q;
  }
  uint128 unit = 1;
  for (int i = 0; i < scale + 9; ++i) unit *= 10;
  uint128 steps = mag / unit + (mag % unit != 0 ? 1 : 0);
  uint128 rounded = 0;
  if (__builtin_mul_overflow(steps, unit, &rounded)) rounded = ~uint128(0);
  q.nano_ = Signed(rounded, nano_ < 0);
  return q;
}

Quantity Quantity::operator+(const Quantity& o) const {
  int128 sum = 0;
  if (__builtin_add_overflow(nano_, o.nano_, &sum)) sum = nano_ > 0 ? kSaturated : -kSaturated;
  // As Kubernetes' Add: a zero takes the other side's format, so a running
  // total that starts at 0 prints "1536Mi", not "1610612736".
  return FromNano(sum, nano_ == 0 ? o.format_ : format_);
}

Quantity Quantity::operator-(const Quantity& o) const { return *this + (-o); }

Quantity Quantity::operator*(int64_t k) const {
  int128 product = 0;
  if (__builtin_mul_overflow(nano_, int128(k), &product))
    product = (nano_ < 0) != (k < 0) ? -kSaturated : kSaturated;
  return FromNano(product, format_);
}

Quantity Quantity::operator-() const { return FromNano(-nano_, format_); }

Quantity Quantity::ScaledUp(int64_t numerator, int64_t denominator) const {
  // Dividing by zero has no meaningful answer; the value is returned as is.
  if (denominator == 0) return *this;
  bool negative = ((nano_ < 0) != (numerator < 0)) != (denominator < 0);
  uint128 a = Magnitude(nano_);
  uint128 n = Magnitude(numerator);
  uint128 d = Magnitude(denominator);
  // a×n/d = (a/d)×n + (a%d)×n/d; (a%d)×n < 2^126, so only the first term can overflow.
  uint128 rem_product = (a % d) * n;
  uint128 result = 0;
  bool overflow = __builtin_mul_overflow(a / d, n, &result) ||
                  __builtin_add_overflow(result, rem_product / d, &result) ||
                  __builtin_add_overflow(result, uint128(rem_product % d != 0 ? 1 : 0), &result);
  if (overflow) result = ~uint128(0);
  return FromNano(Signed(result, negative), format_);
}

UnitSystem UnitSystemOf(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  quantity_internal::Parts parts;
  quantity_internal::SuffixMeaning meaning;
  if (text.empty() || !quantity_internal::SplitQuantity(text, &parts) ||
      !quantity_internal::InterpretSuffix(parts.suffix, &meaning))
    return UnitSystem::kNone;
  if (meaning.base == 2) return UnitSystem::kBinary;
  if (meaning.format == QuantityFormat::kDecimalExponent || meaning.exponent > 0)
    return UnitSystem::kDecimal;
  return UnitSystem::kNone;
}

}  // namespace gpulint
