// The CLI's commands, one file each (check_command.cc, fix_command.cc, ...),
// listed in one table in cli.cc, and the option parsing they share.
// Internal to lint/.
#ifndef GPULINT_LINT_CLI_COMMANDS_H_
#define GPULINT_LINT_CLI_COMMANDS_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/flags.h"
#include "lint/cli/cli.h"
#include "lint/input/exclude.h"

namespace gpulint {

struct Command {
  std::string_view name;
  std::string_view help;  // `gpulint NAME --help`, starting "Usage: gpulint NAME"
  // `args` are the arguments after the command's name.
  int (*run)(const std::vector<std::string>& args, CliIo& io);
  // What it parses its arguments by (ParseOrExit), and what shell completion
  // offers (completion_command.cc): the one table of its options.
  std::vector<OptionSpec> options = {};
  // The words it takes first ("policy check"), for completion.
  std::vector<std::string_view> subcommands = {};
  // Negative numbers ("-1") are arguments, not options (quantity).
  bool negative_numbers = false;
};

const Command& CheckCommand();
const Command& AuditCommand();
const Command& BaselineCommand();
const Command& FixCommand();
const Command& NodePatchCommand();
const Command& QuantityCommand();
const Command& PolicyCommand();
const Command& RulesCommand();
const Command& ExplainCommand();
const Command& ExportCommand();
const Command& VersionCommand();
const Command& CompletionCommand();

// `gpulint baseline` (baseline_command.cc): a check run that writes the
// findings as a baseline (lint/cli/baseline.h); it lives in check_command.cc.
int RunBaselineCommand(const std::vector<std::string>& args, CliIo& io);

// --fail-on's values, for completion.
inline constexpr std::string_view kFailOnChoices = "error warning info none";

// Every command, in the order the main help lists them.
const std::vector<const Command*>& AllCommands();

// --exclude's patterns (check, baseline, fix). False with *error for one that
// names nothing.
bool ReadExcludes(const ParsedArgs& parsed, ExcludePatterns* out, std::string* error);

// "gpulint: error: MESSAGE" on stderr.
void Fail(CliIo& io, std::string_view message);

// Parses by the command's options, printing the help or the usage error.
// Returns -1 to go on, else the exit code.
int ParseOrExit(const std::vector<std::string>& args, const Command& command, ParsedArgs* out,
                CliIo& io);

}  // namespace gpulint

#endif  // GPULINT_LINT_CLI_COMMANDS_H_
