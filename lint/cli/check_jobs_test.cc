// `gpulint check --jobs N`: files checked side by side give the same bytes,
// in input order, as one file after another.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "lint/cli/cli_test_util.h"
#include "lint/output/formats.h"
#include "tests/golden.h"

namespace gpulint {
namespace {

using testing::Result;
using testing::Run;

std::string Rules() { return testing::SourceDir() + "/testdata/rules"; }

TEST_CASE("check --jobs: the same output for any number of jobs", "[cli][check][jobs]") {
  // testdata/rules: every rule's cases, parse errors included, in many files.
  // Every registered format, so a new one is held to it too.
  std::vector<std::string> names;
  for (const OutputFormat* f : OutputFormats()) names.emplace_back(f->name);
  auto format = GENERATE_COPY(from_range(names));
  INFO(format);
  std::vector<std::string> args = {"check", "--format", format, "--fail-on", "info",
                                   Rules(), Rules() + "/no-such-file.yaml"};
  auto with_jobs = [&](const std::string& jobs) {
    std::vector<std::string> a = args;
    a.insert(a.begin() + 1, {"--jobs", jobs});
    return Run(a);
  };
  Result one = with_jobs("1");
  // The run must have something to keep in order: findings from many files
  // and an input error after them.
  CHECK(one.rc == 2);
  CHECK(one.err.find("no-such-file.yaml") != std::string::npos);
  CHECK(one.out.find("gpu-fractional") != std::string::npos);
  CHECK(one.out.find("parse-error") != std::string::npos);
  for (const char* jobs : {"2", "3", "8"}) {
    INFO("--jobs " << jobs);
    Result many = with_jobs(jobs);
    CHECK(many.rc == one.rc);
    CHECK(many.out == one.out);
    CHECK(many.err == one.err);
  }
}

TEST_CASE("check --jobs: usage errors", "[cli][check][jobs]") {
  for (const char* bad : {"0", "-1", "257", "two", "3x", ""}) {
    INFO(bad);
    Result r = Run({"check", "--jobs", bad, "x.yaml"});
    CHECK(r.rc == 2);
    CHECK(r.err.find("--jobs: expected a number from 1 to 256, got '" + std::string(bad) + "'") !=
          std::string::npos);
  }
}

}  // namespace
}  // namespace gpulint
