#include "lint/cli/audit_output.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>

#include "engine/rules/rule_util.h"
#include "lint/output/fingerprint.h"
#include "lint/output/formats.h"
#include "lint/output/output.h"

namespace gpulint {
namespace {

using json = nlohmann::ordered_json;

std::string Pods(size_t n) { return std::to_string(n) + (n == 1 ? " pod" : " pods"); }

// "Deployment ml/trainer", "Node gpu-1".
std::string Named(const ObjectRef& ref) {
  return ref.kind + " " + (ref.namespace_name.empty() ? "" : ref.namespace_name + "/") + ref.name;
}

Finding UnderOwner(const RunningFinding& r, const ObjectRef& owner) {
  Finding f = r.finding;
  f.object = owner;
  f.message += " (on " + Pods(r.pods) + ", " + r.pod +
               (r.node.empty() ? "" : " on node " + r.node) + (r.pods > 1 ? " the first" : "") +
               ")";
  return f;
}

Summary Count(const std::vector<Finding>& findings, const AuditReport& report) {
  Summary s;
  for (const Finding& f : findings) s.Count(f.severity);
  s.objects = report.nodes.size() + report.workloads_judged;
  return s;
}

size_t NodesAtRisk(const AuditReport& report) {
  size_t n = 0;
  for (const NodeReport& node : report.nodes) n += node.findings.empty() ? 0 : 1;
  return n;
}

size_t WouldDeny(const AuditReport& report) {
  size_t n = 0;
  for (const WorkloadReport& w : report.workloads) n += w.next_pod.deny == Verdict::kDeny ? 1 : 0;
  return n;
}

// "3 errors, 1 warning; 5 nodes (1 at risk); 14 workloads (1 would be denied
// in deny mode); 40 pods (2 pending)"
std::string SummaryLine(const Summary& s, const AuditReport& report) {
  std::string counts = SummaryText(s);
  counts = counts.substr(0, counts.find(" in "));  // its objects and files are check's
  std::string nodes = report.nodes_summed ? std::to_string(NodesAtRisk(report)) + " at risk"
                                          : "not summed";
  std::string out = counts + "; " + std::to_string(report.nodes.size()) + " nodes (" + nodes +
                    "); " +
                    std::to_string(report.workloads_judged) + " workloads (" +
                    std::to_string(WouldDeny(report)) + " would be denied in deny mode); " +
                    Pods(report.pods);
  if (report.pods_pending) out += " (" + std::to_string(report.pods_pending) + " pending)";
  return out;
}

// "memory 502Gi = 539.1 GB = 502 GiB, nvidia.com/gpu 2": sizes in both
// unit systems, counts as they are.
std::string Resources(const ResourceList& list, const Policy& policy) {
  std::string out;
  for (const auto& [name, q] : list) {
    out += (out.empty() ? "" : ", ") + name + " " +
           (IsByteResource(name, policy) ? BriefBytes(q) : q.Canonical());
  }
  return out.empty() ? "none" : out;
}

void WriteText(const AuditReport& report, const ClusterRead& read, const AuditContext& ctx,
               const std::vector<Finding>& findings, bool color, std::ostream& out) {
  std::string text = "gpulint audit of " + ctx.server + " (" + ctx.origin + "); " +
                     (ctx.namespace_name.empty() ? "" : "namespace " + ctx.namespace_name + "; ") +
                     "policy: " + ctx.policy + "\n";
  std::string kinds;
  for (const std::string& k : read.kinds_listed) kinds += (kinds.empty() ? "" : ", ") + k;
  text += "read: " + std::to_string(report.nodes.size()) + " nodes, " +
          std::to_string(report.objects) + " workload objects (" +
          (kinds.empty() ? "none" : kinds) + "), " + Pods(report.pods) + "\n";
  if (!report.nodes_summed) {
    text += "\nNodes at risk: not checked (an audit of namespace " + ctx.namespace_name +
            " sees its own pods only, and a node's sums need them all; without -n every node is "
            "checked)\n";
  } else {
    text += "\nNodes at risk (" + std::to_string(NodesAtRisk(report)) + " of " +
            std::to_string(report.nodes.size()) + "):\n";
  }
  for (const NodeReport& node : report.nodes) {
    if (node.findings.empty()) continue;
    text += "  Node " + node.node.name + ": " + Pods(node.usage.pods) + "; requests " +
            Resources(node.usage.requests, *ctx.rules) + "; limits " +
            Resources(node.usage.limits, *ctx.rules) + "\n";
    for (const Finding& f : node.findings) {
      text += "    ";
      AppendFindingText(f, color, &text);
    }
  }
  text += "\nWorkloads (" + std::to_string(report.workloads.size()) + " of " +
          std::to_string(report.workloads_judged) + " with something to say; " +
          std::to_string(WouldDeny(report)) + " would be denied):\n";
  for (const WorkloadReport& w : report.workloads) {
    const NextPod& next = w.next_pod;
    text += "  " + Named(w.object) + " (" + (w.bare_pod ? "a pod of its own" : Pods(w.pods)) +
            ")\n    made again: deny mode " + VerdictName(next.deny) + ", warn mode " +
            VerdictName(next.warn) + ", audit mode " + VerdictName(next.audit) + "\n";
    for (const Finding& f : next.findings) {
      text += "    ";
      AppendFindingText(f, color, &text);
    }
    for (const std::string& change : next.changes) text += "    would change: " + change + "\n";
    for (const RunningFinding& r : w.running) {
      text += "    ";
      AppendFindingText(UnderOwner(r, w.object), color, &text);
    }
  }
  for (const std::string& note : read.notes) text += "\nnote: " + note;
  if (!read.notes.empty()) text += "\n";
  text += "\ngpulint: " + SummaryLine(Count(findings, report), report) +
          (read.problems.empty() ? ""
                                 : "; partial: " + std::to_string(read.problems.size()) +
                                       " list(s) refused or failed") +
          "\n";
  out << text;
}

json FindingsJson(const std::vector<Finding>& findings) {
  json out = json::array();
  for (const Finding& f : findings) out.push_back(json::parse(FindingJsonText(f)));
  return out;
}

json ResourcesJson(const ResourceList& list) {
  json out = json::object();
  for (const auto& [name, q] : list) out[name] = q.Canonical();
  return out;
}

void WriteJson(const AuditReport& report, const ClusterRead& read, const AuditContext& ctx,
               const std::vector<Finding>& findings, std::ostream& out) {
  json nodes = json::array();
  for (const NodeReport& node : report.nodes) {
    nodes.push_back({{"name", node.node.name},
                     {"pods", node.usage.pods},
                     {"requests", ResourcesJson(node.usage.requests)},
                     {"limits", ResourcesJson(node.usage.limits)},
                     {"podsWithoutMemoryLimit", node.usage.pods_without_memory_limit},
                     {"allocatable", ResourcesJson(node.node.allocatable)},
                     {"findings", FindingsJson(node.findings)}});
  }
  json workloads = json::array();
  for (const WorkloadReport& w : report.workloads) {
    const NextPod& next = w.next_pod;
    json running = json::array();
    for (const RunningFinding& r : w.running)
      running.push_back({{"finding", json::parse(FindingJsonText(r.finding))},
                         {"pods", r.pods},
                         {"pod", r.pod},
                         {"node", r.node}});
    workloads.push_back({{"object",
                          {{"apiVersion", w.object.api_version},
                           {"kind", w.object.kind},
                           {"namespace", w.object.namespace_name},
                           {"name", w.object.name}}},
                         {"barePod", w.bare_pod},
                         {"pods", w.pods},
                         {"owned", w.owned},
                         {"nextPod",
                          {{"deny", VerdictName(next.deny)},
                           {"warn", VerdictName(next.warn)},
                           {"audit", VerdictName(next.audit)},
                           {"findings", FindingsJson(next.findings)},
                           {"changes", next.changes},
                           {"patch", next.patch.empty() ? json() : json::parse(next.patch)}}},
                         {"running", running}});
  }
  json errors = json::array();
  for (const std::string& p : read.problems) errors.push_back({{"message", p}});
  Summary s = Count(findings, report);
  json doc = {
      {"cluster", {{"server", ctx.server}, {"origin", ctx.origin}}},
      {"namespace", ctx.namespace_name.empty() ? json() : json(ctx.namespace_name)},
      {"policy", ctx.policy},
      {"nodes", nodes},
      {"workloads", workloads},
      {"findings", FindingsJson(findings)},
      {"errors", errors},
      {"notes", read.notes},
      {"summary",
       {{"errors", s.errors},
        {"warnings", s.warnings},
        {"infos", s.infos},
        {"nodes", report.nodes.size()},
        {"nodesAtRisk", NodesAtRisk(report)},
        {"nodesSummed", report.nodes_summed},
        {"workloads", report.workloads_judged},
        {"wouldDeny", WouldDeny(report)},
        {"objects", report.objects},
        {"pods", report.pods},
        {"podsPending", report.pods_pending},
        {"kindsListed", read.kinds_listed},
        {"kindsNotServed", read.kinds_not_served}}},
  };
  out << doc.dump() << '\n';
}

void WriteSarif(const AuditReport& report, const ClusterRead& read, const AuditContext& ctx,
                const std::vector<Finding>& findings, std::ostream& out) {
  WriterOptions options;
  options.policy = ctx.rules;
  options.policies = {ctx.policy};
  options.extra_rules = NodeRules();
  std::error_code ec;
  options.base_dir = std::filesystem::current_path(ec).string();
  std::unique_ptr<FindingWriter> writer = FindOutputFormat("sarif")->make(options, out);
  // A cluster's objects are in no file: every result is placed on the file
  // the user named (GitHub code scanning refuses a result that is in none),
  // its object the logical location, its identity the fingerprint of its
  // object and message, so results on the one line stay apart.
  for (Finding f : findings) {
    f.file = ctx.sarif_file;
    f.mark = Mark{1, 0};
    f.fingerprint = Fingerprint(f, ctx.sarif_file);
    writer->Add(f);
  }
  for (const std::string& p : read.problems) writer->AddError({"", {}, p});
  writer->Finish(Count(findings, report));
}

}  // namespace

std::vector<Finding> AuditFindings(const AuditReport& report) {
  std::vector<Finding> out;
  for (const NodeReport& node : report.nodes)
    out.insert(out.end(), node.findings.begin(), node.findings.end());
  for (const WorkloadReport& w : report.workloads) {
    out.insert(out.end(), w.next_pod.findings.begin(), w.next_pod.findings.end());
    for (const RunningFinding& r : w.running) out.push_back(UnderOwner(r, w.object));
  }
  return out;
}

const std::vector<std::string>& AuditFormats() {
  static const std::vector<std::string> formats = {"text", "json", "sarif"};
  return formats;
}

void WriteAudit(const std::string& format, const AuditReport& report, const ClusterRead& read,
                const AuditContext& context, bool color, std::ostream& out) {
  std::vector<Finding> findings = AuditFindings(report);
  if (format == "json") {
    WriteJson(report, read, context, findings, out);
  } else if (format == "sarif") {
    WriteSarif(report, read, context, findings, out);
  } else {
    WriteText(report, read, context, findings, color, out);
  }
}

}  // namespace gpulint
