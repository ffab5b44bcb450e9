#include "lint/cli.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string_view>

#include "engine/policy.h"
#include "engine/rule.h"

#ifndef GPULINT_VERSION
#define GPULINT_VERSION "0.1.0"
#endif

namespace gpulint {
namespace {

constexpr std::string_view kMainHelp =
    R"(gpulint: keeps GPU workloads from taking Kubernetes nodes down.

Usage:
  gpulint check [OPTIONS] PATH... | -   lint manifests (the default command)
  gpulint rules [--format text|json|markdown]
                                        list the rules
  gpulint explain RULE                  title, severity, rationale, fix, example
  gpulint version | --version           print the version
  gpulint help [COMMAND]                this text, or one command's

'gpulint FILE...' means 'gpulint check FILE...'. A PATH is a file, a directory
(searched recursively for *.yaml, *.yml and *.json) or - for stdin.

Exit status:
  0  nothing at or above --fail-on (default: error)
  1  findings at or above --fail-on
  2  usage error, unreadable input, or an invalid --policy or --nodes file

Examples:
  gpulint pod.yaml
  kubectl get nodes -o yaml > nodes.yaml; gpulint check --nodes nodes.yaml k8s/
  helm template chart/ | gpulint check --format json -
  gpulint explain gpu-fractional

Run 'gpulint COMMAND --help' for the options of a command.
)";

constexpr std::string_view kCheckHelp = R"(Usage: gpulint check [OPTIONS] PATH... | -

Lints Kubernetes manifests (YAML or JSON, any number of documents per file,
kind: List included) for GPU workloads that can take nodes down.

Options:
  --policy FILE        use this policy (kind: Policy, gpulint.io/v1alpha1)
                       instead of the built-in one
  --nodes FILE         real nodes to check fit against, added to the policy's
                       node classes: 'kubectl get nodes -o yaml' (or -o json)
                       output, or Node documents. Repeatable
  --format FORMAT      text (default) or json
  --fail-on SEVERITY   the lowest severity that makes the exit status 1:
                       error (default), warning or info
  -q, --quiet          leave out the summary line
  -h, --help           print this text

Output:
  text  one line per finding on stdout, as compilers print them:
          file:line:col: severity: message [rule]
        stdin shows as <stdin>. The summary line, e.g.
          gpulint: 3 errors, 1 warning in 2 objects (5 files)
        goes to stderr, so stdout holds findings only. Colour only when
        stdout is a terminal and NO_COLOR is not set.
  json  one object on stdout (line and column are 1-based, 0 when unknown):
          {"findings": [{"rule", "severity", "message", "file", "line",
            "column", "object": {"apiVersion", "kind", "namespace", "name"},
            "path"}],
           "summary": {"errors", "warnings", "infos", "objects", "files"}}

A document that cannot be parsed is a parse-error finding; the run goes on
with the other documents and files. Problems with the inputs themselves (a
missing file, an invalid policy or nodes file) are printed to stderr as
'gpulint: error: ...' and make the exit status 2.

Exit status: 0 clean, 1 findings at or above --fail-on, 2 error.
)";

constexpr std::string_view kRulesHelp = R"(Usage: gpulint rules [--format text|json|markdown]

Lists every rule with its default severity and title.

Options:
  --format FORMAT   text (default): one rule per line
                    json: {"rules": [{"name", "severity", "title",
                           "rationale", "fix", "example"}]}
                    markdown: a table and one section per rule; the README's
                    rule catalogue is generated from it
  -h, --help        print this text
)";

constexpr std::string_view kExplainHelp = R"(Usage: gpulint explain RULE

Prints a rule's title, default severity, why it matters, how to fix it, an
example, and how to accept a finding for one object. 'gpulint rules' lists the
rule names.
)";

constexpr std::string_view kVersionHelp = R"(Usage: gpulint version

Prints the version of gpulint.
)";

void Fail(CliIo& io, std::string_view message) { io.err << "gpulint: error: " << message << '\n'; }

// One option as written: "--name=value" is split; "--name value" takes the
// next argument when the option wants a value.
class ArgReader {
 public:
  ArgReader(const std::vector<std::string>& args, size_t start) : args_(args), i_(start) {}
  bool done() const { return i_ >= args_.size(); }
  const std::string& Next() { return args_[i_++]; }
  // Reads the value of `option` (its inline part, or the next argument).
  bool Value(std::string_view option, const std::optional<std::string>& inline_value,
             std::string* out, std::string* error) {
    if (inline_value) {
      *out = *inline_value;
      return true;
    }
    if (done()) {
      *error = "option '" + std::string(option) + "' needs a value";
      return false;
    }
    *out = Next();
    return true;
  }

