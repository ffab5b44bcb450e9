// What kube-apiserver makes of a container's resource request written as a
// string: whether it accepts it, the value it reads, and the text it stores.
//
// Quantity (quantity.h) is the engine's exact value type and stops at 10^29;
// this follows the API server step by step on decimal digit strings, so it
// answers for any input: UnmarshalJSON (surrounding spaces trimmed),
// ParseQuantity (its int64 fast path, which keeps the text as written where
// it is already canonical, and its big-decimal path), the 32-bit exponent
// that wraps ("1e4294967297" is 10), the defaulting that rounds every
// container resource up to a milli-unit (Quantity.RoundUp(-3)), validation
// (no negative request), and String() (which writes no suffix past E:
// "1000E" is stored as "1"). testdata/quantity/apiserver.json holds what a
// real kube-apiserver 1.36 answered for every string of the quantity tests.
#ifndef GPULINT_ENGINE_QUANTITY_QUANTITY_APISERVER_H_
#define GPULINT_ENGINE_QUANTITY_QUANTITY_APISERVER_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace gpulint {

struct ApiServerReading {
  enum class Outcome {
    kAccepted,
    kUnparsable,  // ParseQuantity refuses it (grammar, suffix, numeric part)
    kNegative,    // parsed, but a request must be >= 0
    kTimeout,     // an exponent whose arithmetic outlasts the API server's request timeout
  };
  Outcome outcome = Outcome::kUnparsable;
  bool accepted() const { return outcome == Outcome::kAccepted; }
  // Set unless kUnparsable:
  std::string canonical;  // ParseQuantity(text).String(): the text itself where Kubernetes keeps it
  std::string value;      // the exact value read, as a plain decimal ("0.0015", "-1073741824");
                          // past 10^±1000 as digits and an exponent ("1e100000")
  std::string stored;     // what it stores for a container (milli-rounded, then String())
};

// Exponents at least this large in magnitude make the API server compute with
// 10^exponent until its request timeout (measured on 1.36.2: 1e10000000
// answered in about half a minute, 0e100000000 timed out after one).
inline constexpr int64_t kApiServerTimeoutExponent = 100'000'000;

ApiServerReading ReadAsApiServer(std::string_view text);

// `text` without the white space Go's strings.TrimSpace removes at either end
// (Quantity.UnmarshalJSON does this before parsing): ASCII space, \t \n \v
// \f \r, and Unicode's other spaces (U+0085, U+00A0, U+1680, U+2000..U+200A,
// U+2028, U+2029, U+202F, U+205F, U+3000).
std::string_view TrimGoSpace(std::string_view text);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_QUANTITY_QUANTITY_APISERVER_H_
