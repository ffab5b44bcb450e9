// `gpulint audit`: the help, the options, and the run: find the API server,
// read the cluster into the audit, write the report and, with
// --policy-report, the PolicyReports.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
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
webhook would do were it made again, in each mode (deny, warn, audit): deny,
warn or allow, and what /mutate would change (the webhook's ratcheting lets
its controllers make its next pods: docs/webhook.md). Each node's running pods are
summed as the scheduler sums them (init containers, sidecars, pod overhead,
pod-level resources) and held to allocatable less the policy's reserve:
node-memory-requests, node-memory-limits; a GPU node that does not advertise
its VRAM while the VRAM mutation is on (node-vram-not-advertised); shared
GPUs asked for more than they hold (node-gpu-sharing). These are rules of
nodes: the policy's spec.rules turns each off or sets its severity.

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
  -n, --namespace NS   the workloads and pods of namespace NS only, judged
                       against every node; the nodes' sums are not checked
                       (they need every namespace's pods)
  -A, --all-namespaces every namespace (the default)
  --format FORMAT      text (default), json or sarif (with --sarif-file)
  --sarif-file FILE    the repository file SARIF results are placed on,
                       line 1 (the file that deploys to this cluster, say):
                       GitHub code scanning refuses a result without one
  --policy-report      also write the results to the cluster: a report
                       named gpulint-audit in each namespace with findings,
                       and a cluster-wide one (nodes, and cluster-scoped
                       objects), applied server-side; the reports of earlier
                       runs that this one does not write again are deleted
                       (named gpulint-audit, with the label
                       app.kubernetes.io/managed-by: gpulint; no other
                       report is touched). With -n, that namespace's alone.
                       The CRDs must be installed (Kyverno and Policy
                       Reporter install them)
  --report-format API  the reports' API: wgpolicyk8s (default:
                       wgpolicyk8s.io/v1alpha2 PolicyReport and
                       ClusterPolicyReport) or openreports
                       (openreports.io/v1alpha1 Report and ClusterReport,
                       which Kyverno 1.15 and later write)
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

Permissions: list on nodes, pods, DRA's deviceclasses and resourceslices
(resource.k8s.io, where served) and the workload kinds of the policy's
workload table that the cluster serves (deployments.apps, replicasets.apps,
statefulsets.apps, daemonsets.apps, jobs.batch, cronjobs.batch,
replicationcontrollers, podtemplates, and the GPU CRDs installed), cluster
wide; discovery needs no grant. A list that is refused is said on stderr
(the verb, the resource and its group, and what the report lacks without
it) and the report goes on with the rest. With -n, list on the workload
kinds and pods of that namespace (and on nodes, cluster wide) is enough.
--policy-report also needs create, patch and delete on the reports named
gpulint-audit, and list on them: policyreports and clusterpolicyreports
(wgpolicyk8s.io), or reports and clusterreports (openreports.io).

Output:
  text    nodes at risk with their sums, then each workload with something
          to say: its verdict in each mode were it made again, its findings, what
          /mutate would change, and the findings of its running pods that its
          template does not have; a summary line
  json    {"cluster", "policy", "nodes": [{"name", "pods", "requests",
          "limits", "podsWithoutMemoryLimit", "allocatable", "findings"}],
          "workloads": [{"object", "barePod", "pods", "owned", "nextPod":
          {"deny", "warn", "audit", "findings", "changes", "patch"},
          "running": [{"finding", "pods", "pod", "node"}]}], "findings"
          (every finding, as 'gpulint check --format json' writes them),
          "errors" (lists refused), "notes", "summary"}
  sarif   SARIF 2.1.0 for GitHub code scanning, a result per finding, each
          on --sarif-file (a cluster's objects are in no file; GitHub
          refuses a result without one) with its object as the logical
          location

Examples:
  gpulint audit                                  # the current context
  gpulint audit --context prod --format json > audit.json
  gpulint audit -n ml                            # one namespace's workloads
  kubectl gpulint audit --fail-on warning        # as a kubectl plugin
  gpulint audit --policy gpulint-policy.yaml --policy-report
  kubectl get policyreports -A                   # what --policy-report wrote
  gpulint audit --policy-report --report-format openreports
  gpulint audit --format sarif --sarif-file deploy/prod/kustomization.yaml

