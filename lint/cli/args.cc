// What lint's commands add to the common parser (common/flags.h): the help
// text of the command, the "gpulint: error:" line, and --exclude.
#include <ostream>

#include "engine/base/edit_distance.h"
#include "lint/cli/commands.h"

namespace gpulint {

void Fail(CliIo& io, std::string_view message) {
  io.err << io.program << ": error: " << message << '\n';
}

bool ReadExcludes(const ParsedArgs& parsed, ExcludePatterns* out, std::string* error) {
  for (const std::string& glob : parsed.All("--exclude"))
    if (!out->Add(glob, error)) return false;
  return true;
}

int ParseOrExit(const std::vector<std::string>& args, const Command& command, ParsedArgs* out,
                CliIo& io) {
  std::string error;
  if (!ParseArgs(args, io.program + " " + std::string(command.name), command.options,
                 command.negative_numbers, ClosestWord, out, &error)) {
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
