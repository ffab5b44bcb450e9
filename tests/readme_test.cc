// What is generated from the binary and checked in must be current: the
// README's rule catalogue (`gpulint rules --format markdown`), the chart's
// values schema for `policy` (`gpulint policy schema --values`). The README
// shows the command CI runs.
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

TEST_CASE("README rule catalogue is generated from the rules", "[readme]") {
  std::string readme = ReadFile(SourceDir() + "/README.md");
  const std::string begin = "<!-- BEGIN RULES";
  const std::string end = "<!-- END RULES -->";
  size_t b = readme.find(begin);
  size_t e = readme.find(end);
  REQUIRE(b != std::string::npos);
  REQUIRE(e != std::string::npos);
  b = readme.find('\n', b) + 1;
  std::string generated = Run(std::string(GPULINT_BINARY) + " rules --format markdown");
  INFO("regenerate with: scripts/update-readme");
  CHECK(readme.substr(b, e - b) == generated);
}

TEST_CASE("the chart's values schema holds the generated policy schema", "[readme][policy]") {
  auto values = nlohmann::json::parse(
      ReadFile(SourceDir() + "/charts/gpulint-webhook/values.schema.json"));
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

}  // namespace gpulint::testing
