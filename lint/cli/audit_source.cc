#include "lint/cli/audit_source.h"

#include <set>
#include <utility>

#include "kube/discovery.h"

namespace gpulint {
namespace {

// A list's items carry no apiVersion or kind; the engine finds a workload's
// pods by them.
void Name(Value* item, const ApiResource& resource) {
  auto& members = item->mutable_members();
  members.insert(members.begin(), {{"apiVersion", Value::String(resource.ApiVersion())},
                                   {"kind", Value::String(resource.kind)}});
}

std::string GroupWords(const std::string& group) {
  return group.empty() ? "the core API group" : "API group " + group;
}

// Why a list failed, and what the report lacks for it.
std::string Problem(const ApiResource& resource, const std::string& ns, const ListResult& r,
                    const std::string& lacks) {
  std::string what = Permission("list", resource.resource, resource.group);
  std::string head;
  if (r.status == 403) {
    std::string where = ns.empty() || !resource.namespaced ? "all namespaces" : "namespace " + ns;
    head = "cannot " + what + " (verb list, resource " + resource.resource + ", " +
           GroupWords(resource.group) + ", " + where + "): forbidden";
  } else if (r.status != 0) {
    head = "cannot " + what + ": HTTP " + std::to_string(r.status);
  } else {
    head = "cannot " + what;
  }
  std::string out = head + "; " + lacks;
  if (!r.message.empty()) out += " (the API server said: " + r.message + ")";
  return out;
}

}  // namespace

std::string Permission(const std::string& verb, const std::string& resource,
                       const std::string& group) {
  return verb + " " + resource + (group.empty() ? "" : "." + group);
}

bool ReadCluster(const KubeEndpoint& endpoint, const Policy& policy, const ListOptions& options,
                 const std::string& ns, ClusterAudit* audit, ClusterRead* read,
                 std::string* error) {
  std::vector<std::string> groups = {"resource.k8s.io"};
  for (const WorkloadKind& w : policy.workloads) groups.push_back(w.group);
  Discovery discovery;
  if (!Discover(endpoint, groups, &discovery, error)) {
    *error = "cannot read the API server's discovery: " + *error;
    return false;
  }
  for (const std::string& p : discovery.problems)
    read->notes.push_back("an API group's discovery failed, its kinds are not listed: " + p);

  auto list = [&](const ApiResource& resource, const ListOptions& list_options,
                  const std::string& lacks, auto&& add) {
    ListResult r = ListPaged(endpoint, resource.Path(ns), list_options, [&](Value& item) {
      Name(&item, resource);
      add(item);
    });
    if (r.resumed)
      read->notes.push_back("the list of " + resource.resource +
                            " outlived its continue token and went on from a newer state: "
                            "objects made or removed meanwhile may be missing");
    if (!r.ok) read->problems.push_back(Problem(resource, ns, r, lacks));
    return r.ok;
  };

  const ApiResource* nodes = discovery.Find("", "Node");
  const ApiResource* pods = discovery.Find("", "Pod");
  if (!nodes || !pods) {
    *error = "the API server serves no nodes or pods in its core group";
    return false;
  }
  read->nodes_listed =
      list(*nodes, options,
           "no node is checked for what its pods request, and workloads are judged against the "
           "policy's node classes only",
           [&](const Value& node) { audit->AddNode(node, "api-server"); });

  // DRA's devices: where the cluster serves none, there are none. Without
  // the nodes there is no node to hold them: not asked for (an account that
  // may list one namespace alone is refused one cluster-wide list, not three).
  const ApiResource* classes = discovery.Find("resource.k8s.io", "DeviceClass");
  const ApiResource* slices = discovery.Find("resource.k8s.io", "ResourceSlice");
  const std::string dra_lacks =
      "extended resources that DRA DeviceClasses may back are not fitted (a warning says so), "
      "and claims are judged by GPU Feature Discovery's labels";
  auto add_dra = [&](const Value& object) { audit->AddDraObject(object, "api-server"); };
  if (read->nodes_listed &&
      (!classes || !slices ||
       (list(*classes, options, dra_lacks, add_dra) && list(*slices, options, dra_lacks, add_dra))))
    audit->DraComplete();

  std::set<std::string> listed;  // resource paths
  for (const WorkloadKind& w : policy.workloads) {
    if (w.kind == "Pod") continue;  // below, with the nodes' sums
    const ApiResource* resource = discovery.Find(w.group, w.kind);
    std::string name = w.kind + (w.group.empty() || w.group == "*" ? "" : "." + w.group);
    if (!resource) {
      read->kinds_not_served.push_back(name);
      continue;
    }
    if (!listed.insert(resource->Path()).second) continue;
    read->kinds_listed.push_back(name);
    list(*resource, options,
         w.kind + " objects are not judged, and their pods are reported each on its own",
         [&](const Value& object) { audit->AddWorkload(object); });
  }

  // Pods that finished hold nothing on their node, as the scheduler counts.
  ListOptions pod_options = options;
  pod_options.field_selector = "status.phase!=Succeeded,status.phase!=Failed";
  read->pods_listed =
      list(*pods, pod_options, "no running pod is judged and no node's pods are summed",
           [&](const Value& pod) { audit->AddPod(pod); });
  return true;
}

}  // namespace gpulint
