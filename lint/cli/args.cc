// What lint's commands add to the common parser (common/flags.h): the help
// text of the command and the "gpulint: error:" line.
#include <ostream>

#include "lint/cli/commands.h"

namespace gpulint {

void Fail(CliIo& io, std::string_view message) {
  io.err << io.program << ": error: " << message << '\n';
}

int ParseOrExit(const std::vector<std::string>& args, const Command& command,
                const std::vector<OptionSpec>& specs, bool negative_numbers, ParsedArgs* out,
                CliIo& io) {
  std::string error;
  if (!ParseArgs(args, io.program + " " + std::string(command.name), specs, negative_numbers, out,
                 &error)) {
    Fail(io, error);
    return kExitUsage;
  }
  if (out->help) {
    io.out << HelpFor(command.help, io.program);
    return kExitClean;
  }
  return -1;
}

}  // namespace gpulint
