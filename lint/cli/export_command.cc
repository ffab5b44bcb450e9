// `gpulint export vap`: the stateless rules as ValidatingAdmissionPolicies,
// for a cluster to enforce with no webhook (engine/vap/vap.h).
#include <cstdlib>
#include <ostream>
#include <vector>

#include "engine/vap/vap.h"
#include "lint/cli/commands.h"
#include "lint/input/policy_discovery.h"
#include "lint/input/setup.h"

namespace gpulint {
namespace {

constexpr std::string_view kHelp =
    R"(Usage: gpulint export vap [--policy FILE] [--mode audit|warn|deny] [--name NAME]
       gpulint export vap --list [--policy FILE]

Writes gpulint's stateless rules as Kubernetes ValidatingAdmissionPolicies in
CEL, with their bindings, on stdout: the API server then enforces them itself,
with no webhook and no network call per pod. Pipe it to 'kubectl apply -f -'.

They are generated from the same policy 'gpulint check' reads (--policy, else
the nearest .gpulint.yaml from the current directory up, else
$GPULINT_POLICY, else the built-in one): its GPU resources, CUDA and node
agent images, workload table, rule severities and disabled rules, exempt
namespaces (a namespaceSelector) and ignore annotations. Regenerate them
when the policy changes.

Two policies: NAME-errors holds the findings of error severity, and
NAME-warnings those of warning and info severity, each rule a validation
whose message is the findings as the webhook words a denial:
  gpu-limit-missing (spec.containers[1]): container "tools" runs a CUDA ...

What is exported: the rules that need no node inventory and no other object
(quantity-milli-memory, quantity-cpu-units, gpu-limit-missing,
gpu-request-limit-mismatch, gpu-fractional, memory-limit-missing,
limits-missing-on-gpu-node, gpu-visibility-bypass). --list prints every
rule with why it is or is not exported; docs/export.md has the details and
how the policies differ from 'gpulint check'. They need Kubernetes 1.35 or
newer.

Options:
  --policy FILE   the gpulint policy to export (kind: Policy)
  --mode MODE     how the bindings act, as the webhook's modes:
                    audit (default)  [Audit]: recorded in the API server's
                                     audit log; nothing is refused
                    warn             [Warn]: every finding comes back to the
                                     client as a warning
                    deny             error findings [Deny], warnings [Warn];
                                     a policy that cannot be evaluated refuses
                                     (failurePolicy: Fail; else Ignore)
  --name NAME     the objects' name prefix (default gpulint): NAME-errors and
                  NAME-warnings
  --list          print each rule and whether it is exported, and why not
  -h, --help      print this text

Examples:
  gpulint export vap --mode warn | kubectl apply -f -
  gpulint export vap --policy gpulint-policy.yaml --mode deny > gpulint-vap.yaml
  gpulint export vap --list

Exit status: 0 on success, 2 on a usage error, an invalid policy, or a
workload table that CEL cannot follow (the message says which entry).
)";

int RunVap(const ParsedArgs& parsed, CliIo& io) {
  VapOptions options;
  if (parsed.Has("--mode") && !ParseEnforcement(parsed.Get("--mode"), &options.mode)) {
    Fail(io, "--mode: unknown mode '" + parsed.Get("--mode") + "' (choose audit, warn or deny)");
    return kExitUsage;
  }
  options.name = parsed.Get("--name", "gpulint");
  if (options.name.empty()) {
    Fail(io, "--name: the name prefix cannot be empty");
    return kExitUsage;
  }
  RunSetup setup;
  std::vector<Error> errors;
  if (!setup.Load(parsed.Get("--policy"), {}, io.stdin_fd, &errors)) {
    for (const Error& e : errors) Fail(io, e.ToString());
    return kExitUsage;
  }
  const PolicySetup* policy = setup.PolicyFor("-", &errors);
  if (policy == nullptr) {
    for (const Error& e : errors) Fail(io, e.ToString());
    return kExitUsage;
  }
  if (parsed.Has("--list")) {
    for (const VapRule& r : VapRules(*policy->policy))
      io.out << r.rule << ": " << (r.why.empty() ? "exported" : "not exported: " + r.why) << '\n';
    return kExitClean;
  }
  options.source = policy->name;
  std::string yaml, problem;
  if (!ExportVap(*policy->policy, options, &yaml, &problem)) {
    Fail(io, policy->name + ": " + problem);
    return kExitUsage;
  }
  io.out << yaml;
  return kExitClean;
}

int Run(const std::vector<std::string>& args, CliIo& io) {
  ParsedArgs parsed;
  if (int rc = ParseOrExit(args, ExportCommand(), &parsed, io); rc >= 0) return rc;
  if (parsed.positional.empty()) {
    Fail(io, "export needs a format: vap (see 'gpulint export --help')");
    return kExitUsage;
  }
  if (parsed.positional[0] != "vap") {
    Fail(io, "unknown export format '" + parsed.positional[0] + "' (choose vap)");
    return kExitUsage;
  }
  if (parsed.positional.size() > 1) {
    Fail(io, "export vap takes no arguments, only options");
    return kExitUsage;
  }
  return RunVap(parsed, io);
}

}  // namespace

const Command& ExportCommand() {
  static const Command command{"export",
                               kHelp,
                               Run,
                               {{"--policy", "", true},
                                {"--mode", "", true, false, "deny warn audit"},
                                {"--name", "", true},
                                {"--list", ""}},
                               {"vap"}};
  return command;
}

}  // namespace gpulint
