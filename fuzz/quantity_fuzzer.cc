// libFuzzer target: Quantity::Parse and everything that formats or does
// arithmetic on a parsed quantity.
//
// Properties, beyond "no crash, no sanitizer report":
//  - a quantity that parses round-trips through Canonical() to the same value,
//    and the canonical text settles after one round trip;
//  - it round-trips through ExactDecimal() too (that text is what messages show);
//  - a refused text always comes with an error code and a message;
//  - arithmetic saturates instead of overflowing (UBSan would report it).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "engine/quantity/quantity.h"

namespace {

using gpulint::Quantity;
using gpulint::QuantityError;

[[noreturn]] void Fail(std::string_view what, std::string_view input, const std::string& detail) {
  std::fprintf(stderr, "quantity_fuzzer: %.*s\n  input: \"%.*s\"\n  %s\n",
               static_cast<int>(what.size()), what.data(), static_cast<int>(input.size()),
               input.data(), detail.c_str());
  std::abort();
}

void CheckRoundTrip(std::string_view input, const Quantity& q) {
  const std::string canonical = q.Canonical();
  Quantity back;
  QuantityError error;
  if (!Quantity::Parse(canonical, &back, &error))
    Fail("Canonical() does not parse", input, canonical + ": " + error.message);
  if (back != q)
    Fail("Canonical() changes the value", input,
         canonical + " reads as " + back.ExactDecimal() + ", not " + q.ExactDecimal());
  // The text does not keep the format ("62.5Ki" is 64000 in BinarySI, whose
  // canonical text "64000" reads back as DecimalSI, "64k"), so the canonical
  // text is a fixed point from the second round on, as in Kubernetes.
  const std::string second = back.Canonical();
  Quantity again;
  if (!Quantity::Parse(second, &again, &error) || again != q || again.Canonical() != second)
    Fail("Canonical() does not settle", input, canonical + " -> " + second);

  const std::string exact = q.ExactDecimal();
  if (!Quantity::Parse(exact, &back, &error))
    Fail("ExactDecimal() does not parse", input, exact + ": " + error.message);
  if (back != q) Fail("ExactDecimal() changes the value", input, exact);
}

// Formatting and rounding: only that they finish cleanly; their exact output
// is what the unit tests pin down.
void Exercise(const Quantity& q, const Quantity& other) {
  (void)q.Value();
  (void)q.MilliValue();
  (void)q.is_whole();
  Quantity stored = q.Stored();
  if (q.sign() > 0 && stored < q) Fail("Stored() rounds down", q.ExactDecimal(), stored.ExactDecimal());
  for (int scale : {-9, -3, 0, 3, 9, 28, 40}) (void)q.RoundedUp(scale);
  (void)gpulint::FormatBytes(q);
  (void)gpulint::DescribeBytes(q);
  (void)gpulint::DescribeCount(q);
  (void)(q + other);
  (void)(q - other);
  (void)(-q);
  (void)(q * 1024);
  (void)(q * INT64_MIN);
  (void)q.ScaledUp(INT64_MAX, 3);
  (void)q.ScaledUp(-7, INT64_MIN);
  (void)q.ScaledUp(1, 0);
  if (-(-q) != q) Fail("negation is not its own inverse", q.ExactDecimal(), "");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  // Two quantities, split at the first newline, for the arithmetic.
  size_t nl = input.find('\n');
  std::string_view first = input.substr(0, nl);
  std::string_view second = nl == std::string_view::npos ? first : input.substr(nl + 1);

  Quantity a, b;
  QuantityError error;
  bool a_ok = Quantity::Parse(first, &a, &error);
  if (!a_ok && (error.code == QuantityError::Code::kNone || error.message.empty()))
    Fail("refused without an error", first, error.message);
  (void)gpulint::UnitSystemOf(first);
  bool b_ok = Quantity::Parse(second, &b, nullptr);
  if (a_ok) CheckRoundTrip(first, a);
  if (a_ok) Exercise(a, b_ok ? b : a);
  return 0;
}
