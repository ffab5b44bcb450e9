// The CLI's commands, one file each (check_command.cc, fix_command.cc, ...),
// listed in one table in cli.cc, and the option parsing they share.
// Internal to lint/.
#ifndef GPULINT_LINT_COMMANDS_H_
#define GPULINT_LINT_COMMANDS_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lint/cli.h"

namespace gpulint {

struct Command {
  std::string_view name;
  std::string_view help;  // `gpulint NAME --help`, starting "Usage: gpulint NAME"
  // `args` are the arguments after the command's name.
  int (*run)(const std::vector<std::string>& args, CliIo& io);
};

const Command& CheckCommand();
const Command& BaselineCommand();
const Command& FixCommand();
const Command& NodePatchCommand();
const Command& QuantityCommand();
const Command& RulesCommand();
const Command& ExplainCommand();
const Command& VersionCommand();

// `gpulint baseline` (baseline_command.cc): a check run that writes the
// findings as a baseline (lint/baseline.h); it lives in check_command.cc.
int RunBaselineCommand(const std::vector<std::string>& args, CliIo& io);

// Every command, in the order the main help lists them.
const std::vector<const Command*>& AllCommands();

// "gpulint: error: MESSAGE" on stderr.
void Fail(CliIo& io, std::string_view message);

struct OptionSpec {
  std::string_view name;        // "--policy"
  std::string_view short_name;  // "-q", or empty
  bool takes_value = false;
  bool repeatable = false;
};

struct ParsedArgs {
  bool help = false;
  std::vector<std::string> positional;
  // Options as given, by their long name; flags have an empty value.
  std::vector<std::pair<std::string, std::string>> options;

  bool Has(std::string_view name) const;
  // The value of an option given once, or `fallback`.
  std::string Get(std::string_view name, std::string fallback = "") const;
  std::vector<std::string> All(std::string_view name) const;
};

// Reads `args`: options and positionals may be mixed; "--name=value" and
// "--name value" both work; "-" is a positional (stdin); "--" ends the options.
// -h/--help sets `help` and stops. With `negative_numbers`, "-1" and "-.5" are
// positionals. On a usage error returns false with *error, worded as
//   unknown option '--x' (see 'gpulint COMMAND --help')
bool ParseArgs(const std::vector<std::string>& args, std::string_view command,
               const std::vector<OptionSpec>& specs, bool negative_numbers, ParsedArgs* out,
               std::string* error);

// Parses, printing the help or the usage error. Returns -1 to go on, else the
// exit code.
int ParseOrExit(const std::vector<std::string>& args, const Command& command,
                const std::vector<OptionSpec>& specs, bool negative_numbers, ParsedArgs* out,
                CliIo& io);

}  // namespace gpulint

#endif  // GPULINT_LINT_COMMANDS_H_
