// The gpulint command line: a thin adapter that turns arguments, files and
// stdin into engine calls, and findings, fixed manifests and patches into
// output and an exit code. Kept apart from main() so tests can run it
// in-process with captured streams. The commands live one per file
// (lint/*_command.cc), listed in lint/cli/cli.cc.
#ifndef GPULINT_LINT_CLI_CLI_H_
#define GPULINT_LINT_CLI_CLI_H_

#include <iosfwd>
#include <string>
#include <vector>

namespace gpulint {

// Exit codes, as documented in `gpulint --help`.
inline constexpr int kExitClean = 0;     // nothing at or above --fail-on; nothing to fix
inline constexpr int kExitFindings = 1;  // findings at or above --fail-on; fixes made
inline constexpr int kExitUsage = 2;     // bad usage, or an input error (check --help)

// Where the command line reads and writes. main() passes the process's own;
// tests pass string streams and a pipe.
struct CliIo {
  std::ostream& out;
  std::ostream& err;
  int stdin_fd = 0;    // read for the path "-"
  bool color = false;  // see UseColor
};

// Colour only on a terminal, and never when NO_COLOR is set to a non-empty
// value (https://no-color.org).
bool UseColor(bool stdout_is_tty, const char* no_color_env);

// Runs one command line; `args` excludes the program name. Returns the exit
// code. Never throws.
int RunCli(const std::vector<std::string>& args, CliIo& io);

}  // namespace gpulint

#endif  // GPULINT_LINT_CLI_CLI_H_
