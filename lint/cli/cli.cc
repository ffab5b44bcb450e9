// The command table and what needs no command of its own: the main help,
// `gpulint help`, `gpulint version`, and `gpulint FILE` meaning check.
#include "lint/cli/cli.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <ostream>
#include <string>
#include <string_view>

#include "common/version.h"
#include "lint/cli/commands.h"
#include "lint/output/formats.h"

namespace gpulint {
namespace {

constexpr std::string_view kMainHelp =
    R"(gpulint: keeps GPU workloads from taking Kubernetes nodes down.

Usage:
  gpulint check [OPTIONS] PATH... | -   lint manifests (the default command);
                                        --format @FORMATS@;
                                        --baseline FILE: only new findings
  gpulint baseline [OPTIONS] PATH...    write today's findings as a baseline
  gpulint fix [--write|--diff] PATH...  repair what check reports (units, GPU
                                        requests = limits, hidden GPUs);
                                        --mutations: the webhook's patch too
  gpulint audit [OPTIONS]               a live cluster as the webhook would
                                        judge it, and the nodes at risk now;
                                        --policy-report: as PolicyReports
  gpulint node-patch [OPTIONS] [-]      the node-status patch that advertises
                                        VRAM, from nvidia-smi or GFD labels
  gpulint quantity [--format json] Q... what a resource quantity really is
  gpulint policy check FILE...          validate policy files as the webhook
                                        loads them (for CI)
  gpulint policy schema [--values]      the policy format as a JSON Schema
  gpulint rules [--format text|json|markdown]
                                        list the rules
  gpulint explain RULE                  title, severity, rationale, fix, example
  gpulint export vap [--mode MODE]      the stateless rules as
                                        ValidatingAdmissionPolicies (CEL)
  gpulint version | --version           print the version and git revision
  gpulint help [COMMAND]                this text, or one command's

'gpulint FILE...' means 'gpulint check FILE...'. A PATH is a file, a directory
(searched recursively for *.yaml, *.yml and *.json) or - for stdin.

Exit status:
  0  nothing at or above --fail-on (default: error); fix: nothing to change
  1  findings at or above --fail-on; fix: something was (or would be) changed;
     quantity: an input is not a valid quantity; policy check: a policy is
     invalid
  2  usage error, or an input error: an unreadable input or one with no
     manifest, a chart that does not render, an invalid --policy, --nodes or
     --baseline file; audit: a cluster that cannot be read, a list refused

Examples:
  gpulint pod.yaml
  kubectl get nodes -o yaml > nodes.yaml; gpulint check --nodes nodes.yaml k8s/
  helm template chart/ | gpulint check --format json -
  gpulint check --format sarif k8s/ > gpulint.sarif
  gpulint audit --context prod       # or: kubectl gpulint audit
  gpulint baseline -o gpulint-baseline.json k8s/
  gpulint check --baseline gpulint-baseline.json k8s/
  gpulint fix --write k8s/
  nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader,nounits |
    gpulint node-patch --node gpu-node-1 --print-command
  gpulint quantity 500Gi 500GB
  gpulint policy check gpulint-policy.yaml
  gpulint explain gpu-fractional

Run 'gpulint COMMAND --help' for the options of a command.
)";

// check's usage line lists the formats from the one list of formats.
const std::string& MainHelp() {
  static const std::string help = HelpWithFormats(kMainHelp, OutputFormatAlternatives());
  return help;
}

constexpr std::string_view kVersionHelp = R"(Usage: gpulint version

Prints the version of gpulint and the git commit it was built from ("with
uncommitted changes" when tracked files differed from it; "no git revision"
when it was built from a source tree without .git).
)";

constexpr std::string_view kHelpHelp = R"(Usage: gpulint help [COMMAND]

Prints the overview of every command, or one command's help (the same as
'gpulint COMMAND --help').
)";

int RunVersion(const std::vector<std::string>& args, CliIo& io) {
  ParsedArgs parsed;
  if (int rc = ParseOrExit(args, VersionCommand(), {}, false, &parsed, io); rc >= 0) return rc;
  if (!parsed.positional.empty()) {
    Fail(io, "version takes no arguments");
    return kExitUsage;
  }
  io.out << VersionLine("gpulint") << '\n';
  return kExitClean;
}

