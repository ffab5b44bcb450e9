// `gpulint policy check` and `gpulint policy schema`: a policy refused in CI
// and in the chart's values, before a webhook ever loads it (a webhook with no
// valid policy costs the cluster its admissions).
#include <ostream>
#include <string>
#include <vector>

#include "engine/policies.h"
#include "engine/policy/policy_schema.h"
#include "lint/cli/commands.h"
#include "lint/input/setup.h"

namespace gpulint {
namespace {

constexpr std::string_view kHelp = R"(Usage: gpulint policy check FILE...
       gpulint policy schema [--values] [--format json|markdown]

policy check validates each policy FILE as gpulint-webhook and 'gpulint check
--policy' load it: layered on the built-in policy, and read strictly, so an
unknown field, a value of the wrong type, an invalid quantity, an RE2 pattern
that does not compile or a rule name that no rule has is an error. It prints
for each FILE ('-' reads stdin) that it is ok, or every error in it, one line
each, in file order:
  FILE: ok
  FILE:LINE:COL: error: MESSAGE
What would make the errors after it meaningless stops the reading there:
YAML that does not parse, an apiVersion or kind that is not a policy's, a
value of the wrong type (nothing under it is read); a check across an
object's fields (a node class's GPU counts) waits until they all read.

policy schema prints the JSON Schema (draft-07) of a policy document. It is
generated from the table the policy loader reads with, so the two agree on
every field; editors that read JSON Schema check a policy as it is typed.

Options:
  --values          schema: of the webhook chart's 'policy' value ({name,
                    spec}) instead; charts/gpulint-webhook/values.schema.json
                    holds it (scripts/update-chart-schema), so helm refuses an
                    invalid policy at install, upgrade and template
  --format FORMAT   schema: json (default), or markdown: the field reference
                    table of policies/README.md
  -h, --help        print this text

Examples:
  gpulint policy check gpulint-policy.yaml .gpulint.yaml
  gpulint policy schema > gpulint-policy.schema.json

  A CI step (GitHub Actions) that refuses a broken policy before it ships:
    - name: Check the gpulint policy
      run: gpulint policy check deploy/gpulint-policy.yaml

Exit status: 0 when every FILE is a valid policy, 1 when one is not, 2 on a
usage error or a FILE that cannot be read.
)";

constexpr size_t kMaxPolicyBytes = 64u << 20;

// "FILE:LINE:COL: error: MESSAGE", as a compiler says it.
std::string ErrorLine(const Error& error) {
  Error line = error;
  line.message = "error: " + error.message;
  return line.ToString();
}

int RunCheck(const std::vector<std::string>& files, CliIo& io) {
  if (files.empty()) {
    Fail(io, "policy check needs a FILE, e.g. 'gpulint policy check gpulint-policy.yaml'");
    return kExitUsage;
  }
  int rc = kExitClean;
  for (const std::string& file : files) {
    std::string text;
    Error error;
    if (!ReadWhole(file, io.stdin_fd, kMaxPolicyBytes, &text, &error)) {
      io.out << ErrorLine(error) << '\n';
      rc = kExitUsage;
      continue;
    }
    Policy policy;
    std::vector<Error> errors;
    if (LoadPolicyText(text, DisplayName(file), &policy, &errors)) {
      io.out << DisplayName(file) << ": ok\n";
    } else {
      for (const Error& e : errors) io.out << ErrorLine(e) << '\n';
      if (rc == kExitClean) rc = kExitFindings;
    }
  }
  return rc;
}

int RunSchema(const ParsedArgs& parsed, CliIo& io) {
  if (!parsed.positional.empty()) {
    Fail(io, "policy schema takes no arguments");
    return kExitUsage;
  }
  std::string format = parsed.Get("--format", "json");
  if (format == "json") {
    io.out << PolicyJsonSchema(parsed.Has("--values") ? PolicySchemaShape::kChartValues
                                                      : PolicySchemaShape::kDocument);
    return kExitClean;
  }
  if (format != "markdown") {
    Fail(io, "--format: unknown format '" + format + "' (choose json or markdown)");
    return kExitUsage;
  }
  if (parsed.Has("--values")) {
    Fail(io, "--values is a JSON Schema; the markdown reference is of the whole policy");
    return kExitUsage;
  }
  io.out << PolicyFieldReference();
  return kExitClean;
}

int Run(const std::vector<std::string>& args, CliIo& io) {
  ParsedArgs parsed;
  if (int rc = ParseOrExit(args, PolicyCommand(), &parsed, io); rc >= 0) return rc;
  std::vector<std::string> rest = parsed.positional;
  std::string sub = rest.empty() ? "" : rest.front();
  if (!rest.empty()) rest.erase(rest.begin());
  if (sub == "check") {
    if (!parsed.options.empty()) {
      Fail(io, "policy check takes no options, only FILEs");
      return kExitUsage;
    }
    return RunCheck(rest, io);
  }
  if (sub == "schema") {
    parsed.positional = rest;
    return RunSchema(parsed, io);
  }
  Fail(io, sub.empty() ? "policy needs a subcommand: check or schema (see 'gpulint policy --help')"
                       : "unknown policy subcommand '" + sub + "' (choose check or schema)");
  return kExitUsage;
}

}  // namespace

const Command& PolicyCommand() {
  static const Command command{"policy",
                               kHelp,
                               Run,
                               {{"--values", "", false}, {"--format", "", true, false, "json markdown"}},
                               {"check", "schema"}};
  return command;
}

}  // namespace gpulint
