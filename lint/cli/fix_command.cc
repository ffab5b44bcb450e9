// `gpulint fix`: repairs of what `gpulint check` reports and, with
// --mutations, the webhook's patch, written into the manifests themselves
// (lint/fix/fix.h): printed, shown as a diff or written back.
#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <ostream>
#include <set>

#include "engine/rules/rule.h"
#include "engine/yaml/loader.h"
#include "lint/cli/commands.h"
#include "lint/fix/fix.h"
#include "lint/input/inputs.h"
#include "lint/input/policy_discovery.h"
#include "lint/input/render.h"
#include "lint/input/setup.h"
#include "lint/output/atomic_write.h"
#include "lint/output/output.h"
#include "lint/output/unified_diff.h"

namespace gpulint {
namespace {

constexpr std::string_view kHelp = R"(Usage: gpulint fix [--write | --diff] [OPTIONS] PATH... | -

Repairs the mistakes 'gpulint check' reports, where the manifest can be read
only one way, in the manifests themselves:
  quantity-invalid            units: 5MiB -> 5Mi, 2GIB or 2gi -> 2Gi ("i" is
                              binary; there is one binary unit per letter),
                              512B -> 512 (bytes have no suffix), "8 Gi" -> 8Gi
  quantity-milli-memory       0m -> 0, and 500m where the container's other
                              side says 500Mi or 500M; else Mi and M are both
                              possible, and it is left
  gpu-request-limit-mismatch  a GPU (extended resource) limit that is missing
                              is set to the request; a request that differs
                              from the limit is set to the limit, which is
                              what the device plugin allocates
  gpu-limit-missing           NVIDIA_VISIBLE_DEVICES=void (the webhook's
                              hide-GPUs mutation), unless the container sets
                              the variable itself
500GB, 40g, 1K and 2M stay as they are: GB, g and K could be decimal or
binary, and only the author knows which. Capacity is not a mistake: VRAM and
memory headroom are added only with --mutations.

fix ends with every finding it left, of any rule, as 'gpulint check' prints
it, each followed by a note that says why it was not fixed:
  k8s/ds.yaml:2:13: error: extensions/v1beta1 DaemonSet was removed ...
  k8s/ds.yaml:2:13: note: not fixed: gpulint fix does not repair
  removed-api-version; 'gpulint explain removed-api-version' says how to fix it
and the summary line counts them by severity. Positions are in the files as
fixed: where 'gpulint check' finds them after --write. They go to stderr, even with --quiet; stdout holds only
the manifests or the diff.

Only the lines that change are touched: comments, key order, quoting,
indentation and every other line stay byte for byte. New keys go after a
mapping's last key, in the document's own indentation. A second run changes
nothing. Every document of a file is fixed, and every object of a kind: List.
A document that does not parse, or that cannot be edited in place (a change
through a YAML alias or merge key), is left as it was and reported.
A Helm chart or a kustomization (see 'gpulint check --help') is not fixed:
its manifests exist only once rendered. It is reported (exit status 2) and
the other inputs are fixed; change its templates, values or patches by hand.

Options:
  -w, --write      replace each file that changes, atomically (a temporary
                   file beside it, then a rename: never a half-written file);
                   its permissions are kept. Without it, the fixed manifests
                   go to stdout (several files: each after '# Source: PATH')
  --diff           print a unified diff (diff -u, '--- a/PATH' and
                   '+++ b/PATH') of what would change, not whole files
  --only RULE,...  repair only the findings of these rules (repeatable)
  --mutations      also make the mutating webhook's changes, exactly its
                   patch for the repaired object with the same policy and
                   nodes: the VRAM resource (toward nodes that advertise it),
                   per-GPU memory headroom (recorded in the
                   gpulint.io/headroom-added annotation) and hidden GPUs for
                   every container without a GPU limit in a pod that can
                   reach a GPU node. --only does not narrow it
  --policy FILE    use this policy for every input; without it, as in
                   'gpulint check': the nearest .gpulint.yaml up to the
                   repository root, else $GPULINT_POLICY, else the built-in
                   one (a policy file is layered on the built-in one)
  --nodes FILE     nodes the pods can land on ('kubectl get nodes -o yaml'
                   output): hidden GPUs and, with --mutations, VRAM.
                   Repeatable
  --exclude GLOB   leave out the files and directories GLOB matches, as
                   for check (see 'gpulint check --help'). Repeatable
  -q, --quiet      leave out the list of changes and the summary on stderr
  -h, --help       print this text

Examples:
  gpulint fix --diff k8s/                     # what would change
  gpulint fix --write k8s/
  gpulint fix --write --only gpu-limit-missing k8s/
  gpulint fix --mutations --nodes nodes.yaml pod.yaml   # what the webhook admits
  helm template chart/ | gpulint fix - > rendered.yaml

Exit status: 0 nothing to change, 1 something was (or, without --write,
would be) changed, 2 an error: a usage error, an unreadable file or policy,
or a document left unfixed. The findings left do not change it: 'gpulint
check' judges them.
)";

constexpr size_t kMaxFile = size_t{256} << 20;

std::string Plural(size_t n, std::string_view noun) {
  return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

struct FixCommandOptions {
  bool write = false;
  bool diff = false;
  bool quiet = false;
  FixOptions fix;
  std::vector<std::string> paths;
  ExcludePatterns exclude;
};

class FixRun {
 public:
  FixRun(const FixCommandOptions& options, RunSetup& setup, CliIo& io)
      : options_(options), setup_(setup), io_(io) {}

  int Run() {
    std::vector<Error> path_errors;
    std::vector<InputFile> inputs = ManifestInputs(options_.paths, options_.exclude, &path_errors);
    for (const Error& e : path_errors) Report(e);
    std::erase_if(inputs, [&](const InputFile& input) {
      if (input.kind == InputKind::kFile) return false;
      Report(Error{input.path, {}, NotFixableText(input)});
      return true;
    });
    // Every policy loads before anything is written: a bad one stops the run.
    std::vector<const PolicySetup*> policies;
    for (const InputFile& input : inputs) {
      std::vector<Error> errors;
      const PolicySetup* policy = setup_.PolicyFor(input.path, &errors);
      if (!policy) {
        for (const Error& e : errors) Report(e);
        return kExitUsage;
      }
      policies.push_back(policy);
      if (std::find(policy_names_.begin(), policy_names_.end(), policy->name) ==
          policy_names_.end())
        policy_names_.push_back(policy->name);
    }
    for (size_t i = 0; i < inputs.size(); ++i)
      FixInput(inputs[i].path, *policies[i], inputs.size() > 1);
    io_.out.flush();
    ReportLeft();
    if (!options_.quiet) io_.err << "gpulint: " << SummaryText(inputs.size()) << '\n';
    if (failed_) return kExitUsage;
    return changed_files_ > 0 ? kExitFindings : kExitClean;
  }

 private:
  void Report(const Error& error) {
    failed_ = true;
    io_.err << "gpulint: error: " << error.ToString() << '\n';
  }

  // What is left is what a person must do: said last, even with --quiet.
  // Each finding as check prints it, then a note, as compilers add one.
  void ReportLeft() {
    std::string text;
    for (const LeftFinding& left : left_) {
      AppendFindingText(left.finding, false, &text);
      text +=
          Error{left.finding.file, left.finding.mark, "note: not fixed: " + left.why}.ToString();
      text += '\n';
    }
    io_.err << text;
  }

  // "3 findings not fixed (2 errors, 1 warning)"
  std::string LeftText() const {
    Summary counts;
    for (const LeftFinding& left : left_) counts.Count(left.finding.severity);
    std::string out = Plural(left_.size(), "finding") + " not fixed (";
    out += Plural(counts.errors, "error") + ", " + Plural(counts.warnings, "warning");
    if (counts.infos > 0) out += ", " + Plural(counts.infos, "info");
    return out + ")";
  }

  std::string SummaryText(size_t files) const {
    std::string out;
    if (changes_ == 0) {
      out = "nothing to fix in " + Plural(files, "file");
    } else {
      out = options_.write ? "made " : "";
      out += Plural(changes_, "change") + (options_.write ? " in " : " to make in ") +
             Plural(changed_files_, "file");
      if (!options_.write) out += " (run with --write to make them)";
      if (files > changed_files_)
        out += "; " + Plural(files - changed_files_, "file") + " unchanged";
    }
    if (!left_.empty()) out += "; " + LeftText();
    if (!policy_names_.empty()) out += policy_names_.size() == 1 ? "; policy: " : "; policies: ";
    for (size_t i = 0; i < policy_names_.size(); ++i) out += (i ? ", " : "") + policy_names_[i];
    return out;
  }

  void FixInput(const std::string& path, const PolicySetup& policy, bool several) {
    std::string text;
    Error error;
    if (!ReadWhole(path, io_.stdin_fd, kMaxFile, &text, &error)) {
      Report(error);
      return;
    }
    FixedFile fixed =
        FixText(text, DisplayName(path), *policy.policy, policy.inventory, options_.fix);
    for (const Error& e : fixed.problems) Report(e);
    if (!options_.quiet)
      for (const std::string& change : fixed.changes) io_.err << change << '\n';
    std::move(fixed.left.begin(), fixed.left.end(), std::back_inserter(left_));
    bool changed = fixed.text != text;
    changes_ += fixed.changes.size();
    changed_files_ += changed;
    if (options_.diff) {
      io_.out << UnifiedDiff(text, fixed.text, DisplayName(path));
    } else if (!options_.write) {
      if (several) {
        io_.out << (first_output_ ? "" : "---\n") << "# Source: " << DisplayName(path) << '\n';
        if (!fixed.text.empty() && fixed.text.back() != '\n') fixed.text += '\n';
      }
      first_output_ = false;
      io_.out << fixed.text;
    } else if (changed) {
      std::string message;
      if (!WriteFileAtomically(path, fixed.text, &message)) {
        failed_ = true;
        io_.err << "gpulint: error: " << message << '\n';
      }
    }
  }

  const FixCommandOptions& options_;
  RunSetup& setup_;
  CliIo& io_;
  std::vector<std::string> policy_names_;  // in the order the inputs first use them
  std::vector<LeftFinding> left_;          // every input's, in input order
  size_t changes_ = 0;
  size_t changed_files_ = 0;
  bool failed_ = false;
  bool first_output_ = true;
};

// --only's rule names: each one a rule that fix repairs.
bool ReadOnly(const std::vector<std::string>& values, std::set<std::string, std::less<>>* out,
              std::string* error) {
  std::string repairable;
  for (std::string_view r : FixingRules())
    repairable += (repairable.empty() ? "" : ", ") + std::string(r);
  for (const std::string& value : values) {
    for (size_t begin = 0; begin <= value.size();) {
      size_t end = std::min(value.find(',', begin), value.size());
      std::string name = value.substr(begin, end - begin);
      begin = end + 1;
      const std::vector<std::string_view> rules = FixingRules();
      if (std::find(rules.begin(), rules.end(), name) != rules.end()) {
        out->insert(name);
        continue;
      }
      bool is_rule = std::any_of(AllRules().begin(), AllRules().end(),
                                 [&](const Rule* r) { return r->info.name == name; });
      if (is_rule) {
        *error = "--only: gpulint fix does not repair " + name + " (it repairs " + repairable +
                 "); 'gpulint explain " + name + "' says how to fix it";
        return false;
      }
      const Rule* close = ClosestRule(name);
      *error = "--only: unknown rule '" + name + "'";
      *error += close ? " (did you mean " + std::string(close->info.name) + "?)"
                      : " (see 'gpulint rules')";
      return false;
    }
  }
  return true;
}

// What the parser cannot see one argument at a time.
bool ReadOptions(const ParsedArgs& parsed, FixCommandOptions* options, std::string* error) {
  options->write = parsed.Has("--write");
  options->diff = parsed.Has("--diff");
  options->quiet = parsed.Has("--quiet");
  options->fix.mutations = parsed.Has("--mutations");
  options->paths = parsed.positional;
  if (!ReadExcludes(parsed, &options->exclude, error)) return false;
  std::vector<std::string> nodes = parsed.All("--nodes");
  size_t stdin_reads = std::count(options->paths.begin(), options->paths.end(), "-") +
                       std::count(nodes.begin(), nodes.end(), "-");
  if (options->paths.empty()) {
    *error = "no input: give a PATH, or - to read stdin (see 'gpulint fix --help')";
  } else if (std::count(options->paths.begin(), options->paths.end(), "")) {
    *error = "empty path";
  } else if (options->write && options->diff) {
    *error = "--write and --diff: choose one (--diff shows what --write would change)";
  } else if (options->write && std::count(options->paths.begin(), options->paths.end(), "-")) {
    *error = "--write cannot write back to stdin; run 'gpulint fix - > FILE' instead";
  } else if (stdin_reads > 1) {
    *error = "stdin ('-') can be read only once";
  } else {
    return ReadOnly(parsed.All("--only"), &options->fix.only, error);
  }
  return false;
}

int Run(const std::vector<std::string>& args, CliIo& io) {
  ParsedArgs parsed;
  if (int rc = ParseOrExit(args, FixCommand(), &parsed, io); rc >= 0) return rc;
  FixCommandOptions options;
  std::string problem;
  if (!ReadOptions(parsed, &options, &problem)) {
    Fail(io, problem);
    return kExitUsage;
  }
  RunSetup setup;
  std::vector<Error> errors;
  if (!setup.Load(parsed.Get("--policy"), parsed.All("--nodes"), io.stdin_fd, &errors)) {
    for (const Error& e : errors) Fail(io, e.ToString());
    return kExitUsage;
  }
  return FixRun(options, setup, io).Run();
}

}  // namespace

const Command& FixCommand() {
  static const std::string fixing = [] {
    std::string out;
    for (std::string_view r : FixingRules()) out += (out.empty() ? "" : " ") + std::string(r);
    return out;
  }();
  static const Command command{"fix",
                               kHelp,
                               Run,
                               {{"--write", "-w"},
                                {"--diff", ""},
                                {"--only", "", true, true, fixing},
                                {"--mutations", ""},
                                {"--policy", "", true},
                                {"--nodes", "", true, true},
                                {"--quiet", "-q"},
                                {"--exclude", "", true, true}}};
  return command;
}

}  // namespace gpulint
