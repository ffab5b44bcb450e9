// What Parse says about a quantity Kubernetes refuses: code, message and
// suggestion, word for word. Kubernetes' own invalid list is included, each odd
// case with the reason it fails.
#include <catch2/catch.hpp>
#include <string>

#include "engine/quantity/quantity.h"

namespace gpulint {
namespace {

using Code = QuantityError::Code;

struct InvalidCase {
  const char* input;
  Code code;
  const char* message;
  const char* suggestion;
};

constexpr const char* kSpaces = "spaces are not allowed in a quantity";
constexpr const char* kTooLarge =
    "quantity is too large to evaluate exactly (a magnitude of 10^29 or more)";
constexpr const char* kUnknownI =
    "unknown suffix \"i\" (use n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei or an exponent "
    "such as e3)";
constexpr const char* k500GB =
    "did you mean 500G (500000000000 B = 500 GB = 465.7 GiB) or 500Gi (536870912000 B = 536.9 GB "
    "= 500 GiB)?";

const InvalidCase kInvalid[] = {
    {"", Code::kEmpty, "quantity is empty", ""},
    {"  ", Code::kEmpty, "quantity is empty", ""},
    // Units written the way other tools write them.
    {"500GB", Code::kSuffix, "unknown suffix \"GB\" (Kubernetes units have no \"B\")", k500GB},
    {"40g", Code::kSuffix, "unknown suffix \"g\" (suffixes are case-sensitive)",
     "did you mean 40G (40000000000 B = 40 GB = 37.3 GiB) or 40Gi (42949672960 B = 42.9 GB = 40 "
     "GiB)?"},
    {"1K", Code::kSuffix, "unknown suffix \"K\" (suffixes are case-sensitive)",
     "did you mean 1k (1000 B = 1 kB) or 1Ki (1024 B = 1 kB = 1 KiB)?"},
    {"10KB", Code::kSuffix, "unknown suffix \"KB\" (Kubernetes units have no \"B\")",
     "did you mean 10k (10000 B = 10 kB = 9.8 KiB) or 10Ki (10240 B = 10.2 kB = 10 KiB)?"},
    {"5MiB", Code::kSuffix, "unknown suffix \"MiB\" (Kubernetes units have no \"B\")",
     "did you mean 5Mi (5242880 B = 5.2 MB = 5 MiB)?"},
    {"2gi", Code::kSuffix, "unknown suffix \"gi\" (suffixes are case-sensitive)",
     "did you mean 2Gi (2147483648 B = 2.1 GB = 2 GiB)?"},
    {"1.5TB", Code::kSuffix, "unknown suffix \"TB\" (Kubernetes units have no \"B\")",
     "did you mean 1.5T (1500000000000 B = 1.5 TB = 1.4 TiB) or 1.5Ti (1649267441664 B = 1.6 TB "
     "= 1.5 TiB)?"},
    {"500B", Code::kSuffix, "unknown suffix \"B\" (Kubernetes counts bytes with no suffix)",
     "did you mean 500?"},
    // Kubernetes: "mi" is no suffix; "m" is milli, so only Mi is meant.
    {"0.1mi", Code::kSuffix, "unknown suffix \"mi\" (suffixes are case-sensitive)",
     "did you mean 0.1Mi (104857.6 B = 104.9 kB = 102.4 KiB)?"},
    // Kubernetes: "a" cannot start a suffix.
    {"0.1am", Code::kSuffix,
     "unknown suffix \"am\" (use n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei or an exponent "
     "such as e3)",
     ""},
    // Kubernetes: "i" alone is no suffix, whatever the number.
    {"1i", Code::kSuffix, kUnknownI, ""},
    {".5i", Code::kSuffix, kUnknownI, ""},
    {"-3.01i", Code::kSuffix, kUnknownI, ""},
    // Spaces: ParseQuantity refuses them anywhere.
    {" 1", Code::kFormat, kSpaces, "did you mean 1?"},
    {"1 ", Code::kFormat, kSpaces, "did you mean 1?"},
    {"1 Gi", Code::kFormat, kSpaces, "did you mean 1Gi (1073741824 B = 1.1 GB = 1 GiB)?"},
    {"500 GB", Code::kFormat, kSpaces, k500GB},
    // Numbers that are not decimal numbers.
    {"1.5.0", Code::kFormat, "more than one decimal point", ""},
    {"1.1.M", Code::kFormat, "more than one decimal point", ""},
    {"abc", Code::kFormat, "a quantity must start with a number", ""},
    {"aoeu", Code::kFormat, "a quantity must start with a number", ""},
    {"0x10", Code::kFormat, "hexadecimal numbers are not allowed", "did you mean 16?"},
    {"-0x1F", Code::kFormat, "hexadecimal numbers are not allowed", "did you mean -31?"},
    {"1,5", Code::kFormat, "commas are not allowed in a quantity", "did you mean 1.5 or 15?"},
    {"1,5Gi", Code::kFormat, "commas are not allowed in a quantity",
     "did you mean 1.5Gi (1610612736 B = 1.6 GB = 1.5 GiB) or 15Gi (16106127360 B = 16.1 GB = 15 "
     "GiB)?"},
    {"--1", Code::kNumeric, "more than one sign", ""},
    {"+-1", Code::kNumeric, "more than one sign", ""},
    // Kubernetes: a sign may follow only an exponent's "e".
    {"1+1.0M", Code::kFormat, "unexpected \"+\" after \"1\"", ""},
    {"1Ki5", Code::kFormat, "unexpected \"5\" after \"1Ki\"", ""},
    {"10Gi/s", Code::kFormat, "unexpected \"/\" after \"10Gi\"", ""},
    {"5\xC2\xB5", Code::kFormat, "unexpected \"\xC2\xB5\" after \"5\"", ""},
    // Exponents.
    {"1e", Code::kNumeric, "the exponent after \"e\" has no digits", ""},
    {"-3.01e-", Code::kNumeric, "the exponent after \"e-\" has no digits", ""},
    {"1e3.5", Code::kNumeric, "the exponent must be a whole number", ""},
    {"1e3Gi", Code::kSuffix, "an exponent cannot be combined with the suffix \"Gi\"", ""},
    // Past int64 ParseInt fails: Kubernetes refuses the suffix (an exponent
    // past int32 but within int64 wraps: quantity_test.cc).
    {"0e99999999999999999999", Code::kOutOfRange,
     "the exponent \"e99999999999999999999\" is out of range", ""},
    // Kubernetes' slow path (Pi and Ei, or scales below nano) needs a digit.
    {"Pi", Code::kNumeric, "missing number before \"Pi\"", ""},
    {"-Ei", Code::kNumeric, "missing number before \"Ei\"", ""},
    {"e-10", Code::kNumeric, "missing number before \"e-10\"", ""},
    // Valid for Kubernetes, but past what is evaluated exactly here: callers
    // read kUnrepresentable as accepted (see quantity_field_test.cc).
    {"1e29", Code::kUnrepresentable, kTooLarge, ""},
    {"-100000000000000000000000000000", Code::kUnrepresentable, kTooLarge, ""},
    {"1e2147483647", Code::kUnrepresentable, kTooLarge, ""},
    {"1e30", Code::kUnrepresentable, kTooLarge, ""},
    {"100000000000E", Code::kUnrepresentable, kTooLarge, ""},
};

TEST_CASE("Parse explains every quantity Kubernetes refuses", "[quantity]") {
  for (const InvalidCase& c : kInvalid) {
    INFO("input: \"" << c.input << "\"");
    Quantity q = Quantity::FromInt(42);
    QuantityError error;
    CHECK_FALSE(Quantity::Parse(c.input, &q, &error));
    CHECK(error.code == c.code);
    CHECK(error.message == c.message);
    CHECK(error.suggestion == c.suggestion);
    CHECK(q == Quantity::FromInt(42));
  }
}

TEST_CASE("Every suggested quantity parses", "[quantity]") {
  // A "did you mean" that Kubernetes would refuse again would send a person in circles.
  for (const char* text :
       {"500GB", "40g", "1K", "10KB", "5MiB", "2gi", "1.5TB", "0.1mi", "1,5Gi", "1 Gi", "0x10"}) {
    INFO("input: \"" << text << "\"");
    QuantityError error;
    REQUIRE_FALSE(Quantity::Parse(text, nullptr, &error));
    std::string s = error.suggestion;
    REQUIRE(s.rfind("did you mean ", 0) == 0);
    s = s.substr(13, s.size() - 14);
    size_t start = 0;
    while (start < s.size()) {
      size_t end = s.find(" or ", start);
      std::string candidate = s.substr(start, end - start);
      candidate = candidate.substr(0, candidate.find(" ("));
      Quantity q;
      CHECK(Quantity::Parse(candidate, &q, nullptr));
      start = end == std::string::npos ? s.size() : end + 4;
    }
  }
}

TEST_CASE("Negative quantities parse, refusing them is a rule's business", "[quantity]") {
  Quantity q;
  QuantityError error;
  REQUIRE(Quantity::Parse("-500Mi", &q, &error));
  CHECK(error.code == Code::kNone);
  CHECK(q.sign() == -1);
  CHECK(q.Canonical() == "-500Mi");
}

}  // namespace
}  // namespace gpulint