std::string CommandList() {
  std::string out;
  for (const Command* c : AllCommands()) out += (out.empty() ? "" : ", ") + std::string(c->name);
  return out;
}

const Command* FindCommand(std::string_view name) {
  for (const Command* c : AllCommands())
    if (c->name == name) return c;
  return nullptr;
}

int RunHelp(const std::vector<std::string>& args, CliIo& io);

const Command& HelpCommand() {
  static const Command command{"help", kHelpHelp, RunHelp};
  return command;
}

int RunHelp(const std::vector<std::string>& args, CliIo& io) {
  if (args.empty()) {
    io.out << HelpFor(MainHelp(), io.program);
    return kExitClean;
  }
  if (args.size() > 1) {
    Fail(io, "help takes one COMMAND");
    return kExitUsage;
  }
  if (args[0] == "help" || args[0] == "-h" || args[0] == "--help") {
    io.out << HelpFor(kHelpHelp, io.program);
    return kExitClean;
  }
  const Command* command = FindCommand(args[0]);
  if (command == nullptr) {
    Fail(io, "unknown command '" + args[0] + "' (commands: " + CommandList() + ")");
    return kExitUsage;
  }
  io.out << HelpFor(command->help, io.program);
  return kExitClean;
}

// A bare word that is no file is far more likely a mistyped command than a
// manifest: say so, rather than "no such file".
bool LooksLikeCommand(const std::string& arg) {
  if (arg.empty() || arg[0] == '-') return false;
  bool word = std::all_of(arg.begin(), arg.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '_';
  });
  std::error_code ec;
  return word && !std::filesystem::exists(arg, ec);
}

int Dispatch(const std::vector<std::string>& args, CliIo& io) {
  if (args.empty()) {
    io.err << HelpFor(MainHelp(), io.program);
    return kExitUsage;
  }
  const std::string& first = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (first == "help") return RunHelp(rest, io);
  if (const Command* command = FindCommand(first)) return command->run(rest, io);
  if (first == "--version" && args.size() == 1) return RunVersion(rest, io);
  if (first == "-h" || first == "--help") {
    io.out << HelpFor(MainHelp(), io.program);
    return kExitClean;
  }
  if (LooksLikeCommand(first)) {
    Fail(io, "unknown command '" + first + "' and no such file (commands: " + CommandList() +
                 "; see 'gpulint --help')");
    return kExitUsage;
  }
  return CheckCommand().run(args, io);
}

}  // namespace

const Command& VersionCommand() {
  static const Command command{"version", kVersionHelp, RunVersion};
  return command;
}

const std::vector<const Command*>& AllCommands() {
  static const std::vector<const Command*> commands = {
      &CheckCommand(),     &BaselineCommand(), &FixCommand(),     &AuditCommand(),
      &NodePatchCommand(), &QuantityCommand(), &PolicyCommand(),  &RulesCommand(),
      &ExplainCommand(),   &ExportCommand(),   &VersionCommand(), &HelpCommand(),
  };
  return commands;
}

std::string ProgramName(const std::string& argv0) {
  std::string base = std::filesystem::path(argv0).filename().string();
  return base == "kubectl-gpulint" ? "kubectl gpulint" : "gpulint";
}

std::string HelpFor(std::string_view help, const std::string& program) {
  std::string out(help);
  if (program == "gpulint") return out;
  // "Usage: gpulint", and each usage line and example that starts with it.
  for (const char* at : {"Usage: ", "\n  "}) {
    std::string from = std::string(at) + "gpulint ", to = std::string(at) + program + " ";
    for (size_t i = 0; (i = out.find(from, i)) != std::string::npos; i += to.size())
      out.replace(i, from.size(), to);
  }
  return out;
}

bool UseColor(bool stdout_is_tty, const char* no_color_env) {
  return stdout_is_tty && (no_color_env == nullptr || no_color_env[0] == '\0');
}

int RunCli(const std::vector<std::string>& args, CliIo& io) {
  try {
    int rc = Dispatch(args, io);
    io.out.flush();
    return rc;
  } catch (const std::exception& e) {
    // The engine does not throw; this is the last line for std::bad_alloc and
    // the like, so a CI log shows a message rather than an abort.
    Fail(io, std::string("internal error: ") + e.what());
    return kExitUsage;
  }
}

}  // namespace gpulint
