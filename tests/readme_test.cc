// What is generated from the binary and checked in must be current: the
// README's rule catalogue (`gpulint rules --format markdown`), the policy's
// field reference in policies/README.md (`gpulint policy schema --format
// markdown`), the chart's values schema for `policy` (`gpulint policy schema
// --values`). The README shows the command CI runs; its CI examples fail on an
// input error.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "tests/golden.h"

namespace gpulint::testing {
namespace {

std::string Run(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  CHECK(pclose(pipe) == 0);
  return out;
}

}  // namespace

// The text of `file` from the line after the one holding `begin` up to `end`.
std::string Between(const std::string& file, const std::string& begin, const std::string& end) {
  std::string text = ReadFile(SourceDir() + "/" + file);
  size_t b = text.find(begin);
  size_t e = text.find(end);
  REQUIRE(b != std::string::npos);
  REQUIRE(e != std::string::npos);
  b = text.find('\n', b) + 1;
  return text.substr(b, e - b);
}

TEST_CASE("README rule catalogue is generated from the rules", "[readme]") {
  std::string generated = Run(std::string(GPULINT_BINARY) + " rules --format markdown");
  INFO("regenerate with: scripts/update-readme");
  CHECK(Between("README.md", "<!-- BEGIN RULES", "<!-- END RULES -->") == generated);
}

TEST_CASE("the policy's field reference is generated from the loader's table", "[readme][policy]") {
  std::string generated = Run(std::string(GPULINT_BINARY) + " policy schema --format markdown");
  INFO("regenerate with: scripts/update-readme");
  CHECK(Between("policies/README.md", "<!-- BEGIN POLICY FIELDS", "<!-- END POLICY FIELDS -->") ==
        generated);
}

TEST_CASE("the chart's values schema holds the generated policy schema", "[readme][policy]") {
  auto values =
      nlohmann::json::parse(ReadFile(SourceDir() + "/charts/gpulint-webhook/values.schema.json"));
  auto generated =
      nlohmann::json::parse(Run(std::string(GPULINT_BINARY) + " policy schema --values"));
  INFO("regenerate with: scripts/update-chart-schema");
  CHECK(values["properties"]["policy"] == generated);
}

TEST_CASE("README shows the command CI runs", "[readme]") {
  std::string ci = ReadFile(SourceDir() + "/.ci/run");
  std::string readme = ReadFile(SourceDir() + "/README.md");
  CHECK(ci.find("./dev test") != std::string::npos);
  CHECK(readme.find("./dev test") != std::string::npos);
  CHECK(readme.find("./dev run") != std::string::npos);
}

// An empty SARIF log uploaded after a failed run closes every open alert:
// the examples must let an input error fail the job and still upload.
TEST_CASE("README's CI examples do not hide failures", "[readme]") {
  std::string readme = ReadFile(SourceDir() + "/README.md");
  size_t b = readme.find("### In CI");
  REQUIRE(b != std::string::npos);
  std::string ci = readme.substr(b, readme.find("\n### ", b) - b);
  CHECK(ci.find("|| true") == std::string::npos);
  CHECK(ci.find("if: always()") != std::string::npos);
  CHECK(ci.find("when: always") != std::string::npos);
  // Each gpulint command, pointed at a directory that is not there: exit 2
  // for that (not for a usage error), whatever the format.
  size_t commands = 0;
  for (size_t at = ci.find("build/gpulint check"); at != std::string::npos;
       at = ci.find("build/gpulint check", at + 1)) {
    std::string line = ci.substr(at, ci.find('\n', at) - at);
    line = line.substr(0, std::min(line.find(" >"), line.find("  #")));
    INFO(line);
    size_t dir = line.find(" k8s/");
    REQUIRE(dir != std::string::npos);
    std::string command = std::string(GPULINT_BINARY) + line.substr(13, dir - 13) +
                          " /nonexistent/k8s/ 2>&1 >/dev/null; echo \"exit $?\"";
    std::string out = Run(command);
    CHECK(out ==
          "gpulint: error: /nonexistent/k8s/: no such file or directory\n"
          "gpulint: 0 errors, 0 warnings in 0 objects (0 files)\nexit 2\n");
    ++commands;
  }
  CHECK(commands == 3);
}

}  // namespace gpulint::testing
