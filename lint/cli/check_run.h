// A `gpulint check` run (check_run.cc): inputs -> documents -> objects ->
// Evaluate -> findings, written in the chosen format. Its options are read
// from the command line by check_command.cc, for check and for baseline.
// Internal to lint/.
#ifndef GPULINT_LINT_CLI_CHECK_RUN_H_
#define GPULINT_LINT_CLI_CHECK_RUN_H_

#include <optional>
#include <string>
#include <vector>

#include "engine/base/finding.h"
#include "lint/cli/cli.h"
#include "lint/input/exclude.h"
#include "lint/input/render.h"
#include "lint/output/formats.h"

namespace gpulint {

struct CheckOptions {
  std::string policy_file;               // empty: the built-in policy
  std::vector<std::string> nodes_files;  // --nodes, in order
  const OutputFormat* format = OutputFormats().front();
  std::optional<Severity> fail_on = Severity::kError;  // none: findings never fail
  bool quiet = false;
  bool strict = false;             // workload-not-checked is an error
  int jobs = 0;                    // 0: one per core this process may run on
  std::vector<std::string> paths;  // "-" is stdin; none only with allow_empty
  bool allow_empty = false;        // a PATH with no manifest is a warning, not an error
  std::string baseline_file;       // --baseline: report only findings not in it
  bool write_baseline = false;     // `gpulint baseline`: write one instead of a report
  std::string output_file;         // `gpulint baseline --output`; empty: stdout
  RenderOptions render;            // --values, for charts
  ExcludePatterns exclude;         // --exclude
  // --stdin-filename: the name stdin's findings carry, and where its policy
  // is looked up from; empty: "<stdin>", from the current directory.
  std::string stdin_filename;
};

// Runs `gpulint check` (or, with write_baseline, `gpulint baseline`) and
// returns the exit status.
int RunCheck(const CheckOptions& options, CliIo& io);

}  // namespace gpulint

#endif  // GPULINT_LINT_CLI_CHECK_RUN_H_