Exit status: 0 nothing at or above --fail-on; 1 findings at or above it;
2 usage error, a cluster that cannot be read, a list refused (the report is
written all the same, without it), or reports that could not be written.
)";

struct AuditOptions {
  KubeconfigOptions kubeconfig = KubeconfigOptionsFromEnvironment();
  std::string policy_file;
  std::string format = "text";
  std::string sarif_file;
  std::string ns;  // "" for every namespace
  bool policy_report = false;
  const ReportApi* report_api = &kWgPolicyReports;
  std::optional<Severity> fail_on = Severity::kError;
  int page_size = 500;
  std::chrono::milliseconds timeout = std::chrono::minutes(10);
  std::chrono::milliseconds request_timeout = std::chrono::seconds(60);
};

// A namespace's name: a DNS-1123 label, as the API server requires; anything
// else would end up in a request path.
bool IsDnsLabel(const std::string& name) {
  if (name.empty() || name.size() > 63 || name.front() == '-' || name.back() == '-') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

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
  o->sarif_file = args.Get("--sarif-file");
  if (o->format == "sarif" && o->sarif_file.empty()) {
    *error =
        "--format sarif needs --sarif-file FILE: GitHub code scanning refuses a result that is "
        "in no file, and a cluster's objects are in none; name the repository file to place them "
        "on (the one that deploys to this cluster), or use --format json";
    return false;
  }
  if (!o->sarif_file.empty() && o->format != "sarif") {
    *error = "--sarif-file is for --format sarif";
    return false;
  }
  std::error_code ec;
  if (!o->sarif_file.empty() && !std::filesystem::is_regular_file(o->sarif_file, ec)) {
    *error = "--sarif-file: no file '" + o->sarif_file +
             "' (name a file of the repository the SARIF is uploaded to, from the current "
             "directory)";
    return false;
  }
  if (args.Has("--namespace") && args.Has("--all-namespaces")) {
    *error = "-n/--namespace and -A/--all-namespaces: choose one";
    return false;
  }
  if (args.Has("--namespace")) {
    o->ns = args.Get("--namespace");
    if (!IsDnsLabel(o->ns)) {
      *error = "--namespace: '" + o->ns +
               "' is not a namespace name (lower-case letters, digits and '-', at most 63)";
      return false;
    }
  }
  o->policy_report = args.Has("--policy-report");
  std::string api = args.Get("--report-format", kWgPolicyReports.name);
  o->report_api = FindReportApi(api);
  if (o->report_api == nullptr) {
    *error = "--report-format: unknown API '" + api + "' (choose wgpolicyk8s or openreports)";
    return false;
  }
  if (args.Has("--report-format") && !o->policy_report) {
    *error = "--report-format is for --policy-report";
    return false;
  }
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
  context.namespace_name = options.ns;
  context.sarif_file = options.sarif_file;
  ClusterAudit audit(*policy, /*sum_nodes=*/options.ns.empty());
  ClusterRead read;
  ListOptions list_options;
  list_options.page_size = options.page_size;
  if (!ReadCluster(endpoint, *policy, list_options, options.ns, &audit, &read, &error)) {
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
    ReportScope scope{options.report_api, options.ns};
    bool applied = ApplyPolicyReports(
        endpoint, scope,
        PolicyReports(report, std::chrono::duration_cast<std::chrono::seconds>(now).count(),
                      scope),
        &done, &error);
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
  ParsedArgs parsed;
  if (int rc = ParseOrExit(args, AuditCommand(), &parsed, io); rc >= 0) return rc;
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
  static const Command command{
      "audit",
      kHelp,
      Run,
      {
          {"--kubeconfig", "", true},
          {"--context", "", true},
          {"--policy", "", true},
          {"--namespace", "-n", true},
          {"--all-namespaces", "-A"},
          {"--format", "", true, false, "text json sarif"},
          {"--sarif-file", "", true},
          {"--policy-report", ""},
          {"--report-format", "", true, false, "wgpolicyk8s openreports"},
          {"--fail-on", "", true, false, kFailOnChoices},
          {"--page-size", "", true},
          {"--timeout", "", true},
          {"--request-timeout", "", true},
      }};
  return command;
}

}  // namespace gpulint
