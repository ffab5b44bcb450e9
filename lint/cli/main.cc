// gpulint: lints Kubernetes manifests for GPU workloads that can take nodes
// down. Everything lives in lint/ (RunCli); this only wires up the process.
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "lint/cli/cli.h"

int main(int argc, char** argv) {
  // Unsynchronised streams are buffered; the CLI flushes only at the end.
  std::ios::sync_with_stdio(false);
  gpulint::CliIo io{std::cout, std::cerr};
  io.stdin_fd = STDIN_FILENO;
  io.color = gpulint::UseColor(isatty(STDOUT_FILENO) != 0, std::getenv("NO_COLOR"));
  return gpulint::RunCli(std::vector<std::string>(argv + 1, argv + argc), io);
}
