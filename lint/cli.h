// The gpulint command line: a thin adapter that turns arguments, files and
// stdin into engine calls and findings into text, JSON or an exit code. Kept
// apart from main() so tests can run it in-process with captured streams.
#ifndef GPULINT_LINT_CLI_H_
#define GPULINT_LINT_CLI_H_

#include <iosfwd>
#include <string>
#include <vector>

#include "engine/finding.h"
#include "lint/output.h"

namespace gpulint {

// Exit codes, as documented in `gpulint --help`.
inline constexpr int kExitClean = 0;     // nothing at or above --fail-on
inline constexpr int kExitFindings = 1;  // findings at or above --fail-on
inline constexpr int kExitUsage = 2;     // bad usage, unreadable input, bad policy/nodes

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

// Internal: the parsed `check` command, shared by cli.cc and check.cc.
struct CheckOptions {
  std::string policy_file;               // empty: the built-in policy
  std::vector<std::string> nodes_files;  // --nodes, in order
  OutputFormat format = OutputFormat::kText;
  Severity fail_on = Severity::kError;
  bool quiet = false;
  std::vector<std::string> paths;  // "-" is stdin
};
int RunCheck(const CheckOptions& options, CliIo& io);

}  // namespace gpulint

#endif  // GPULINT_LINT_CLI_H_