 private:
  const std::vector<std::string>& args_;
  size_t i_;
};

void SplitOption(const std::string& arg, std::string* name, std::optional<std::string>* value) {
  size_t eq = arg.find('=');
  if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
    *name = arg.substr(0, eq);
    *value = arg.substr(eq + 1);
  } else {
    *name = arg;
    value->reset();
  }
}

std::string UnknownOption(std::string_view name, std::string_view command) {
  return "unknown option '" + std::string(name) + "' (see 'gpulint " + std::string(command) +
         " --help')";
}

bool ParseFormat(std::string_view value, bool allow_markdown, OutputFormat* out,
                 std::string* error) {
  if (ParseOutputFormat(value, out) && (allow_markdown || *out != OutputFormat::kMarkdown))
    return true;
  *error = "--format: unknown format '" + std::string(value) +
           (allow_markdown ? "' (choose text, json or markdown)" : "' (choose text or json)");
  return false;
}

// What the parser cannot see one argument at a time.
bool ValidateCheckOptions(const CheckOptions& options, std::string* error) {
  for (const std::string& p : options.paths) {
    if (p.empty()) {
      *error = "empty path";
      return false;
    }
  }
  if (options.paths.empty()) {
    *error = "no input: give a PATH, or - to read stdin (see 'gpulint check --help')";
    return false;
  }
  size_t stdin_reads = std::count(options.paths.begin(), options.paths.end(), "-") +
                       std::count(options.nodes_files.begin(), options.nodes_files.end(), "-");
  if (stdin_reads > 1) {
    *error = "stdin ('-') can be read only once";
    return false;
  }
  return true;
}

// Fills `options` from args[start...]; options and paths may be mixed, and
// "--" ends the options.
bool ParseCheckArgs(const std::vector<std::string>& args, size_t start, CheckOptions* options,
                    bool* help, std::string* error) {
  ArgReader reader(args, start);
  bool options_done = false;
  while (!reader.done()) {
    const std::string& arg = reader.Next();
    if (options_done || arg == "-" || arg.empty() || arg[0] != '-') {
      options->paths.push_back(arg);
      continue;
    }
    std::string name, value;
    std::optional<std::string> inline_value;
    SplitOption(arg, &name, &inline_value);
    if (name == "--") {
      options_done = true;
    } else if (name == "-h" || name == "--help") {
      *help = true;
      return true;
    } else if (name == "-q" || name == "--quiet") {
      if (inline_value) {
        *error = "option '--quiet' takes no value";
        return false;
      }
      options->quiet = true;
    } else if (name == "--policy") {
      if (!reader.Value(name, inline_value, &value, error)) return false;
      if (!options->policy_file.empty()) {
        *error = "option '--policy' given twice";
        return false;
      }
      options->policy_file = value;
    } else if (name == "--nodes") {
      if (!reader.Value(name, inline_value, &value, error)) return false;
      options->nodes_files.push_back(value);
    } else if (name == "--format") {
      if (!reader.Value(name, inline_value, &value, error)) return false;
      if (!ParseFormat(value, false, &options->format, error)) return false;
    } else if (name == "--fail-on") {
      if (!reader.Value(name, inline_value, &value, error)) return false;
      if (!ParseSeverity(value, &options->fail_on)) {
        *error = "--fail-on: unknown severity '" + value + "' (choose error, warning or info)";
        return false;
      }
    } else {
      *error = UnknownOption(name, "check");
      return false;
    }
  }
  return ValidateCheckOptions(*options, error);
}

int CheckCommand(const std::vector<std::string>& args, size_t start, CliIo& io) {
  CheckOptions options;
  bool help = false;
  std::string error;
  if (!ParseCheckArgs(args, start, &options, &help, &error)) {
    Fail(io, error);
    return kExitUsage;
  }
  if (help) {
    io.out << kCheckHelp;
    return kExitClean;
  }
  return RunCheck(options, io);
}

// Options shared by the commands that take nothing but --help (and, for
// rules, --format). Returns -1 to go on, else the exit code.
int ParseSimpleArgs(const std::vector<std::string>& args, std::string_view command,
                    std::string_view help_text, OutputFormat* format,
                    std::vector<std::string>* positional, CliIo& io) {
  ArgReader reader(args, 1);
  std::string error;
  while (!reader.done()) {
    const std::string& arg = reader.Next();
    if (arg.empty() || arg[0] != '-' || arg == "-") {
      positional->push_back(arg);
      continue;
    }
    std::string name, value;
    std::optional<std::string> inline_value;
    SplitOption(arg, &name, &inline_value);
    if (name == "-h" || name == "--help") {
      io.out << help_text;
      return kExitClean;
    }
    if (name == "--format" && format != nullptr) {
      if (!reader.Value(name, inline_value, &value, &error) ||
          !ParseFormat(value, true, format, &error)) {
        Fail(io, error);
        return kExitUsage;
      }
      continue;
    }
    Fail(io, UnknownOption(name, command));
    return kExitUsage;
  }
  return -1;
}

