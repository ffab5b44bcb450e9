// The parser both binaries share: what it accepts and its words, exactly.
#include "common/flags.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "engine/base/edit_distance.h"

namespace gpulint {
namespace {

const std::vector<OptionSpec> kSpecs = {
    {"--policy", "", true},
    {"--values", "-f", true, true},
    {"--quiet", "-q", false},
};

struct Result {
  bool ok = false;
  ParsedArgs parsed;
  std::string error;
};

Result Parse(const std::vector<std::string>& args, bool negative_numbers = false) {
  Result r;
  r.ok =
      ParseArgs(args, "gpulint check", kSpecs, negative_numbers, ClosestWord, &r.parsed, &r.error);
  return r;
}

TEST_CASE("flags: values, flags and positionals, mixed", "[flags]") {
  Result r = Parse({"a.yaml", "--policy=p.yaml", "-q", "-f", "v1.yaml", "b.yaml", "--values",
                    "v2.yaml", "-", "--", "--not-an-option"});
  REQUIRE(r.ok);
  CHECK_FALSE(r.parsed.help);
  CHECK(r.parsed.positional ==
        std::vector<std::string>{"a.yaml", "b.yaml", "-", "--not-an-option"});
  CHECK(r.parsed.Get("--policy") == "p.yaml");
  CHECK(r.parsed.Has("--quiet"));
  CHECK(r.parsed.Get("--quiet", "x").empty());
  CHECK(r.parsed.All("--values") == std::vector<std::string>{"v1.yaml", "v2.yaml"});
  CHECK(r.parsed.Get("--missing", "fallback") == "fallback");
  CHECK_FALSE(r.parsed.Has("--missing"));
}

TEST_CASE("flags: usage errors name the option and the help to read", "[flags]") {
  struct Case {
    std::vector<std::string> args;
    std::string error;
  } cases[] = {
      {{"--polcy", "p"},
       "unknown option '--polcy'; did you mean '--policy'? (see 'gpulint check --help')"},
      {{"--quite"},
       "unknown option '--quite'; did you mean '--quiet'? (see 'gpulint check --help')"},
      {{"--value=v.yaml"},
       "unknown option '--value'; did you mean '--values'? (see 'gpulint check --help')"},
      {{"-policy", "p"},
       "unknown option '-policy'; did you mean '--policy'? (see 'gpulint check --help')"},
      {{"--hlep"}, "unknown option '--hlep'; did you mean '--help'? (see 'gpulint check --help')"},
      {{"--frobnicate"}, "unknown option '--frobnicate' (see 'gpulint check --help')"},
      {{"-x"}, "unknown option '-x' (see 'gpulint check --help')"},
      {{"--policy"}, "option '--policy' needs a value"},
      {{"--policy", "a", "--policy=b"}, "option '--policy' given twice"},
      {{"--quiet=yes"}, "option '--quiet' takes no value"},
      {{"-5"}, "unknown option '-5' (see 'gpulint check --help')"},
  };
  for (const Case& c : cases) {
    INFO(c.args.front());
    Result r = Parse(c.args);
    CHECK_FALSE(r.ok);
    CHECK(r.error == c.error);
  }
  std::string error;
  ParsedArgs parsed;
  CHECK_FALSE(ParseArgs({"--bogus"}, "gpulint-webhook", {}, false, ClosestWord, &parsed, &error));
  CHECK(error == "unknown option '--bogus' (see 'gpulint-webhook --help')");
}

TEST_CASE("flags: a flag without a value may be repeated, one with a value may not", "[flags]") {
  Result r = Parse({"-q", "--quiet"});
  REQUIRE(r.ok);
  CHECK(r.parsed.All("--quiet") == std::vector<std::string>{"", ""});
  Result twice = Parse({"--policy=a", "--policy", "a"});
  CHECK_FALSE(twice.ok);
  CHECK(twice.error == "option '--policy' given twice");
}

TEST_CASE("flags: a short option's value may follow it in the same argument", "[flags]") {
  Result r = Parse({"-fv1.yaml", "-f", "v2.yaml", "-q"});
  REQUIRE(r.ok);
  CHECK(r.parsed.All("--values") == std::vector<std::string>{"v1.yaml", "v2.yaml"});
  Result flag = Parse({"-qx"});  // -q takes no value: not "-q x"
  CHECK_FALSE(flag.ok);
  CHECK(flag.error == "unknown option '-qx' (see 'gpulint check --help')");
}

TEST_CASE("flags: negative numbers are positionals only when asked for", "[flags]") {
  Result r = Parse({"-5", "-.5", "--quiet"}, true);
  REQUIRE(r.ok);
  CHECK(r.parsed.positional == std::vector<std::string>{"-5", "-.5"});
  CHECK(r.parsed.Has("--quiet"));
}

TEST_CASE("flags: --help stops reading, whatever follows", "[flags]") {
  for (const char* help : {"--help", "-h"}) {
    Result r = Parse({"a.yaml", help, "--bogus"});
    CHECK(r.ok);
    CHECK(r.parsed.help);
  }
  Result after_dashes = Parse({"--", "--help"});
  REQUIRE(after_dashes.ok);
  CHECK_FALSE(after_dashes.parsed.help);
  CHECK(after_dashes.parsed.positional == std::vector<std::string>{"--help"});
}

TEST_CASE("durations as Go and kubectl write them", "[flags]") {
  using std::chrono::milliseconds;
  struct Case {
    std::string text;
    long long ms;  // -1: refused
  } cases[] = {
      {"0", 0},           {"90s", 90000},   {"15m", 900000}, {"1m30s", 90000}, {"2h", 7200000},
      {"500ms", 500},     {"1h0m5s", 3605000},
      {"", -1},           {"15", -1},       {"1.5m", -1},    {"-5s", -1},      {"5 s", -1},
      {"5d", -1},         {"m", -1},        {"9999h", -1},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    milliseconds d{};
    CHECK(ParseDuration(c.text, &d) == (c.ms >= 0));
    if (c.ms >= 0) CHECK(d.count() == c.ms);
  }
  CHECK(FormatDuration(milliseconds(90000)) == "1m30s");
  CHECK(FormatDuration(milliseconds(900000)) == "15m");
  CHECK(FormatDuration(milliseconds(0)) == "0s");
  CHECK(FormatDuration(milliseconds(1500)) == "1s500ms");
}

}  // namespace
}  // namespace gpulint
