// `gpulint baseline`: the findings of a check run, written as a baseline file
// (lint/cli/baseline.h) for `gpulint check --baseline`. The run itself is check's
// (RunBaselineCommand in check_command.cc), so the two cannot disagree on
// which findings there are.
#include "lint/cli/commands.h"

namespace gpulint {
namespace {

constexpr std::string_view kHelp = R"(Usage: gpulint baseline [OPTIONS] PATH... | -

Writes every finding of the inputs, whatever its severity, as a baseline: the
findings a repository already has when it adopts gpulint, accepted as they
are. 'gpulint check --baseline FILE' then reports only findings that are not
in it, so CI fails on new problems while old ones are fixed at their own pace.

Options:
  --policy FILE        as for check: the policy to judge with
  --nodes FILE         as for check: real nodes to check fit against.
                       Repeatable
  -f, --values FILE    as for check: values for every Helm chart. Repeatable
  -o, --output FILE    write the baseline to FILE (created, or replaced
                       atomically) instead of stdout
  -j, --jobs N         check N files at a time; the baseline is the same
  --allow-empty        as for check: a PATH with no manifest is a warning,
                       not an error (an empty baseline is then written)
  --exclude GLOB       as for check: leave out what GLOB matches (see
                       'gpulint check --help'). Repeatable
  -q, --quiet          leave out the summary line
  -h, --help           print this text

The baseline is JSON, one finding per line, sorted by file, object, rule and
message so that regenerating it gives a small diff to review:
  {"version": 2,
   "findings": [{"fingerprint", "rule", "file", "object", "message"}]}
Only "fingerprint" is matched; the rest says what was accepted. A fingerprint
hashes the rule, the file, the object's apiVersion, kind, namespace and name,
the field path and the message, not the line: lines inserted above a finding
keep it in the baseline, while a changed value makes it a new finding. A
finding listed twice hides two alike; a third is new.

Files are named relative to the repository root (the directory holding .git)
of the baseline file, or, outside a repository, to the baseline file's
directory (the current directory for stdout and stdin). So 'check --baseline'
matches from any directory, with the inputs named relative, absolute or ./x
alike. A baseline that hides none of a run's findings is warned about on
stderr. A version 1 baseline named files from the directory it was written
in: it is still read, and matches from there only; write it again to move on.

Nothing is written when an input cannot be read, or a PATH holds no
manifest (without --allow-empty).

Examples:
  gpulint baseline -o gpulint-baseline.json k8s/
  gpulint check --baseline gpulint-baseline.json k8s/

Exit status: 0 written, 2 error.
)";

}  // namespace

const Command& BaselineCommand() {
  static const Command command{"baseline",
                               kHelp,
                               RunBaselineCommand,
                               {
                                   {"--policy", "", true},
                                   {"--nodes", "", true, true},
                                   {"--quiet", "-q"},
                                   {"--jobs", "-j", true},
                                   {"--output", "-o", true},
                                   {"--values", "-f", true, true},
                                   {"--allow-empty", ""},
                                   {"--exclude", "", true, true},
                                   {"--stdin-filename", "", true},
                               }};
  return command;
}

}  // namespace gpulint
