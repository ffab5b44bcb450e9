// Quantity: a Kubernetes resource quantity, read exactly as
// k8s.io/apimachinery/pkg/api/resource reads it, never through a double.
//
// Grammar (from Kubernetes' quantity.go):
//   <quantity>        ::= <signedNumber><suffix>
//   <signedNumber>    ::= <number> | +<number> | -<number>
//   <number>          ::= <digits> | <digits>.<digits> | <digits>. | .<digits>
//   <suffix>          ::= <binarySI> | <decimalExponent> | <decimalSI>
//   <binarySI>        ::= Ki | Mi | Gi | Ti | Pi | Ei
//   <decimalSI>       ::= n | u | m | "" | k | M | G | T | P | E
//   <decimalExponent> ::= "e" <signedNumber> | "E" <signedNumber>
//
// The value is held as a signed count of nano-units (10^-9) in 128 bits, which is
// Kubernetes' own precision: anything finer is rounded up, away from zero, as
// ParseQuantity does. Binary-SI values are capped at 2^63-1 as Kubernetes caps them.
// Magnitudes of 10^29 or more, which Kubernetes accepts and keeps in a big
// decimal, are not evaluated inexactly: Parse answers kUnrepresentable, and
// callers treat that text as accepted but unknown (see ReadQuantityField).
//
// Parse is ParseQuantity: it refuses surrounding spaces. The API server decodes
// a manifest's field through UnmarshalJSON, which trims them first and reads
// null as zero; ReadQuantityField (engine/workload/quantity_field.h) does the same.
#ifndef GPULINT_ENGINE_QUANTITY_QUANTITY_H_
#define GPULINT_ENGINE_QUANTITY_QUANTITY_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace gpulint {

using int128 = __int128;

enum class QuantityFormat { kDecimalExponent, kBinarySI, kDecimalSI };

struct QuantityError {
  enum class Code {
    kNone,
    kEmpty,          // ""
    kFormat,         // does not match the grammar at all ("abc", "1.5.0", " 1")
    kSuffix,         // a number with a suffix Kubernetes does not know ("500GB", "40g", "1K")
    kNumeric,        // the number part is malformed ("1e", "--1")
    kOutOfRange,     // an exponent outside int32, which Kubernetes refuses ("1e4294967297")
    // Kubernetes accepts it, but its magnitude (10^29 or more) is too large to
    // evaluate exactly here ("1e30").
    kUnrepresentable,
  };
  Code code = Code::kNone;
  std::string message;     // why, in a sentence a person can act on
  std::string suggestion;  // "did you mean ..." (may be empty), with sizes in both unit systems
};

class Quantity {
 public:
  Quantity() = default;

  // Parses `text` with Kubernetes' grammar. On failure returns false and fills
  // *error (if not null); *out is left unchanged. Negative values parse (as in
  // Kubernetes); whether they are allowed is a rule's business.
  static bool Parse(std::string_view text, Quantity* out, QuantityError* error);

  static Quantity FromNano(int128 nano, QuantityFormat format = QuantityFormat::kDecimalSI);
  static Quantity FromInt(int64_t value, QuantityFormat format = QuantityFormat::kDecimalSI);

  int128 nano() const { return nano_; }
  QuantityFormat format() const { return format_; }
  int sign() const { return nano_ > 0 ? 1 : (nano_ < 0 ? -1 : 0); }
  bool is_zero() const { return nano_ == 0; }
  bool is_whole() const;  // no fractional part

  // As Kubernetes' Value() and MilliValue(): rounded up (away from zero), and
  // saturated to the int64 range.
  int64_t Value() const;
  int64_t MilliValue() const;

  // Kubernetes' canonical text (Quantity.String()): "1500m", "1536Mi", "1k", "1e3"...
  std::string Canonical() const;
  // The exact value as a plain decimal: "536870912000", "0.0015", "-2".
  std::string ExactDecimal() const;

  // Rounded up (away from zero) to 10^scale, as Quantity.RoundUp(scale): the
  // API server does RoundUp(-3) on every container resource it stores.
  Quantity RoundedUp(int scale) const;
  // The value the API server stores for a container resource (milli-rounded).
  Quantity Stored() const { return RoundedUp(-3); }

  // Exact arithmetic. The result keeps this quantity's format.
  Quantity operator+(const Quantity& o) const;
  Quantity operator-(const Quantity& o) const;
  Quantity operator*(int64_t k) const;
  Quantity operator-() const;
  // this * numerator / denominator, rounded up (away from zero).
  Quantity ScaledUp(int64_t numerator, int64_t denominator) const;

  friend bool operator==(const Quantity& a, const Quantity& b) { return a.nano_ == b.nano_; }
  friend bool operator!=(const Quantity& a, const Quantity& b) { return a.nano_ != b.nano_; }
  friend bool operator<(const Quantity& a, const Quantity& b) { return a.nano_ < b.nano_; }
  friend bool operator<=(const Quantity& a, const Quantity& b) { return a.nano_ <= b.nano_; }
  friend bool operator>(const Quantity& a, const Quantity& b) { return a.nano_ > b.nano_; }
  friend bool operator>=(const Quantity& a, const Quantity& b) { return a.nano_ >= b.nano_; }

 private:
  int128 nano_ = 0;
  QuantityFormat format_ = QuantityFormat::kDecimalSI;
};

// A size in bytes shown in both unit systems, e.g.
//   "536870912000 B = 536.9 GB = 500 GiB"
// Decimal places are rounded half away from zero from the exact value.
std::string FormatBytes(const Quantity& bytes);
// A size for a message: the quantity as written plus FormatBytes, e.g.
//   "500Gi (536870912000 B = 536.9 GB = 500 GiB)"
std::string DescribeBytes(const Quantity& bytes);
// A size where its exact bytes are given elsewhere (a patch, a sum): the
// quantity as written when it has a suffix, else its bytes, and both unit
// systems: "4Gi = 4.3 GB = 4 GiB", "107374183 B = 107.4 MB = 102.4 MiB".
// Never a bare number of bytes.
std::string BriefBytes(const Quantity& bytes);
// A plain number of a countable resource: "8", "1500m (1.5)".
std::string DescribeCount(const Quantity& q);

// Whether a quantity's text uses a binary suffix (Ki..Ei), a decimal one
// (k..E, an exponent) or none; used to spot units mixed within a pod.
enum class UnitSystem { kNone, kDecimal, kBinary };
UnitSystem UnitSystemOf(std::string_view text);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_QUANTITY_QUANTITY_H_
