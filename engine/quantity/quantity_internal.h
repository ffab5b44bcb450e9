// Pieces shared by quantity.cc, quantity_format.cc and quantity_diagnose.cc.
// Not part of the engine's interface: include engine/quantity/quantity.h instead.
#ifndef GPULINT_ENGINE_QUANTITY_QUANTITY_INTERNAL_H_
#define GPULINT_ENGINE_QUANTITY_QUANTITY_INTERNAL_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/quantity/quantity.h"

namespace gpulint::quantity_internal {

using uint128 = unsigned __int128;

inline constexpr int128 kNanoPerUnit = 1'000'000'000;

inline uint128 Magnitude(int128 v) {
  return v < 0 ? uint128(0) - static_cast<uint128>(v) : static_cast<uint128>(v);
}

// What Kubernetes' parseQuantityString splits a quantity into.
struct Parts {
  bool negative = false;
  bool has_digits = false;    // "Gi", "." and "-" hold no digit at all
  std::string_view whole;     // digits before the point, leading zeros dropped
  std::string_view fraction;  // digits after the point
  std::string_view suffix;    // everything after the number
};

// Splits `text` exactly as parseQuantityString does; false where that answers
// ErrFormatWrong. Deliberately as lenient as Kubernetes ("1.G", ".", "Gi").
bool SplitQuantity(std::string_view text, Parts* parts);

struct SuffixMeaning {
  int base = 10;         // 10 or 2
  int64_t exponent = 0;  // power of `base`
  QuantityFormat format = QuantityFormat::kDecimalSI;
};

// Reads a suffix as Kubernetes' suffixer does. An exponent is read as an
// int64 and kept as an int32, as Kubernetes keeps it: larger ones wrap.
bool InterpretSuffix(std::string_view suffix, SuffixMeaning* meaning);

// Go's strconv.ParseInt(s, 10, 64): "[+-]digits"; false on syntax or overflow.
bool ParseInt64(std::string_view s, int64_t* out);

// Why Parse refused `text`, in words a person can act on. Only meaningful for
// text that Parse refused on grammar (not for kUnrepresentable).
QuantityError Diagnose(std::string_view text);

// Decimal digits of `v`.
std::string ToDecimal(uint128 v);

}  // namespace gpulint::quantity_internal

#endif  // GPULINT_ENGINE_QUANTITY_QUANTITY_INTERNAL_H_
