// The gpulint command line: a thin adapter that turns arguments, files and
// stdin into engine calls, and findings, fixed manifests and patches into
// output and an exit code. Kept apart from main() so tests can run it
// in-process with captured streams. The commands live one per file
// (lint/*_command.cc), listed in lint/cli/cli.cc.
#ifndef GPULINT_LINT_CLI_CLI_H_
#define GPULINT_LINT_CLI_CLI_H_

#include <iosfwd>
#include <string>
#include <string_view>
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
  // How the user called it, for help and errors: "kubectl gpulint" when it
  // runs as kubectl's plugin (ProgramName).
  std::string program = "gpulint";
};

// The name to show for a binary started as `argv0`: "kubectl gpulint" for
// kubectl-gpulint (installed beside gpulint, kubectl runs it for `kubectl
// gpulint ...`, as krew's plugins), else "gpulint".
std::string ProgramName(const std::string& argv0);

// `help` as `program` is called: its usage lines and examples name it.
std::string HelpFor(std::string_view help, const std::string& program);

// Colour only on a terminal, and never when NO_COLOR is set to a non-empty
// value (https://no-color.org).
bool UseColor(bool stdout_is_tty, const char* no_color_env);

// Runs one command line; `args` excludes the program name. Returns the exit
// code. Never throws.
int RunCli(const std::vector<std::string>& args, CliIo& io);

}  // namespace gpulint

#endif  // GPULINT_LINT_CLI_CLI_H_
