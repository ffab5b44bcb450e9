#include "engine/vap/cel_facts.h"

#include "engine/vap/cel_paths.h"
#include "engine/vap/cel_quantity.h"

namespace gpulint::cel {
namespace {

// Whether a pattern list matches `text` anywhere (PatternList::Matches):
// each pattern a literal, which the API server compiles once, with the
// policy, rather than on every request.
std::string MatchesAny(const PatternList& patterns, const std::string& text) {
  std::string out;
  for (const std::string& pattern : patterns.texts())
    out += (out.empty() ? "" : " || ") + text + ".matches(" + Str(pattern) + ")";
  return out.empty() ? "false" : "(" + out + ")";
}

// A container's resources map `list` ("requests", "limits"): {} when none.
std::string ResourceList(const std::string& c, const char* list) {
  std::string res = c + ".c[" + c + ".res]", l = res + "['" + list + "']";
  return "(" + c + ".res in " + c + ".c && type(" + res + ") == map && '" + list + "' in " + res +
         " && type(" + l + ") == map ? " + l + " : {})";
}

// A raw volume entry.
std::string VolumeEntry(const std::string& name, const std::string& value,
                        const std::string& path) {
  return "{'c': dyn(-1), 'list': dyn('volume'), 'name': dyn(" + Str(name) + "), 'v': dyn(" + value +
         "), 'path': dyn(" + path + ")}";
}

// A PersistentVolumeClaimSpec's storage request and limit.
std::string ClaimEntries(const std::string& spec, const PathExpr& path) {
  std::string res = Field(spec, "resources"), out;
  for (const char* list : {"requests", "limits"}) {
    std::string l = Field(res, list);
    out += std::string(out.empty() ? "" : " + ") + "(" + HasField(res, list) + " && " +
           HasField(l, "storage") + " ? [" +
           VolumeEntry("storage", Field(l, "storage"),
                       path.Child(std::string("resources.") + list + ".storage").Cel()) +
           "] : [])";
  }
  return "(" + HasField(spec, "resources") + " ? " + out + " : [])";
}

// VolumeQuantities: the object's own claim (a PersistentVolumeClaim), its
// volumeClaimTemplates when it carries pods, each pod's emptyDir size limits
// and ephemeral volumes' claims.
std::string VolumeEntries(Names* names) {
  std::string x = names->Next("x"), p = names->Next("p"), v = names->Next("v");
  std::string vv = v + ".v";
  std::string size_limit = Field(Field(vv, "emptyDir"), "sizeLimit");
  Walk ephemeral = Descend(vv, PathExpr(v + ".p"), {"ephemeral", "volumeClaimTemplate", "spec"});
  // sizeLimit is a pointer: null leaves it unset, unlike a null in a
  // resource list, which decodes to zero.
  std::string volume =
      "(" + HasField(vv, "emptyDir") + " && " + HasField(Field(vv, "emptyDir"), "sizeLimit") +
      " && type(" + size_limit + ") != null_type ? [" +
      VolumeEntry("emptyDir.sizeLimit", size_limit, v + ".p + '.emptyDir.sizeLimit'") +
      "] : []) + (" + ephemeral.cond + " ? " + ClaimEntries(ephemeral.value, ephemeral.path) +
      " : [])";
  // In statements of their own: the names they take are drawn in order.
  std::string templates =
      Expand("object", PathExpr::Literal(""), {"spec", "volumeClaimTemplates", "*", "spec"}, names);
  std::string volumes = Expand(p + ".spec", PathExpr(p + ".path"), {"volumes", "*"}, names);
  return "(object.kind == 'PersistentVolumeClaim' && object.apiVersion == 'v1' && " +
         HasField("object", "spec") + " ? " +
         ClaimEntries(Field("object", "spec"), PathExpr::Literal("spec")) + " : []) + " +
         "(size(variables.pods1) > 0 ? " + templates + ".map(" + x + ", " +
         ClaimEntries(x + ".v", PathExpr(x + ".p")) + ").flatten() : []) + " +
         "variables.pods1.map(" + p + ", " + volumes + ".filter(" + v + ", type(" + vv +
         ") == map).map(" + v + ", " + volume + ").flatten()).flatten()";
}

// A container's facts (ContainerInfo), `j` its index.
std::string ContainerFacts(const Policy& policy, const std::string& c, Names* names) {
  std::string rq = names->Next("rq"), lm = names->Next("lm"), k = names->Next("k");
  std::string node = c + ".c";
  // UsesGpus: a GPU limit, or a request or limit of another GPU assignment,
  // that the API server does not read as zero or less.
  std::string assigned = MatchesAny(policy.gpu_assignment_resources, k);
  std::string uses = Fill(
      "$lm.exists($k, $k in variables.gpus && $above_lm) || $rq.exists($k, $assigned && $above_rq) "
      "|| $lm.exists($k, $assigned && $above_lm)",
      {{"lm", lm},
       {"rq", rq},
       {"k", k},
       {"assigned", assigned},
       {"above_lm", AboveZeroOrRefused(lm + "[" + k + "]", names)},
       {"above_rq", AboveZeroOrRefused(rq + "[" + k + "]", names)}});
  std::string sc = Field(node, "securityContext");
  std::string privileged = HasField(node, "securityContext") + " && " + HasField(sc, "privileged") +
                           " && " + ScalarText(Field(sc, "privileged")) + " == 'true'";
  std::string caps = Field(sc, "capabilities"), adds = Field(caps, "add"), y = names->Next("y");
  std::string ipc_lock = HasField(node, "securityContext") + " && " + HasField(sc, "capabilities") +
                         " && " + HasField(caps, "add") + " && type(" + adds + ") == list && " +
                         adds + ".exists(" + y + ", type(" + y + ") == string && " + y +
                         " in ['IPC_LOCK', 'CAP_IPC_LOCK'])";
  std::string env = Field(node, "env"), x = names->Next("x");
  std::string visible = HasField(node, "env") + " && type(" + env + ") == list && " + env +
                        ".exists(" + x + ", type(" + x + ") == map && " + StringAt(x, "name") +
                        " == 'NVIDIA_VISIBLE_DEVICES')";
  std::string resources = Field(node, "resources"), claims = Field(resources, "claims");
  std::string has_claims = HasField(node, "resources") + " && " + HasField(resources, "claims") +
                           " && type(" + claims + ") == list && size(" + claims + ") > 0";
  std::string record = Fill(
      "{'c': $c.c, 'path': $c.path, 'role': $c.role, 'name': $c.name, 'image': $c.image, 'res': "
      "$c.res, 'resPath': $c.resPath, 'pod': $c.pod, 'rq': dyn($rq), 'lm': dyn($lm), "
      "'gpu': dyn($uses), 'privileged': dyn($privileged), 'ipcLock': dyn($ipc), 'nvd': "
      "dyn($visible), 'claims': "
      "dyn($claims), 'cuda': dyn($cuda), 'agentImage': dyn($agent), 'memLimit': dyn('memory' in "
      "$lm), 'cpuLimit': dyn('cpu' in $lm)}",
      {{"c", c},
       {"rq", rq},
       {"lm", lm},
       {"uses", uses},
       {"privileged", privileged},
       {"ipc", ipc_lock},
       {"visible", visible},
       {"claims", has_claims},
       {"cuda", MatchesAny(policy.cuda_images, c + ".image")},
       {"agent", MatchesAny(policy.agent_images, c + ".image")}});
  return Let(rq, ResourceList(c, "requests"), Let(lm, ResourceList(c, "limits"), record));
}

// Every request and limit of every container ({c: its index, list: 'requests'
// or 'limits', name, v, path}), each list's resources in order of their
// names; then VolumeQuantities. Read by the rules about quantities, which
// parse only the entries they judge.
std::string Entries(Names* names) {
  std::string j = names->Next("j"), c = names->Next("c"), l = names->Next("l");
  std::string k = names->Next("k"), m = names->Next("m");
  std::string path = PathExpr(c + ".resPath + '.' + " + l).KeyExpr(k).Cel();
  return "variables.containers.transformList(" + j + ", " + c + ", ['requests', 'limits'].map(" +
         l + ", " +
         Let(m, l + " == 'requests' ? " + c + ".rq : " + c + ".lm",
             m + ".map(" + k + ", " + k + ").sort().map(" + k + ", {'c': dyn(" + j +
                 "), 'list': dyn(" + l + "), 'name': dyn(" + k + "), 'v': dyn(" + m + "[" + k +
                 "]), 'path': dyn(" + path + ")})") +
         ").flatten()).flatten() + " + VolumeEntries(names);
}

// engine/workload/node_agent.cc's Under(path, dir), `dir` known.
std::string UnderDir(const std::string& path, std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  if (dir == "/") return path + ".startsWith('/')";
  return "(" + path + " == " + Str(dir) + " || " + path + ".startsWith(" + Str(dir + "/") + "))";
}

// NodeAgentReason(), as a condition: `cs` the pod's containers, `gpu` whether
// one uses GPUs, `hp` its hostPath paths.
std::string Agent(const Policy& policy, const std::string& cs, const std::string& gpu,
                  const std::string& hp, Names* names) {
  std::string h = names->Next("h"), c = names->Next("c");
  std::string dirs;
  for (const std::string& d : policy.agent_host_paths)
    dirs += (dirs.empty() ? "" : " || ") + UnderDir(h, d);
  if (dirs.empty()) dirs = "false";
  return Fill(
      "!$gpu && ($hp.exists($h, $dirs) || (variables.ds && ($cs.exists($c, $c.privileged) || "
      "$hp.exists($h, $dev))) || $cs.exists($c, $c.agentImage))",
      {{"gpu", gpu},
       {"hp", hp},
       {"h", h},
       {"dirs", dirs},
       {"cs", cs},
       {"c", c},
       {"dev", UnderDir(h, "/dev")}});
}

// GpuReachReason() with no node inventory: '' when nothing says the pod can
// reach a GPU node.
std::string Reach(const Policy& policy, const std::string& spec, const std::string& gpu,
                  Names* names) {
  std::string tl = names->Next("tl"), hit = names->Next("hit"), t = names->Next("t");
  std::string sel = names->Next("sel"), k = names->Next("k"), v = names->Next("v");
  std::string terms = names->Next("terms"), ok = names->Next("ok"), e = names->Next("e");
  std::string tolerations = Field(spec, "tolerations");
  std::string key = StringAt(t, "key"), op = StringAt(t, "operator");
  std::string every = "(" + key + " == '' && " + op + " == 'Exists')";
  std::string first_key = StringAt(hit + "[0]", "key");
  std::string selector = Field(spec, "nodeSelector");
  std::string required = Field(Field(Field(spec, "affinity"), "nodeAffinity"),
                               "requiredDuringSchedulingIgnoredDuringExecution");
  std::string term_list = Field(required, "nodeSelectorTerms");
  std::string expr_ok =
      Fill("type($e) == map && !($op in ['NotIn', 'DoesNotExist']) && $key in $labels",
           {{"e", e},
            {"op", StringAt(e, "operator")},
            {"key", StringAt(e, "key")},
            {"labels", StrList(policy.gpu_node_label_keys)}});
  std::string exprs = Field(t, "matchExpressions");
  std::string affinity =
      Let(terms,
          HasField(spec, "affinity") + " && " + HasField(Field(spec, "affinity"), "nodeAffinity") +
              " && " +
              HasField(Field(Field(spec, "affinity"), "nodeAffinity"),
                       "requiredDuringSchedulingIgnoredDuringExecution") +
              " && " + HasField(required, "nodeSelectorTerms") + " && type(" + term_list +
              ") == list ? " + term_list + " : []",
          Let(ok,
              terms + ".filter(" + t + ", " + HasField(t, "matchExpressions") + " && type(" +
                  exprs + ") == list && " + exprs + ".exists(" + e + ", " + expr_ok + "))",
              "size(" + ok + ") > 0 ? 'its pod selects GPU nodes (node affinity ' + " +
                  Fill("$ok[0].matchExpressions.filter($e, $exprok)[0].key",
                       {{"ok", ok}, {"e", e}, {"exprok", expr_ok}}) +
                  " + ')' : ''"));
  std::string node_selector = Let(
      sel,
      HasField(spec, "nodeSelector") + " && type(" + selector + ") == map ? " + selector +
          ".transformList(" + k + ", " + v + ", type(" + v + ") != map && type(" + v +
          ") != list && " + k + " in " + StrList(policy.gpu_node_label_keys) + ", " + k + ") : []",
      "size(" + sel + ") > 0 ? 'its pod selects GPU nodes (nodeSelector ' + " + sel +
          ".min() + ')' : " + affinity);
  std::string by_toleration =
      Let(tl,
          HasField(spec, "tolerations") + " && type(" + tolerations + ") == list ? " + tolerations +
              ".filter(" + t + ", type(" + t + ") == map) : []",
          Let(hit,
              tl + ".filter(" + t + ", " + every + " || " + key + " in " +
                  StrList(policy.gpu_taint_keys) + ")",
              "size(" + hit + ") > 0 ? (" + first_key + " == '' && " +
                  StringAt(hit + "[0]", "operator") +
                  " == 'Exists' ? 'its pod tolerates every taint' : 'its pod tolerates the ' + " +
                  first_key + " + ' taint') : " + node_selector));
  return "(" + gpu + " ? 'its pod requests GPUs' : " + by_toleration + ")";
}

// A pod's facts (PodInfo, settled), `i` its index.
std::string PodFacts(const Policy& policy, const std::string& p, const std::string& i,
                     Names* names) {
  std::string cs = names->Next("cs"), c = names->Next("c"), g = names->Next("g");
  std::string hp = names->Next("hp"), v = names->Next("v"), m = names->Next("m");
  std::string k = names->Next("k");
  std::string spec = p + ".spec", volumes = Field(spec, "volumes");
  std::string host = Field(v, "hostPath");
  std::string host_paths = HasField(spec, "volumes") + " && type(" + volumes + ") == list ? " +
                           volumes + ".filter(" + v + ", " + HasField(v, "hostPath") + " && " +
                           HasField(host, "path") + " && type(" + Field(host, "path") +
                           ") == string).map(" + v + ", " + Field(host, "path") + ") : []";
  auto pod_limit = [&](const char* resource) {
    std::string limits = Field(Field(spec, "resources"), "limits");
    return p + ".podLevel && " + HasField(spec, "resources") + " && " +
           HasField(Field(spec, "resources"), "limits") + " && " + Str(resource) + " in " + limits;
  };
  std::string assigns = Fill(
      "['labels', 'annotations'].exists($m, $m in $p.meta && type($p.meta[$m]) == map && "
      "$keys.exists($k, $k in $p.meta[$m]))",
      {{"m", m}, {"p", p}, {"k", k}, {"keys", StrList(policy.gpu_assignment_pod_keys)}});
  // In statements of their own: the names they take are drawn in order.
  std::string agent = Agent(policy, cs, g, hp, names);
  std::string reach = Reach(policy, spec, g, names);
  std::string record = "{'path': " + p + ".path, 'meta': " + p + ".meta, 'own': " + p +
                       ".own, 'spec': " + spec + ", 'partial': " + p +
                       ".partial, 'memLimit': dyn(" + pod_limit("memory") + "), 'cpuLimit': dyn(" +
                       pod_limit("cpu") + "), 'containers': dyn(" + cs + "), 'gpu': dyn(" + g +
                       "), 'agent': dyn(" + agent + "), 'reach': dyn(" + reach +
                       "), 'assigns': dyn(" + assigns + ")}";
  return Let(cs, "variables.containers.filter(" + c + ", " + c + ".pod == " + i + ")",
             Let(g, cs + ".exists(" + c + ", " + c + ".gpu)", Let(hp, host_paths, record)));
}

}  // namespace

std::vector<Variable> FactVariables(const Policy& policy, Names* names) {
  std::string i = names->Next("i"), p = names->Next("p"), c = names->Next("c");
  return {
      {"containers", "variables.pods1.transformList(" + i + ", " + p + ", " + p +
                         ".containers.map(" + c + ", {'c': " + c + ".c, 'path': " + c +
                         ".path, 'role': " + c + ".role, 'name': " + c + ".name, 'image': " + c +
                         ".image, 'res': " + c + ".res, 'resPath': " + c + ".resPath, 'pod': dyn(" +
                         i + ")})).flatten().map(" + c + ", " + ContainerFacts(policy, c, names) +
                         ")"},
      {"entries", Entries(names)},
      {"pods", "variables.pods1.transformList(" + i + ", " + p + ", " +
                   PodFacts(policy, p, i, names) + ")"},
  };
}

}  // namespace gpulint::cel
