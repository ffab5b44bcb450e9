#include "lint/cli/audit_policy_report.h"

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "kube/list.h"
#include "lint/cli/audit_output.h"
#include "lint/cli/audit_source.h"

namespace gpulint {
namespace {

using json = nlohmann::ordered_json;

constexpr const char* kGroupVersion = "wgpolicyk8s.io/v1alpha2";
constexpr const char* kApplyType = "application/apply-patch+yaml";

const char* ResultOf(Severity s) { return s == Severity::kError ? "fail" : "warn"; }

const char* SeverityOf(Severity s) {
  switch (s) {
    case Severity::kError:
      return "high";
    case Severity::kWarning:
      return "medium";
    case Severity::kInfo:
      return "info";
  }
  return "info";
}

// What the webhook would do to a workload's next pod, for the result's properties.
std::map<std::string, const WorkloadReport*> VerdictsByObject(const AuditReport& report) {
  std::map<std::string, const WorkloadReport*> out;
  for (const WorkloadReport& w : report.workloads)
    out[w.object.kind + "/" + w.object.namespace_name + "/" + w.object.name] = &w;
  return out;
}

json Result(const Finding& f, const WorkloadReport* workload, int64_t now) {
  json resource = {
      {"apiVersion", f.object.api_version}, {"kind", f.object.kind}, {"name", f.object.name}};
  if (!f.object.namespace_name.empty()) resource["namespace"] = f.object.namespace_name;
  json properties = json::object();
  if (!f.path.empty()) properties["path"] = f.path;
  if (workload) {
    const NextPod& next = workload->next_pod;
    properties["nextPodDeny"] = VerdictName(next.deny);
    properties["nextPodWarn"] = VerdictName(next.warn);
    properties["nextPodAudit"] = VerdictName(next.audit);
  }
  json out = {{"source", "gpulint"},
              {"policy", "gpulint"},
              {"rule", f.rule},
              {"category", "GPU"},
              {"severity", SeverityOf(f.severity)},
              {"timestamp", {{"seconds", now}, {"nanos", 0}}},
              {"result", ResultOf(f.severity)},
              {"scored", true},
              {"resources", json::array({resource})},
              {"message", f.message}};
  if (!properties.empty()) out["properties"] = properties;
  return out;
}

std::string CollectionPath(const std::string& ns) {
  return "/apis/" + std::string(kGroupVersion) +
         (ns.empty() ? "/clusterpolicyreports" : "/namespaces/" + ns + "/policyreports");
}

}  // namespace

std::vector<PolicyReportObject> PolicyReports(const AuditReport& report, int64_t now_seconds) {
  auto workloads = VerdictsByObject(report);
  std::map<std::string, std::vector<json>> results;  // by namespace; "" cluster-wide
  std::map<std::string, std::map<std::string, size_t>> counts;
  results[""];  // the ClusterPolicyReport is written every time
  for (const Finding& f : AuditFindings(report)) {
    auto w = workloads.find(f.object.kind + "/" + f.object.namespace_name + "/" + f.object.name);
    const std::string& ns = f.object.namespace_name;
    ++counts[ns][ResultOf(f.severity)];
    std::vector<json>& list = results[ns];
    if (list.size() < kMaxResultsPerReport)
      list.push_back(Result(f, w == workloads.end() ? nullptr : w->second, now_seconds));
  }
  std::vector<PolicyReportObject> out;
  for (auto& [ns, list] : results) {
    size_t total = counts[ns]["fail"] + counts[ns]["warn"];
    if (total > list.size()) {
      // The report keeps the first findings; the rest are said, not lost in silence.
      Finding more;
      more.rule = "report-truncated";
      more.severity = Severity::kWarning;
      more.message = std::to_string(total - list.size()) +
                     " more findings are not in this report (it holds " +
                     std::to_string(kMaxResultsPerReport) + "): run gpulint audit for all";
      list.push_back(Result(more, nullptr, now_seconds));
      list.back().erase("resources");
    }
    json metadata = {{"name", kPolicyReportName},
                     {"labels", {{kPolicyReportLabel, kPolicyReportLabelValue}}}};
    if (!ns.empty()) metadata["namespace"] = ns;
    json doc = {{"apiVersion", kGroupVersion},
                {"kind", ns.empty() ? "ClusterPolicyReport" : "PolicyReport"},
                {"metadata", metadata},
                {"summary",
                 {{"pass", 0},
                  {"fail", counts[ns]["fail"]},
                  {"warn", counts[ns]["warn"]},
                  {"error", 0},
                  {"skip", 0}}},
                {"results", list}};
    out.push_back({ns, doc.dump(), list.size()});
  }
  // The ClusterPolicyReport ("" sorts first) goes last.
  std::rotate(out.begin(), out.begin() + 1, out.end());
  return out;
}

bool ApplyPolicyReports(const KubeEndpoint& endpoint,
                        const std::vector<PolicyReportObject>& reports,
                        std::vector<std::string>* done, std::string* error) {
  auto client = MakeKubeClient(endpoint, error);
  if (!client) return false;
  client->set_read_timeout(60);
  std::set<std::string> written;
  for (const PolicyReportObject& r : reports) {
    std::string kind = r.namespace_name.empty() ? "clusterpolicyreports" : "policyreports";
    std::string path = endpoint.base_path + CollectionPath(r.namespace_name) + "/" +
                       kPolicyReportName + "?fieldManager=gpulint&force=true";
    KubeResponse res = Patch(*client, path, r.json, kApplyType);
    if (!res.ok()) {
      *error = "cannot write the " +
               std::string(r.namespace_name.empty() ? "ClusterPolicyReport"
                                                    : "PolicyReport of " + r.namespace_name) +
               " (" + Permission("create and patch", kind, "wgpolicyk8s.io") +
               "): " + res.Describe();
      return false;
    }
    written.insert(r.namespace_name);
    done->push_back(std::string(r.namespace_name.empty()
                                    ? "ClusterPolicyReport "
                                    : "PolicyReport " + r.namespace_name + "/") +
                    kPolicyReportName + " written (" + std::to_string(r.results) + " results)");
  }
  // Earlier reports of namespaces that have no finding now.
  for (const char* kind : {"policyreports", "clusterpolicyreports"}) {
    std::vector<std::pair<std::string, std::string>> stale;  // namespace, name
    ListOptions options;
    options.label_selector = std::string(kPolicyReportLabel) + "=" + kPolicyReportLabelValue;
    ListResult listed = ListPaged(endpoint, "/apis/" + std::string(kGroupVersion) + "/" + kind,
                                  options, [&](Value& item) {
                                    const Value* meta = item.Find("metadata");
                                    if (!meta) return;
                                    std::string ns(meta->StringAt("namespace"));
                                    std::string name(meta->StringAt("name"));
                                    // Its own name and label: the chart's role may
                                    // delete no other report.
                                    if (name == kPolicyReportName && !written.count(ns))
                                      stale.emplace_back(ns, name);
                                  });
    if (!listed.ok) {
      *error = "cannot find the reports of earlier runs (" +
               Permission("list", kind, "wgpolicyk8s.io") +
               "): " + (listed.status ? "HTTP " + std::to_string(listed.status) + ": " : "") +
               listed.message;
      return false;
    }
    for (const auto& [ns, name] : stale) {
      std::string path = endpoint.base_path + CollectionPath(ns) + "/" + name;
      KubeResponse res = Delete(*client, path);
      if (!res.ok() && res.status != 404) {
        *error = "cannot delete the stale report " + (ns.empty() ? name : ns + "/" + name) + " (" +
                 Permission("delete", kind, "wgpolicyk8s.io") + "): " + res.Describe();
        return false;
      }
      done->push_back("stale " +
                      std::string(kind == std::string("policyreports") ? "PolicyReport "
                                                                       : "ClusterPolicyReport ") +
                      (ns.empty() ? name : ns + "/" + name) + " deleted");
    }
  }
  return true;
}

}  // namespace gpulint