int RulesCommand(const std::vector<std::string>& args, CliIo& io) {
  OutputFormat format = OutputFormat::kText;
  std::vector<std::string> positional;
  int rc = ParseSimpleArgs(args, "rules", kRulesHelp, &format, &positional, io);
  if (rc >= 0) return rc;
  if (!positional.empty()) {
    Fail(io, "rules takes no arguments (did you mean 'gpulint explain " + positional[0] + "'?)");
    return kExitUsage;
  }
  std::string text;
  switch (format) {
    case OutputFormat::kText:
      AppendRulesText(AllRules(), &text);
      break;
    case OutputFormat::kJson:
      AppendRulesJson(AllRules(), &text);
      break;
    case OutputFormat::kMarkdown:
      AppendRulesMarkdown(AllRules(), &text);
      break;
  }
  io.out << text;
  return kExitClean;
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The rule whose name is closest to `name`, when it is close enough to be a typo.
const Rule* ClosestRule(std::string_view name) {
  const Rule* best = nullptr;
  size_t best_distance = std::max<size_t>(2, name.size() / 4) + 1;
  for (const Rule* r : AllRules()) {
    size_t d = EditDistance(name, r->info.name);
    if (d < best_distance) {
      best = r;
      best_distance = d;
    }
  }
  return best;
}

int ExplainCommand(const std::vector<std::string>& args, CliIo& io) {
  std::vector<std::string> positional;
  int rc = ParseSimpleArgs(args, "explain", kExplainHelp, nullptr, &positional, io);
  if (rc >= 0) return rc;
  if (positional.size() != 1) {
    Fail(io, positional.empty() ? "explain needs a RULE ('gpulint rules' lists them)"
                                : "explain takes one RULE");
    return kExitUsage;
  }
  const Rule* rule = FindRule(positional[0]);
  if (rule == nullptr) {
    std::string message = "unknown rule '" + positional[0] + "'";
    if (const Rule* close = ClosestRule(positional[0]))
      message += " (did you mean '" + std::string(close->info.name) + "'?)";
    Fail(io, message + "; 'gpulint rules' lists them");
    return kExitUsage;
  }
  std::string text;
  AppendExplanation(*rule, DefaultPolicy().ignore_annotation_prefix, &text);
  io.out << text;
  return kExitClean;
}

int VersionCommand(const std::vector<std::string>& args, CliIo& io) {
  std::vector<std::string> positional;
  int rc = ParseSimpleArgs(args, "version", kVersionHelp, nullptr, &positional, io);
  if (rc >= 0) return rc;
  if (!positional.empty()) {
    Fail(io, "version takes no arguments");
    return kExitUsage;
  }
  io.out << "gpulint " << GPULINT_VERSION << '\n';
  return kExitClean;
}

int HelpCommand(const std::vector<std::string>& args, CliIo& io) {
  if (args.size() <= 1) {
    io.out << kMainHelp;
    return kExitClean;
  }
  const std::string& topic = args[1];
  if (args.size() > 2) {
    Fail(io, "help takes one COMMAND");
    return kExitUsage;
  }
  if (topic == "check")
    io.out << kCheckHelp;
  else if (topic == "rules")
    io.out << kRulesHelp;
  else if (topic == "explain")
    io.out << kExplainHelp;
  else if (topic == "version")
    io.out << kVersionHelp;
  else if (topic == "help")
    io.out << kMainHelp;
  else {
    Fail(io, "unknown command '" + topic + "' (commands: check, rules, explain, version)");
    return kExitUsage;
  }
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
    io.err << kMainHelp;
    return kExitUsage;
  }
  const std::string& first = args[0];
  if (first == "check") return CheckCommand(args, 1, io);
  if (first == "rules") return RulesCommand(args, io);
  if (first == "explain") return ExplainCommand(args, io);
  if (first == "version") return VersionCommand(args, io);
  if (first == "help") return HelpCommand(args, io);
  if (first == "--version" && args.size() == 1) return VersionCommand(args, io);
  if (first == "-h" || first == "--help") {
    io.out << kMainHelp;
    return kExitClean;
  }
  if (LooksLikeCommand(first)) {
    Fail(io, "unknown command '" + first +
                 "' and no such file (commands: check, rules, explain, version; see "
                 "'gpulint --help')");
    return kExitUsage;
  }
  return CheckCommand(args, 0, io);
}

}  // namespace

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
