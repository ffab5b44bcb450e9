// Text forms of a Quantity: Kubernetes' canonical form (Quantity.String()),
// the exact decimal, and the both-unit-systems sizes used in messages.
#include <string>

#include "engine/quantity/quantity.h"
#include "engine/quantity/quantity_internal.h"

namespace gpulint {

using quantity_internal::kNanoPerUnit;
using quantity_internal::Magnitude;
using quantity_internal::ToDecimal;
using quantity_internal::uint128;

namespace {

// Base-10 form of `nano`: mantissa × 10^exponent with the exponent a multiple
// of 3 and as large as it can be without losing a digit (amount.go's
// AsCanonicalBytes). Suffixes exist for -9..18.
std::string DecimalCanonical(uint128 nano, bool exponent_form) {
  static constexpr const char* kSuffixes[] = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
  int exponent = -9;
  while (nano % 10 == 0) {
    nano /= 10;
    ++exponent;
  }
  while (exponent % 3 != 0) {
    nano *= 10;
    --exponent;
  }
  std::string out = ToDecimal(nano);
  // Past "E" DecimalSI has no suffix; current Kubernetes falls back to the
  // exponent form there rather than dropping the magnitude (1000E -> "1e21").
  if (!exponent_form && exponent <= 18) return out + kSuffixes[(exponent + 9) / 3];
  if (exponent != 0) out += "e" + std::to_string(exponent);
  return out;
}

// Base-1024 form of a whole number of units, or "" where Kubernetes would not
// use one (past "Ei" there is no suffix; it falls back to the decimal form).
std::string BinaryCanonical(uint128 units) {
  static constexpr const char* kSuffixes[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  int exponent = 0;
  while (units % 1024 == 0) {
    units /= 1024;
    ++exponent;
  }
  if (exponent > 6) return "";
  return ToDecimal(units) + kSuffixes[exponent];
}

// |nano| / unit_bytes to one decimal place, rounded half away from zero, with
// a trailing ".0" dropped. Divides by unit × 10^8 so nothing is multiplied up.
std::string Tenths(uint128 nano, uint128 unit_bytes) {
  uint128 divisor = unit_bytes * 100'000'000;
  uint128 tenths = nano / divisor;
  if ((nano % divisor) * 2 >= divisor) ++tenths;
  std::string out = ToDecimal(tenths / 10);
  if (tenths % 10 != 0) out += "." + std::to_string(static_cast<int>(tenths % 10));
  return out;
}

struct Unit {
  uint128 bytes;
  const char* name;
};

// "1.5 kB" in the largest unit of `units` that keeps the number >= 1, or ""
// below the first one (plain bytes are already shown exactly).
std::string InLargestUnit(uint128 nano, const Unit (&units)[6]) {
  for (int i = 5; i >= 0; --i)
    if (nano >= units[i].bytes * uint128(kNanoPerUnit))
      return Tenths(nano, units[i].bytes) + " " + units[i].name;
  return "";
}

}  // namespace

std::string Quantity::Canonical() const {
  if (nano_ == 0) return "0";
  const uint128 mag = Magnitude(nano_);
  const std::string sign = nano_ < 0 ? "-" : "";
  if (format_ == QuantityFormat::kBinarySI) {
    // Below 1024 or with a fraction, Kubernetes shows BinarySI as DecimalSI.
    if (mag >= 1024 * uint128(kNanoPerUnit) && mag % kNanoPerUnit == 0) {
      std::string binary = BinaryCanonical(mag / kNanoPerUnit);
      if (!binary.empty()) return sign + binary;
      return sign + DecimalCanonical(mag, /*exponent_form=*/true);
    }
    return sign + DecimalCanonical(mag, /*exponent_form=*/false);
  }
  return sign + DecimalCanonical(mag, format_ == QuantityFormat::kDecimalExponent);
}

std::string Quantity::ExactDecimal() const {
  const uint128 mag = Magnitude(nano_);
  std::string out = (nano_ < 0 ? "-" : "") + ToDecimal(mag / kNanoPerUnit);
  uint128 fraction = mag % kNanoPerUnit;
  if (fraction == 0) return out;
  std::string digits = ToDecimal(fraction);
  digits.insert(0, 9 - digits.size(), '0');
  digits.erase(digits.find_last_not_of('0') + 1);
  return out + "." + digits;
}

std::string FormatBytes(const Quantity& bytes) {
  static constexpr uint128 k = 1000;
  static constexpr Unit kDecimalUnits[6] = {{k, "kB"},
                                            {k * k, "MB"},
                                            {k * k * k, "GB"},
                                            {k * k * k * k, "TB"},
                                            {k * k * k * k * k, "PB"},
                                            {k * k * k * k * k * k, "EB"}};
  static constexpr Unit kBinaryUnits[6] = {{uint128(1) << 10, "KiB"}, {uint128(1) << 20, "MiB"},
                                           {uint128(1) << 30, "GiB"}, {uint128(1) << 40, "TiB"},
                                           {uint128(1) << 50, "PiB"}, {uint128(1) << 60, "EiB"}};
  const uint128 mag = Magnitude(bytes.nano());
  const std::string sign = bytes.sign() < 0 ? "-" : "";
  std::string out = bytes.ExactDecimal() + " B";
  for (const auto* units : {&kDecimalUnits, &kBinaryUnits}) {
    std::string part = InLargestUnit(mag, *units);
    if (!part.empty()) out += " = " + sign + part;
  }
  return out;
}

std::string DescribeBytes(const Quantity& bytes) {
  return bytes.Canonical() + " (" + FormatBytes(bytes) + ")";
}

std::string BriefBytes(const Quantity& bytes) {
  std::string both = FormatBytes(bytes);
  std::string canonical = bytes.Canonical();
  bool plain = canonical.find_first_not_of("-0123456789") == std::string::npos;
  if (plain) return both;
  size_t units = both.find(" = ");
  // "500m" is half a byte: the bytes are the only unit it reaches.
  return canonical + " = " + (units == std::string::npos ? both : both.substr(units + 3));
}

std::string DescribeCount(const Quantity& q) {
  if (q.is_whole()) return q.ExactDecimal();
  return q.Canonical() + " (" + q.ExactDecimal() + ")";
}

}  // namespace gpulint
