// Scalar typing as sigs.k8s.io/yaml (go-yaml v2, YAML 1.1) decodes it, since
// that is what Kubernetes sees; through the loader's public API.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "engine/yaml/loader.h"

namespace gpulint {
namespace {

using Type = Value::Type;

// The document "v: <scalar>", or its error.
bool LoadValue(const std::string& scalar, Value* out, std::string* error) {
  std::vector<Document> docs;
  Error io;
  REQUIRE(LoadYamlString(
      "v: " + scalar + "\n", "m.yaml", {},
      [&](Document&& d) {
        docs.push_back(std::move(d));
        return true;
      },
      &io));
  REQUIRE(docs.size() == 1);
  if (!docs[0].ok) {
    *error = docs[0].error.ToString();
    return false;
  }
  const Value* v = docs[0].root.Find("v");
  REQUIRE(v != nullptr);
  *out = *v;
  return true;
}

TEST_CASE("scalar typing follows go-yaml v2", "[loader][yaml]") {
  struct Case {
    const char* in;
    Type type;
    const char* text;
  };
  const Case cases[] = {
      // null
      {"", Type::kNull, ""},
      {"~", Type::kNull, ""},
      {"null", Type::kNull, ""},
      {"Null", Type::kNull, ""},
      {"NULL", Type::kNull, ""},
      {"nULL", Type::kString, "nULL"},
      // bool: YAML 1.1 spellings in the cases go-yaml v2 accepts
      {"true", Type::kBool, "true"},
      {"True", Type::kBool, "true"},
      {"TRUE", Type::kBool, "true"},
      {"yes", Type::kBool, "true"},
      {"Yes", Type::kBool, "true"},
      {"YES", Type::kBool, "true"},
      {"y", Type::kBool, "true"},
      {"Y", Type::kBool, "true"},
      {"on", Type::kBool, "true"},
      {"On", Type::kBool, "true"},
      {"ON", Type::kBool, "true"},
      {"false", Type::kBool, "false"},
      {"no", Type::kBool, "false"},
      {"NO", Type::kBool, "false"},
      {"n", Type::kBool, "false"},
      {"N", Type::kBool, "false"},
      {"off", Type::kBool, "false"},
      {"Off", Type::kBool, "false"},
      {"tRUE", Type::kString, "tRUE"},
      {"yES", Type::kString, "yES"},
      {"oN", Type::kString, "oN"},
      // int: Go's ParseInt(s, 0, 64) after removing '_', then ParseUint
      {"0", Type::kInt, "0"},
      {"-0", Type::kInt, "0"},
      {"00", Type::kInt, "0"},
      {"+5", Type::kInt, "5"},
      {"1_000", Type::kInt, "1000"},
      {"1__0", Type::kInt, "10"},
      {"0x10", Type::kInt, "16"},
      {"0X1f", Type::kInt, "31"},
      {"-0x10", Type::kInt, "-16"},
      {"010", Type::kInt, "8"},
      {"-010", Type::kInt, "-8"},
      {"0o17", Type::kInt, "15"},
      {"0b101", Type::kInt, "5"},
      {"-0b101", Type::kInt, "-5"},
      {"9223372036854775807", Type::kInt, "9223372036854775807"},
      {"-9223372036854775808", Type::kInt, "-9223372036854775808"},
      {"18446744073709551615", Type::kInt, "18446744073709551615"},
      {"0xFFFFFFFFFFFFFFFF", Type::kInt, "18446744073709551615"},
      // ParseUint takes no sign, and past uint64 only the float form is left
      {"+9223372036854775808", Type::kFloat, "9223372036854775808"},
      {"-9223372036854775809", Type::kFloat, "-9223372036854775808"},
      {"18446744073709551616", Type::kFloat, "18446744073709551616"},
      {"0x1FFFFFFFFFFFFFFFF", Type::kString, "0x1FFFFFFFFFFFFFFFF"},
      {"08", Type::kFloat, "8"},  // not octal, but it matches the float form
      {"0x", Type::kString, "0x"},
      {"_1", Type::kString, "_1"},
      {"+", Type::kString, "+"},
      {"-x", Type::kString, "-x"},
      // float: a float64, written as encoding/json writes it (what the API
      // server is sent): shortest round-trip digits, exponent below 1e-6 and
      // from 1e21
      {"1.5", Type::kFloat, "1.5"},
      {"1.", Type::kFloat, "1"},
      {"1e3", Type::kFloat, "1000"},
      {"-1.5E-3", Type::kFloat, "-0.0015"},
      {".5", Type::kFloat, "0.5"},
      {".0000001", Type::kFloat, "1e-7"},  // longer than any word of the table
      {"-.5", Type::kFloat, "-0.5"},
      {"1_0.5", Type::kFloat, "10.5"},
      {"-0.30000000000000001", Type::kFloat, "-0.3"},
      {"0.1e-5", Type::kFloat, "0.000001"},
      {"1e-7", Type::kFloat, "1e-7"},
      {"-2.5E-10", Type::kFloat, "-2.5e-10"},
      {"1e21", Type::kFloat, "1e+21"},
      {"999999999999999999999", Type::kFloat, "1e+21"},
      {"123456789012345678901234", Type::kFloat, "1.2345678901234569e+23"},
      {"-0.0", Type::kFloat, "-0"},
      {"1e-400", Type::kFloat, "0"},
      {".inf", Type::kFloat, ".inf"},
      {"-.Inf", Type::kFloat, "-.Inf"},
      {"+.INF", Type::kFloat, "+.INF"},
      {".nan", Type::kFloat, ".nan"},
      {".NaN", Type::kFloat, ".NaN"},
      {".Nan", Type::kString, ".Nan"},
      {".infinity", Type::kString, ".infinity"},
      {"yesterday", Type::kString, "yesterday"},
      {"nullable", Type::kString, "nullable"},
      {"._5", Type::kString, "._5"},
      {"1e400", Type::kString, "1e400"},  // ParseFloat's range error
      {"1e", Type::kString, "1e"},
      {"1.2.3", Type::kString, "1.2.3"},
      {"12:30", Type::kString, "12:30"},  // no base 60
      {"2024-01-02", Type::kString, "2024-01-02"},
      {"1Gi", Type::kString, "1Gi"},
      {"500m", Type::kString, "500m"},
      {"<<", Type::kString, "<<"},
      // quoted and block scalars are strings
      {"'10'", Type::kString, "10"},
      {"\"true\"", Type::kString, "true"},
      {"\"\"", Type::kString, ""},
      {"|\n  yes", Type::kString, "yes\n"},
      {">-\n  0x10", Type::kString, "0x10"},
      // explicit tags
      {"!!str 10", Type::kString, "10"},
      {"!!str ~", Type::kString, "~"},
      {"!!int \"12\"", Type::kInt, "12"},
      {"!!int 0x10", Type::kInt, "16"},
      {"!!float 10", Type::kFloat, "10"},
      {"!!float 0x10", Type::kFloat, "16"},
      {"!!float '1.5'", Type::kFloat, "1.5"},
      {"!!bool \"yes\"", Type::kBool, "true"},
      {"!!null ''", Type::kNull, ""},
      {"!<tag:yaml.org,2002:int> 7", Type::kInt, "7"},
      {"!!binary aGk=", Type::kString, "aGk="},
      {"!!timestamp 2001-12-14", Type::kString, "2001-12-14"},
      {"!!timestamp 2001-12-14t21:59:43.10-05:00", Type::kString, "2001-12-14t21:59:43.10-05:00"},
      {"!foo 12", Type::kString, "12"},
      {"! 12", Type::kString, "12"},
  };
  for (const Case& c : cases) {
    INFO(c.in);
    Value v;
    std::string error;
    REQUIRE(LoadValue(c.in, &v, &error));
    CHECK(TypeName(v.type()) == std::string(TypeName(c.type)));
    CHECK(v.text() == c.text);
  }
}

TEST_CASE("scalar typing: tags that do not fit the text", "[loader][yaml]") {
  struct Case {
    const char* in;
    const char* error;
  };
  const Case cases[] = {
      {"!!int abc", "m.yaml:1:4: \"abc\" is not a valid !!int"},
      {"!!int 1.5", "m.yaml:1:4: \"1.5\" is not a valid !!int"},
      {"!!bool 1", "m.yaml:1:4: \"1\" is not a valid !!bool"},
      {"!!null x", "m.yaml:1:4: \"x\" is not a valid !!null"},
      {"!!float yes", "m.yaml:1:4: \"yes\" is not a valid !!float"},
      {"!!timestamp soon", "m.yaml:1:4: \"soon\" is not a valid !!timestamp"},
      {"!!int 0123456789012345678901234567890123456789xyz",
       "m.yaml:1:4: \"0123456789012345678901234567890123456789...\" is not a valid !!int"},
  };
  for (const Case& c : cases) {
    INFO(c.in);
    Value v;
    std::string error;
    REQUIRE_FALSE(LoadValue(c.in, &v, &error));
    CHECK(error == c.error);
  }
}

TEST_CASE("mapping keys are stored as their resolved text", "[loader][yaml]") {
  std::vector<Document> docs;
  Error io;
  REQUIRE(LoadYamlString(
      "0x10: a\nyes: b\n1.50: c\n\"q\": d\n'off': e\n", "m.yaml", {},
      [&](Document&& d) {
        docs.push_back(std::move(d));
        return true;
      },
      &io));
  REQUIRE(docs.size() == 1);
  CHECK(ToJson(docs[0].root) == R"({"16":"a","true":"b","1.5":"c","q":"d","off":"e"})");
}

}  // namespace
}  // namespace gpulint
