// gpulint: lints Kubernetes manifests for GPU workloads that can take nodes
// down. Everything lives in lint/ (RunCli); this only wires up the process.
// Installed as kubectl-gpulint too, it is kubectl's plugin: `kubectl gpulint
// audit` runs it with the arguments after "gpulint", so only its name differs.
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
  io.program = gpulint::ProgramName(argc > 0 ? argv[0] : "gpulint");
  io.color = gpulint::UseColor(isatty(STDOUT_FILENO) != 0, std::getenv("NO_COLOR"));
  return gpulint::RunCli(std::vector<std::string>(argv + 1, argv + argc), io);
}
