// `gpulint fix`: the engine's mutations and the certain unit fixes, written
// into the manifests themselves (lint/fix.h), printed or written back.
#include <algorithm>
#include <ostream>

#include "engine/loader.h"
#include "lint/atomic_write.h"
#include "lint/commands.h"
#include "lint/fix.h"
#include "lint/setup.h"

namespace gpulint {
namespace {

constexpr std::string_view kHelp = R"(Usage: gpulint fix [--write] [OPTIONS] PATH... | -

Makes the changes the mutating webhook would make, in the manifests
themselves, so what is reviewed is what runs:
  - VRAM: GPU containers get the policy's VRAM resource (gpulint.io/vram,
    bytes, requests = limits) from the gpulint.io/vram annotation, else from
    the GPUs of the nodes they can land on (--nodes, or the policy's classes);
  - headroom: GPU containers' memory request and limit grow by the policy's
    per-GPU headroom, recorded in the gpulint.io/headroom-added annotation;
  - hidden GPUs: containers without a GPU limit in pods that can reach a GPU
    node get NVIDIA_VISIBLE_DEVICES=void;
and fixes the units that can be read only one way:
  5MiB -> 5Mi, 2GIB or 2gi -> 2Gi ("i" is binary; there is one binary unit
  per letter), 512B -> 512 (bytes have no suffix), "8 Gi" -> 8Gi.
500GB, 40g, 1K and 2M stay as they are, reported by 'gpulint check': GB, g
and K could be decimal or binary, and only the author knows which.

Only the lines that change are touched: comments, key order, quoting,
indentation and every other line stay byte for byte. New keys go after a
mapping's last key, in the document's own indentation. A second run changes
nothing. Every document of a file is fixed, and every object of a kind: List.
A document that does not parse, or that cannot be edited in place (a change
through a YAML alias or merge key), is left as it was and reported.

Options:
  -w, --write      replace each file that changes, atomically (a temporary
                   file beside it, then a rename: never a half-written file);
                   its permissions are kept. Without it, the fixed manifests
                   go to stdout (several files: each after '# Source: PATH')
  --policy FILE    use this policy instead of the built-in one
  --nodes FILE     nodes whose GPUs give the VRAM ('kubectl get nodes -o
                   yaml' output). Repeatable
  -q, --quiet      leave out the list of changes and the summary on stderr
  -h, --help       print this text

Examples:
  gpulint fix pod.yaml | diff pod.yaml -      # what would change
  gpulint fix --write --nodes nodes.yaml k8s/
  helm template chart/ | gpulint fix - > rendered.yaml

Exit status: 0 nothing to change, 1 something was (or, without --write,
would be) changed, 2 an error: a usage error, an unreadable file, or a
document left unfixed.
)";

constexpr size_t kMaxFile = size_t{256} << 20;

std::string Plural(size_t n, std::string_view noun) {
  return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

struct FixOptions {
  bool write = false;
  bool quiet = false;
  std::vector<std::string> paths;
};

class FixRun {
 public:
  FixRun(const FixOptions& options, const RunSetup& setup, CliIo& io)
      : options_(options), setup_(setup), io_(io) {}

  int Run() {
    std::vector<Error> path_errors;
    std::vector<InputFile> inputs = ExpandPaths(options_.paths, &path_errors);
    for (const Error& e : path_errors) Report(e);
    for (const InputFile& input : inputs) FixInput(input.path, inputs.size() > 1);
    io_.out.flush();
    if (!options_.quiet) io_.err << "gpulint: " << SummaryText(inputs.size()) << '\n';
    if (failed_) return kExitUsage;
    return changed_files_ > 0 ? kExitFindings : kExitClean;
  }

 private:
  void Report(const Error& error) {
    failed_ = true;
    io_.err << "gpulint: error: " << error.ToString() << '\n';
  }

  std::string SummaryText(size_t files) const {
    if (changes_ == 0) return "nothing to fix in " + Plural(files, "file");
    std::string out = options_.write ? "made " : "";
    out += Plural(changes_, "change") + (options_.write ? " in " : " to make in ") +
           Plural(changed_files_, "file");
    if (!options_.write) out += " (run with --write to make them)";
    if (files > changed_files_) out += "; " + Plural(files - changed_files_, "file") + " unchanged";
    return out;
  }

  void FixInput(const std::string& path, bool several) {
    std::string text;
    Error error;
    if (!ReadWhole(path, io_.stdin_fd, kMaxFile, &text, &error)) {
      Report(error);
      return;
    }
    FixedFile fixed = FixText(text, DisplayName(path), setup_.policy(), setup_.inventory());
    for (const Error& e : fixed.problems) Report(e);
    if (!options_.quiet)
      for (const std::string& change : fixed.changes) io_.err << change << '\n';
    bool changed = fixed.text != text;
    changes_ += fixed.changes.size();
    changed_files_ += changed;
    if (!options_.write) {
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

  const FixOptions& options_;
  const RunSetup& setup_;
  CliIo& io_;
  size_t changes_ = 0;
  size_t changed_files_ = 0;
  bool failed_ = false;
  bool first_output_ = true;
};

int Run(const std::vector<std::string>& args, CliIo& io) {
  static const std::vector<OptionSpec> kSpecs = {
      {"--write", "-w"}, {"--policy", "", true}, {"--nodes", "", true, true}, {"--quiet", "-q"}};
  ParsedArgs parsed;
  if (int rc = ParseOrExit(args, FixCommand(), kSpecs, false, &parsed, io); rc >= 0) return rc;
  FixOptions options;
  options.write = parsed.Has("--write");
  options.quiet = parsed.Has("--quiet");
  options.paths = parsed.positional;
  std::vector<std::string> nodes = parsed.All("--nodes");
  std::string problem;
  size_t stdin_reads = std::count(options.paths.begin(), options.paths.end(), "-") +
                       std::count(nodes.begin(), nodes.end(), "-");
  if (options.paths.empty()) {
    problem = "no input: give a PATH, or - to read stdin (see 'gpulint fix --help')";
  } else if (std::count(options.paths.begin(), options.paths.end(), "")) {
    problem = "empty path";
  } else if (options.write && std::count(options.paths.begin(), options.paths.end(), "-")) {
    problem = "--write cannot write back to stdin; run 'gpulint fix - > FILE' instead";
  } else if (stdin_reads > 1) {
    problem = "stdin ('-') can be read only once";
  }
  if (!problem.empty()) {
    Fail(io, problem);
    return kExitUsage;
  }
  RunSetup setup;
  Error error;
  if (!setup.Load(parsed.Get("--policy"), nodes, io.stdin_fd, &error)) {
    Fail(io, error.ToString());
    return kExitUsage;
  }
  return FixRun(options, setup, io).Run();
}

}  // namespace

const Command& FixCommand() {
  static const Command command{"fix", kHelp, Run};
  return command;
}

}  // namespace gpulint
