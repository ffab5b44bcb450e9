// Quantity, case for case against Kubernetes' quantity_test.go (TestQuantityParse,
// TestQuantityString, TestQuantityParseEmit, TestQuantityRoundUp) where they apply
// to a nano-precision value below 10^29. Error messages are in quantity_error_test.cc.
#include "engine/quantity/quantity.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <string>

#include "engine/quantity/quantity_test_support.h"

namespace gpulint {
namespace {

constexpr QuantityFormat kD = QuantityFormat::kDecimalSI;
constexpr QuantityFormat kB = QuantityFormat::kBinarySI;
constexpr QuantityFormat kX = QuantityFormat::kDecimalExponent;
constexpr int128 kMaxNano = std::numeric_limits<int128>::max();

using quantity_testing::MustParse;

struct ValidCase {
  const char* input;
  const char* exact;      // ExactDecimal()
  const char* canonical;  // Canonical(), Kubernetes' String()
  QuantityFormat format;
};

const ValidCase kValid[] = {
    {"0", "0", "0", kD},
    {"0n", "0", "0", kD},
    {"0u", "0", "0", kD},
    {"0m", "0", "0", kD},
    {"0Ki", "0", "0", kB},
    {"0k", "0", "0", kD},
    {"0Mi", "0", "0", kB},
    {"0M", "0", "0", kD},
    {"0Gi", "0", "0", kB},
    {"0G", "0", "0", kD},
    {"0Ti", "0", "0", kB},
    {"0T", "0", "0", kD},
    {"00", "0", "0", kD},
    {"0e5", "0", "0", kX},
    // Quantity-less numbers.
    {"1", "1", "1", kD},
    {"9", "9", "9", kD},
    // Binary suffixes.
    {"1Ki", "1024", "1Ki", kB},
    {"8Ki", "8192", "8Ki", kB},
    {"7Mi", "7340032", "7Mi", kB},
    {"6Gi", "6442450944", "6Gi", kB},
    {"5Ti", "5497558138880", "5Ti", kB},
    {"4Pi", "4503599627370496", "4Pi", kB},
    {"3Ei", "3458764513820540928", "3Ei", kB},
    {"10Ti", "10995116277760", "10Ti", kB},
    {"100Ti", "109951162777600", "100Ti", kB},
    {"500Gi", "536870912000", "500Gi", kB},
    {"527787256Ki", "540454150144", "527787256Ki", kB},
    // Decimal suffixes.
    {"5n", "0.000000005", "5n", kD},
    {"4u", "0.000004", "4u", kD},
    {"3m", "0.003", "3m", kD},
    {"100m", "0.1", "100m", kD},
    {"8k", "8000", "8k", kD},
    {"50k", "50000", "50k", kD},
    {"7M", "7000000", "7M", kD},
    {"6G", "6000000000", "6G", kD},
    {"5T", "5000000000000", "5T", kD},
    {"40T", "40000000000000", "40T", kD},
    {"300T", "300000000000000", "300T", kD},
    {"2P", "2000000000000000", "2P", kD},
    {"1E", "1000000000000000000", "1E", kD},
    {"12E", "12000000000000000000", "12E", kD},
    // Decimal exponents keep their form.
    {"1E-3", "0.001", "1e-3", kX},
    {"1e3", "1000", "1e3", kX},
    {"1E6", "1000000", "1e6", kX},
    {"1e9", "1000000000", "1e9", kX},
    {"1E12", "1000000000000", "1e12", kX},
    {"1e15", "1000000000000000", "1e15", kX},
    {"1E18", "1000000000000000000", "1e18", kX},
    {"1e14", "100000000000000", "100e12", kX},
    {"1e13", "10000000000000", "10e12", kX},
    {"3e3", "3000", "3e3", kX},
    {"80e-3", "0.08", "80e-3", kX},
    {"300e6", "300000000", "300e6", kX},
    {".001e12", "1000000000", "1e9", kX},
    {"0.001e0", "0.001", "1e-3", kX},
    {"1000e-12", "0.000000001", "1e-9", kX},
    {"1.5e+2", "150", "150", kX},
    // Things that look like floating point.
    {"100.035k", "100035", "100035", kD},
    {"0.001", "0.001", "1m", kD},
    {"0.0005k", "0.5", "500m", kD},
    {"0.005", "0.005", "5m", kD},
    {"0.05", "0.05", "50m", kD},
    {"0.5", "0.5", "500m", kD},
    {"0.00050k", "0.5", "500m", kD},
    {"0.00500", "0.005", "5m", kD},
    {"0.05000", "0.05", "50m", kD},
    {"0.50000", "0.5", "500m", kD},
    {"0.5e0", "0.5", "500e-3", kX},
    {"0.5e-1", "0.05", "50e-3", kX},
    {"0.5e-2", "0.005", "5e-3", kX},
    {"10.035M", "10035000", "10035k", kD},
    {"1.2e3", "1200", "1200", kX},
    {"1.3E+6", "1300000", "1300e3", kX},
    {"1.40e9", "1400000000", "1400e6", kX},
    {"1.53E12", "1530000000000", "1530e9", kX},
    {"1.6e15", "1600000000000000", "1600e12", kX},
    {"1.7E18", "1700000000000000000", "1700e15", kX},
    {"9.01", "9.01", "9010m", kD},
    {"8.1k", "8100", "8100", kD},
    {"7.123456M", "7123456", "7123456", kD},
    {"6.987654321G", "6987654321", "6987654321", kD},
    {"5.444T", "5444000000000", "5444G", kD},
    {"40.1T", "40100000000000", "40100G", kD},
    {"300.2T", "300200000000000", "300200G", kD},
    {"2.5P", "2500000000000000", "2500T", kD},
    {"1.01E", "1010000000000000000", "1010P", kD},
    {"1.5", "1.5", "1500m", kD},
    {"1.1", "1.1", "1100m", kD},
    {"1.08", "1.08", "1080m", kD},
    {"1080000000n", "1.08", "1080m", kD},
    {"1000", "1000", "1k", kD},
    {"2000", "2000", "2k", kD},
    {"1000M", "1000000000", "1G", kD},
    {"0.001T", "1000000000", "1G", kD},
    {"1000u", "0.001", "1m", kD},
    // Finer than a nano-unit: rounded up, away from zero.
    {"3.001n", "0.000000004", "4n", kD},
    {"1.1E-9", "0.000000002", "2e-9", kX},
    {"0.0000000001", "0.000000001", "1n", kD},
    {"0.0000000005", "0.000000001", "1n", kD},
    {"0.00000000050", "0.000000001", "1n", kD},
    {"0.5e-9", "0.000000001", "1e-9", kX},
    {"0.9n", "0.000000001", "1n", kD},
    {"0.00000012345", "0.000000124", "124n", kD},
    {"0.00000012354", "0.000000124", "124n", kD},
    // Binary values are capped at 2^63-1.
    {"9Ei", "9223372036854775807", "9223372036854775807", kB},
    {"8Ei", "9223372036854775807", "9223372036854775807", kB},
    {"9223372036854775807Ti", "9223372036854775807", "9223372036854775807", kB},
    {"9223372036854775807Ki", "9223372036854775807", "9223372036854775807", kB},
    {"99999999999999999999999999999999999999999Ei", "9223372036854775807", "9223372036854775807",
     kB},
    // Fractional binary amounts: exact, shown as decimal.
    {"100.035Ki", "102435.84", "102435840m", kB},
    {"0.5Mi", "524288", "512Ki", kB},
    {"0.05Gi", "53687091.2", "53687091200m", kB},
    {"0.025Ti", "27487790694.4", "27487790694400m", kB},
    {"0.1Gi", "107374182.4", "107374182400m", kB},
    {"1.5Gi", "1610612736", "1536Mi", kB},
    {"1.5Ki", "1536", "1536", kB},
    {"0.5Ki", "512", "512", kB},
    {".001Ki", "1.024", "1024m", kB},
    // A binary value below 1 becomes DecimalSI.
    {".000001Ki", "0.001024", "1024u", kD},
    {".000000001Ki", "0.000001024", "1024n", kD},
    {"0.000000000001Ki", "0.000000002", "2n", kD},
    // Canonical forms that change the suffix.
    {"1024Mi", "1073741824", "1Gi", kB},
    {"307200Ki", "314572800", "300Mi", kB},
    {"1025024Mi", "1074815565824", "1001Gi", kB},
    {"1024Gi", "1099511627776", "1Ti", kB},
    // Past "E" DecimalSI has no suffix: the exponent form keeps the magnitude.
    {"1000E", "1000000000000000000000", "1e21", kD},
    {"5000E", "5000000000000000000000", "5e21", kD},
    {"1000000E", "1000000000000000000000000", "1e24", kD},
    {"99999999999999999999999999999", "99999999999999999999999999999",
     "99999999999999999999999999999", kD},
    // Written by trolls, accepted by Kubernetes.
    {".001", "0.001", "1m", kD},
    {".0001k", "0.1", "100m", kD},
    {"1.", "1", "1", kD},
    {"1.G", "1000000000", "1G", kD},
    {"1e-2147483647", "0.000000001", "1e-9", kX},
    // An exponent is kept as an int32, as Kubernetes keeps it: past that it
    // wraps (kube-apiserver 1.36 stores 1e4294967297 as 10;
    // testdata/quantity/apiserver.json).
    {"1e4294967297", "10", "10", kX},
    {"1E2147483648", "0.000000001", "1e-9", kX},
    {"0e2147483647", "0", "0", kX},
    // Kubernetes' fast path reads a number with no digits as zero.
    {".", "0", "0", kD},
    {"Gi", "0", "0", kB},
    {"Ti", "0", "0", kB},
    {"k", "0", "0", kD},
    {"n", "0", "0", kD},
    {"e5", "0", "0", kX},
};

TEST_CASE("Parse reads every quantity Kubernetes reads, to the nano-unit", "[quantity]") {
  for (const ValidCase& c : kValid) {
    INFO("input: \"" << c.input << "\"");
    Quantity q;
    QuantityError error;
    error.code = QuantityError::Code::kSuffix;
    REQUIRE(Quantity::Parse(c.input, &q, &error));
    CHECK(error.code == QuantityError::Code::kNone);
    CHECK(q.ExactDecimal() == c.exact);
    CHECK(q.Canonical() == c.canonical);
    CHECK(q.format() == c.format);
  }
}

TEST_CASE("A leading sign negates the value and keeps the format", "[quantity]") {
  for (const ValidCase& c : kValid) {
    std::string input = c.input;
    INFO("input: \"" << input << "\"");
    bool zero = std::string(c.exact) == "0";
    Quantity negative = MustParse("-" + input);
    CHECK(negative.ExactDecimal() == (zero ? "0" : "-" + std::string(c.exact)));
    CHECK(negative.Canonical() == (zero ? "0" : "-" + std::string(c.canonical)));
    CHECK(negative.format() == c.format);
    CHECK(negative == -MustParse(input));

    Quantity positive = MustParse("+" + input);
    CHECK(positive.ExactDecimal() == c.exact);
    CHECK(positive.Canonical() == c.canonical);
    CHECK(positive.format() == c.format);
  }
}

TEST_CASE("The canonical form parses back to the same value and form", "[quantity]") {
  for (const ValidCase& c : kValid) {
    INFO("input: \"" << c.input << "\", canonical: \"" << c.canonical << "\"");
    Quantity again = MustParse(c.canonical);
    CHECK(again == MustParse(c.input));
    CHECK(again.Canonical() == c.canonical);
  }
}

TEST_CASE("A whole BinarySI value that is no power of 1024 drops its suffix", "[quantity]") {
  // Kubernetes prints 1.953125Ki as "2000", which reads back as DecimalSI "2k":
  // same value, different text. Known Kubernetes behaviour, kept.
  Quantity q = MustParse("1.953125Ki");
  CHECK(q.Canonical() == "2000");
  Quantity again = MustParse(q.Canonical());
  CHECK(again == q);
  CHECK(again.Canonical() == "2k");
}

TEST_CASE("Signs, points and suffixes without digits read as zero", "[quantity]") {
  for (const char* text : {"-", "+", "-.", "+.", "-0", "-Gi", "+k"}) {
    INFO("input: \"" << text << "\"");
    Quantity q = MustParse(text);
    CHECK(q.is_zero());
    CHECK(q.Canonical() == "0");
  }
}

TEST_CASE("Long inputs are read exactly", "[quantity]") {
  CHECK(MustParse("0." + std::string(1000, '0') + "1").Canonical() == "1n");
  CHECK(MustParse("1" + std::string(5000, '0') + "e-5000").ExactDecimal() == "1");
  CHECK(MustParse("1" + std::string(5000, '0') + "e-5000").Canonical() == "1");
  CHECK(MustParse("0." + std::string(3000, '0') + "1Ei").ExactDecimal() == "0.000000001");
  CHECK(MustParse("0." + std::string(3000, '0') + "Ei").is_zero());
  // Digits far below a nano-unit still decide the rounding of a binary value.
  CHECK(MustParse("0.0000000000009765625Ki").ExactDecimal() == "0.000000001");
  CHECK(MustParse("0.00000000000097656250000000000000001Ki").ExactDecimal() == "0.000000002");
}

TEST_CASE("Canonical matches Kubernetes' String() for built quantities", "[quantity]") {
  struct Case {
    Quantity q;
    const char* canonical;
  };
  const int128 kNano = 1'000'000'000;
  const Case cases[] = {
      {Quantity::FromInt(1073741824, kB), "1Gi"},
      {Quantity::FromInt(300 * 1048576, kB), "300Mi"},
      {Quantity::FromInt(6 * 1024, kB), "6Ki"},
      {Quantity::FromInt(1001LL << 30, kB), "1001Gi"},
      {Quantity::FromInt(1LL << 40, kB), "1Ti"},
      {Quantity::FromInt(5, kB), "5"},
      {Quantity::FromNano(500'000'000, kB), "500m"},
      {Quantity::FromNano(1234567'000'000, kB), "1234567m"},
      {Quantity::FromInt(1025, kB), "1025"},
      {Quantity::FromInt(2000, kB), "2000"},
      {Quantity::FromInt(0, kB), "0"},
      {Quantity::FromNano((int128(1) << 70) * kNano, kB), "1180591620717411303424"},
      {Quantity::FromNano((int128(1) << 70) * 1000 * kNano, kB), "1180591620717411303424e3"},
      {Quantity::FromInt(1'000'000'000), "1G"},
      {Quantity::FromNano(1'000'000), "1m"},
      {Quantity::FromNano(80'000'000), "80m"},
      {Quantity::FromNano(1'080'000'000), "1080m"},
      {Quantity::FromInt(300'000'000), "300M"},
      {Quantity::FromInt(1'000'000'000'000), "1T"},
      {Quantity::FromInt(1'000'000'000'000'000'000), "1E"},
      {Quantity::FromInt(1'000'000'000'000'000'000) * 1000, "1e21"},
      {Quantity::FromInt(1234567'000'000), "1234567M"},
      {Quantity::FromInt(3000), "3k"},
      {Quantity::FromInt(0), "0"},
      {Quantity::FromNano(1), "1n"},
      {Quantity::FromNano(80), "80n"},
      {Quantity::FromNano(1080), "1080n"},
      {Quantity::FromNano(1000), "1u"},
      {Quantity::FromNano(80'000), "80u"},
      {Quantity::FromNano(1'080'000), "1080u"},
      {Quantity::FromInt(1'000'000'000, kX), "1e9"},
      {Quantity::FromNano(1'000'000, kX), "1e-3"},
      {Quantity::FromNano(1, kX), "1e-9"},
      {Quantity::FromNano(80'000'000, kX), "80e-3"},
      {Quantity::FromInt(300'000'000, kX), "300e6"},
      {Quantity::FromInt(1'000'000'000'000, kX), "1e12"},
      {Quantity::FromInt(1000, kX), "1e3"},
      {Quantity::FromInt(3000, kX), "3e3"},
      {Quantity::FromInt(0, kX), "0"},
  };
  for (const Case& c : cases) {
    INFO("expected: " << c.canonical);
    CHECK(c.q.Canonical() == c.canonical);
    if (!c.q.is_zero()) CHECK((-c.q).Canonical() == "-" + std::string(c.canonical));
  }
}

TEST_CASE("ExactDecimal prints the value as a plain decimal", "[quantity]") {
  CHECK(MustParse("500Gi").ExactDecimal() == "536870912000");
  CHECK(MustParse("1.5m").ExactDecimal() == "0.0015");
  CHECK(MustParse("-2").ExactDecimal() == "-2");
  CHECK(MustParse("0").ExactDecimal() == "0");
  CHECK(MustParse("-1n").ExactDecimal() == "-0.000000001");
  CHECK(MustParse("1e28").ExactDecimal() == "10000000000000000000000000000");
}

TEST_CASE("is_whole and sign", "[quantity]") {
  CHECK(MustParse("2").is_whole());
  CHECK(MustParse("1Gi").is_whole());
  CHECK(MustParse("0.5Ki").is_whole());
  CHECK_FALSE(MustParse("1.5").is_whole());
  CHECK_FALSE(MustParse("-1n").is_whole());
  CHECK(MustParse("-1n").sign() == -1);
  CHECK(MustParse("1n").sign() == 1);
  CHECK(MustParse("0Gi").sign() == 0);
}

TEST_CASE("Value and MilliValue round away from zero and saturate", "[quantity]") {
  struct Case {
    const char* input;
    int64_t value;
    int64_t milli;
  };
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  const Case cases[] = {
      {"0", 0, 0},           {"1.5", 2, 1500},
      {"-1.5", -2, -1500},   {"0.1m", 1, 1},
      {"-0.1m", -1, -1},     {"1n", 1, 1},
      {"100m", 1, 100},      {"9.01", 10, 9010},
      {"-9.01", -10, -9010}, {"1Gi", 1073741824, 1073741824000},
      {"8Ei", kMax, kMax},   {"-8Ei", -kMax, kMin},
      {"1e28", kMax, kMax},  {"-1e28", kMin, kMin},
  };
  for (const Case& c : cases) {
    INFO("input: " << c.input);
    Quantity q = MustParse(c.input);
    CHECK(q.Value() == c.value);
    CHECK(q.MilliValue() == c.milli);
  }
}

TEST_CASE("RoundedUp rounds away from zero to a power of ten", "[quantity]") {
  struct Case {
    const char* input;
    int scale;
    const char* exact;
  };
  const Case cases[] = {
      {"9.01", -3, "9.01"},
      {"9.01", -2, "9.01"},
      {"9.01", -1, "9.1"},
      {"9.01", 0, "10"},
      {"9.01", 1, "10"},
      {"9.01", 2, "100"},
      {"-9.01", -3, "-9.01"},
      {"-9.01", -2, "-9.01"},
      {"-9.01", -1, "-9.1"},
      {"-9.01", 0, "-10"},
      {"-9.01", 1, "-10"},
      {"-9.01", 2, "-100"},
      {"0.1m", -3, "0.001"},
      {"1.0001m", -3, "0.002"},
      {"5n", -9, "0.000000005"},
      {"5n", -12, "0.000000005"},
      {"0", 3, "0"},
      {"1", 29, "100000000000000000000000000000"},
  };
  for (const Case& c : cases) {
    INFO("input: " << c.input << ", scale " << c.scale);
    CHECK(MustParse(c.input).RoundedUp(c.scale).ExactDecimal() == c.exact);
  }
  CHECK(MustParse("1").RoundedUp(40).nano() == kMaxNano);
  CHECK(MustParse("-1").RoundedUp(40).nano() == -kMaxNano);
  Quantity half_gi = MustParse("0.5Gi").RoundedUp(0);
  CHECK(half_gi.format() == kB);
  CHECK(half_gi.Canonical() == "512Mi");
}

TEST_CASE("Stored applies the API server's milli rounding", "[quantity]") {
  CHECK(MustParse("0.1m").Stored().Canonical() == "1m");
  CHECK(MustParse("-0.1m").Stored().Canonical() == "-1m");
  CHECK(MustParse("100m").Stored().Canonical() == "100m");
  CHECK(MustParse("1.5Gi").Stored().Canonical() == "1536Mi");
}

TEST_CASE("Arithmetic is exact and keeps the left side's format", "[quantity]") {
  CHECK((MustParse("1Gi") + MustParse("512Mi")).Canonical() == "1536Mi");
  CHECK((MustParse("1G") + MustParse("1Gi")).Canonical() == "2073741824");
  CHECK((MustParse("0.1") + MustParse("0.2")) == MustParse("0.3"));
  CHECK((MustParse("1Gi") - MustParse("1Gi")).Canonical() == "0");
  CHECK((MustParse("100m") * 3).Canonical() == "300m");
  CHECK((MustParse("1n") * -1).Canonical() == "-1n");
  CHECK((-MustParse("1Gi")).Canonical() == "-1Gi");
  // As Kubernetes' Add and Sub: a zero takes the other side's format.
  CHECK((Quantity() + MustParse("1Gi")).Canonical() == "1Gi");
  CHECK((MustParse("0") - MustParse("1Gi")).Canonical() == "-1Gi");
  CHECK((MustParse("0") - MustParse("100m")).Canonical() == "-100m");
}

TEST_CASE("Arithmetic past 128 bits saturates", "[quantity]") {
  Quantity top = Quantity::FromNano(kMaxNano);
  CHECK((top + Quantity::FromNano(1)).nano() == kMaxNano);
  CHECK((top * 2).nano() == kMaxNano);
  CHECK((top * -2).nano() == -kMaxNano);
  CHECK((-top - Quantity::FromNano(5)).nano() == -kMaxNano);
  CHECK(Quantity::FromNano(std::numeric_limits<int128>::min()).nano() == -kMaxNano);
}

TEST_CASE("ScaledUp multiplies, then divides rounding away from zero", "[quantity]") {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  CHECK(MustParse("1").ScaledUp(1, 3).ExactDecimal() == "0.333333334");
  CHECK(MustParse("-1").ScaledUp(1, 3).ExactDecimal() == "-0.333333334");
  CHECK(MustParse("1").ScaledUp(-1, 3).ExactDecimal() == "-0.333333334");
  CHECK(MustParse("1").ScaledUp(1, -3).ExactDecimal() == "-0.333333334");
  CHECK(MustParse("1").ScaledUp(2, 3).ExactDecimal() == "0.666666667");
  CHECK(MustParse("48Gi").ScaledUp(1, 10).ExactDecimal() == "5153960755.2");
  Quantity three_gi = MustParse("1Gi").ScaledUp(3, 1);
  CHECK(three_gi.Canonical() == "3Gi");
  // The product of the value and the numerator does not fit 128 bits here.
  Quantity cap = MustParse("8Ei");
  CHECK(cap.ScaledUp(kMax, kMax) == cap);
  CHECK(cap.ScaledUp(kMax, 1).nano() == kMaxNano);
  CHECK(MustParse("7").ScaledUp(5, 0) == MustParse("7"));
}

TEST_CASE("Comparison is by value, across formats", "[quantity]") {
  CHECK(MustParse("1Gi") > MustParse("1G"));
  CHECK(MustParse("10000T") > MustParse("100Gi"));
  CHECK(MustParse("100m") > MustParse("50m"));
  CHECK(MustParse("50m") < MustParse("100m"));
  CHECK(MustParse("1k") == MustParse("1e3"));
  CHECK(MustParse("1k") == MustParse("1000"));
  CHECK(MustParse("-1") < MustParse("0"));
  CHECK(MustParse("1.5Gi") >= MustParse("1536Mi"));
  CHECK(MustParse("1.5Gi") <= MustParse("1536Mi"));
  CHECK(MustParse("1.5Gi") != MustParse("1.5G"));
}

}  // namespace
}  // namespace gpulint
