// `gpulint audit`: the help, the options, and the run: find the API server,
// read the cluster into the audit, write the report and, with
// --policy-report, the PolicyReports.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "common/flags.h"
#include "engine/policies.h"
#include "kube/kubeconfig.h"
#include "lint/cli/audit.h"
#include "lint/cli/audit_output.h"
#include "lint/cli/audit_policy_report.h"
#include "lint/cli/audit_source.h"
#include "lint/cli/commands.h"
#include "lint/input/setup.h"

namespace gpulint {
namespace {

constexpr std::string_view kHelp = R"(Usage: gpulint audit [OPTIONS]

Reads a live cluster, read-only, and reports what already runs there as the
webhook would judge it, and the nodes at risk now: what to read before
switching the webhook from audit to deny. As a kubectl plugin (installed as
kubectl-gpulint): kubectl gpulint audit.

Workloads of the policy's workload table are judged with the webhook's rules
against the cluster's nodes. A pod owned by a controller is reported once,
under its top owner (the Deployment, not its ReplicaSets and pods); a running
pod is judged on its own node. For each workload the report says what the
webhook would do to its next pod in each mode (deny, warn, audit): deny,
warn or allow, and what /mutate would change. Each node's running pods are
summed as the scheduler sums them (init containers, sidecars, pod overhead,
pod-level resources) and held to allocatable less the policy's reserve:
node-memory-requests, node-memory-limits; a GPU node that does not advertise
its VRAM while the VRAM mutation is on (node-vram-not-advertised); shared
GPUs asked for more than they hold (node-gpu-sharing).

Options:
  --kubeconfig FILE    use this kubeconfig only. Without it, as kubectl:
                       $KUBECONFIG (files separated by ':', merged), else
                       ~/.kube/config, else, inside a pod, its service account
  --context NAME       the kubeconfig context to use (default: its
                       current-context)
  --policy FILE        the policy the webhook runs with (default, as in
                       'gpulint check': the nearest .gpulint.yaml from the
                       current directory up to the repository root, else
                       $GPULINT_POLICY, else the built-in policy)
  --format FORMAT      text (default), json or sarif
  --policy-report      also write the results to the cluster: a
                       wgpolicyk8s.io/v1alpha2 PolicyReport named
                       gpulint-audit in each namespace with findings, and a
                       ClusterPolicyReport gpulint-audit (nodes, and
                       cluster-scoped objects), applied server-side; the
                       reports of earlier runs that this one does not write
                       again are deleted (named gpulint-audit, with the label
                       app.kubernetes.io/managed-by: gpulint; no other report
                       is touched). The CRDs must be installed (Kyverno and
                       Policy Reporter install them)
  --fail-on SEVERITY   the lowest severity that makes the exit status 1:
                       error (default), warning or info; none: never
  --page-size N        objects per list request (default 500, as kubectl)
  --timeout DURATION   the whole audit's deadline (default 10m; 0: none):
                       past it no request is sent, the report says what it
                       lacks, no PolicyReport is written, and the exit status
                       is 2
  --request-timeout DURATION
                       one request's limit, from connecting to the last byte
                       of its answer (default 60s; 0: none but 60s of
                       silence); DURATION as kubectl writes it: 90s, 1m30s
  -h, --help           print this text

Permissions: list on nodes, pods and the workload kinds of the policy's
workload table that the cluster serves (deployments.apps, replicasets.apps,
statefulsets.apps, daemonsets.apps, jobs.batch, cronjobs.batch,
replicationcontrollers, podtemplates, and the GPU CRDs installed), cluster
wide; discovery needs no grant. A list that is refused is said on stderr
(the verb, the resource and its group, and what the report lacks without
it) and the report goes on with the rest. --policy-report also needs
create, patch and delete on policyreports and clusterpolicyreports named
gpulint-audit, and list on them (wgpolicyk8s.io).

Output:
  text    nodes at risk with their sums, then each workload with something
          to say: its next pod's verdict in each mode, its findings, what
          /mutate would change, and the findings of its running pods that its
          template does not have; a summary line
  json    {"cluster", "policy", "nodes": [{"name", "pods", "requests",
          "limits", "podsWithoutMemoryLimit", "allocatable", "findings"}],
          "workloads": [{"object", "barePod", "pods", "owned", "nextPod":
          {"deny", "warn", "audit", "findings", "changes", "patch"},
          "running": [{"finding", "pods", "pod", "node"}]}], "findings"
          (every finding, as 'gpulint check --format json' writes them),
          "errors" (lists refused), "notes", "summary"}
  sarif   SARIF 2.1.0, a result per finding located by its object (no file)

Examples:
  gpulint audit                                  # the current context
  gpulint audit --context prod --format json > audit.json
  kubectl gpulint audit --fail-on warning        # as a kubectl plugin
  gpulint audit --policy gpulint-policy.yaml --policy-report
  kubectl get policyreports -A                   # what --policy-report wrote

Exit status: 0 nothing at or above --fail-on; 1 findings at or above it;
2 usage error, a cluster that cannot be read, a list refused (the report is
written all the same, without it), or reports that could not be written.
)";

struct AuditOptions {
  KubeconfigOptions kubeconfig = KubeconfigOptionsFromEnvironment();
  std::string policy_file;
  std::string format = "text";
  bool policy_report = false;
  std::optional<Severity> fail_on = Severity::kError;
  int page_size = 500;
  std::chrono::milliseconds timeout = std::chrono::minutes(10);
  std::chrono::milliseconds request_timeout = std::chrono::seconds(60);
};

// --timeout and --request-timeout: a duration, or 0 for none.
bool ReadDuration(const ParsedArgs& args, const char* name, std::chrono::milliseconds* out,
                  std::string* error) {
  if (!args.Has(name)) return true;
  std::string text = args.Get(name);
  if (!ParseDuration(text, out)) {
    *error = std::string(name) + ": expected a duration such as 90s, 15m or 1h30m (0: none), got '" +
             text + "'";
    return false;
  }
  return true;
}

bool ReadOptions(const ParsedArgs& args, AuditOptions* o, std::string* error) {
  if (!args.positional.empty()) {
    *error = "audit takes no arguments: it reads the cluster (see 'gpulint audit --help')";
    return false;
  }
  o->kubeconfig.kubeconfig = args.Get("--kubeconfig");
  o->kubeconfig.context = args.Get("--context");
  o->policy_file = args.Get("--policy");
  o->format = args.Get("--format", "text");
  const std::vector<std::string>& formats = AuditFormats();
  if (std::find(formats.begin(), formats.end(), o->format) == formats.end()) {
    *error = "--format: unknown format '" + o->format + "' (choose text, json or sarif)";
    return false;
  }
  o->policy_report = args.Has("--policy-report");
  std::string fail_on = args.Get("--fail-on", "error");
  Severity severity;
  if (fail_on == "none") {
    o->fail_on.reset();
  } else if (ParseSeverity(fail_on, &severity)) {
    o->fail_on = severity;
  } else {
    *error = "--fail-on: unknown severity '" + fail_on + "' (choose error, warning, info or none)";
    return false;
  }
  if (args.Has("--page-size")) {
    std::string n = args.Get("--page-size");
    char* end = nullptr;
    long v = std::strtol(n.c_str(), &end, 10);
    if (n.empty() || *end != '\0' || v < 1 || v > 10000) {
      *error = "--page-size: expected a number from 1 to 10000, got '" + n + "'";
      return false;
    }
    o->page_size = static_cast<int>(v);
  }
  return ReadDuration(args, "--timeout", &o->timeout, error) &&
         ReadDuration(args, "--request-timeout", &o->request_timeout, error);
}

std::string ServerOf(const KubeEndpoint& ep) {
  std::string host = ep.host.find(':') != std::string::npos ? "[" + ep.host + "]" : ep.host;
  return "https://" + host + ":" + std::to_string(ep.port) + ep.base_path;
}

int RunAudit(const AuditOptions& options, CliIo& io) {
  // As every command chooses (lint/input/setup.h), looked up from here.
  RunSetup setup;
  std::vector<Error> errors;
  const PolicySetup* chosen = setup.Load(options.policy_file, {}, io.stdin_fd, &errors)
                                  ? setup.PolicyFor("-", &errors)
                                  : nullptr;
  if (chosen == nullptr) {
    for (const Error& e : errors) Fail(io, e.ToString());
    return kExitUsage;
  }
  const Policy* policy = chosen->policy;
  const std::string& policy_name = chosen->name;
  KubeEndpoint endpoint;
  AuditContext context;
  std::string error;
  if (!FindEndpoint(options.kubeconfig, &endpoint, &context.origin, &error)) {
    Fail(io, error);
    return kExitUsage;
  }
  endpoint.request_timeout = options.request_timeout;
  if (options.timeout.count() > 0) {
    endpoint.deadline = std::chrono::steady_clock::now() + options.timeout;
    endpoint.deadline_label = "gpulint audit --timeout " + FormatDuration(options.timeout);
  }
  context.server = ServerOf(endpoint);
  context.policy = policy_name;
  context.rules = policy;
  ClusterAudit audit(*policy);
  ClusterRead read;
  ListOptions list_options;
  list_options.page_size = options.page_size;
  if (!ReadCluster(endpoint, *policy, list_options, &audit, &read, &error)) {
    Fail(io, error + " (" + context.server + ", " + context.origin + ")");
    return kExitUsage;
  }
  for (const Error& e : audit.node_errors())
    read.notes.push_back("a node is left out: " + e.ToString());
  AuditReport report = audit.Finish();
  WriteAudit(options.format, report, read, context, io.color, io.out);
  io.out.flush();
  for (const std::string& p : read.problems) Fail(io, p);
  bool failed = !read.problems.empty();
  if (options.policy_report) {
    auto now = std::chrono::system_clock::now().time_since_epoch();
    std::vector<std::string> done;
    bool applied = ApplyPolicyReports(
        endpoint,
        PolicyReports(report, std::chrono::duration_cast<std::chrono::seconds>(now).count()), &done,
        &error);
    for (const std::string& line : done) io.err << io.program << ": " << line << '\n';
    if (!applied) {
      Fail(io, error);
      failed = true;
    }
  }
  if (failed) return kExitUsage;
  if (!options.fail_on) return kExitClean;
  for (const Finding& f : AuditFindings(report))
    if (f.severity >= *options.fail_on) return kExitFindings;
  return kExitClean;
}

int Run(const std::vector<std::string>& args, CliIo& io) {
  static const std::vector<OptionSpec> kSpecs = {
      {"--kubeconfig", "", true}, {"--context", "", true}, {"--policy", "", true},
      {"--format", "", true},     {"--policy-report", ""}, {"--fail-on", "", true},
      {"--page-size", "", true},  {"--timeout", "", true}, {"--request-timeout", "", true},
  };
  ParsedArgs parsed;
  if (int rc = ParseOrExit(args, AuditCommand(), kSpecs, false, &parsed, io); rc >= 0) return rc;
  AuditOptions options;
  std::string error;
  if (!ReadOptions(parsed, &options, &error)) {
    Fail(io, error);
    return kExitUsage;
  }
  return RunAudit(options, io);
}

}  // namespace

const Command& AuditCommand() {
  static const Command command{"audit", kHelp, Run};
  return command;
}

}  // namespace gpulint
