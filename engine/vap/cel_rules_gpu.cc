// The rules about GPUs and limits in CEL: each as its engine/rules/ file says
// it, with the same words.
#include "engine/rules/rule_text.h"
#include "engine/vap/cel_quantity.h"
#include "engine/vap/cel_rule_builder.h"

namespace gpulint::cel {
namespace {

// IsExtendedResource (engine/cluster/inventory.h) of a name expression.
std::string Extended(const std::string& name, Names* n) {
  std::string d = n->Next("d");
  return Fill("($n.contains('/') && $body)",
              {{"n", name},
               {"body", Let(d, name + ".substring(0, " + name + ".indexOf('/'))",
                            "!(" + d + " == 'kubernetes.io' || (size(" + d + ") > 14 && " + d +
                                ".endsWith('.kubernetes.io'))) && !" + name + ".substring(" + name +
                                ".indexOf('/') + 1).startsWith('requests')")}});
}

}  // namespace

std::string GpuLimitMissing(const Builder& b) {
  Names* n = b.names();
  const Policy& policy = b.policy();
  std::string c = n->Next("c"), o = n->Next("o");
  std::string rm = n->Next("rm"), what = n->Next("what");
  std::string p = PodOf(c);
  std::string gpu = policy.gpu_resources.empty() ? "GPU" : policy.gpu_resources.front();
  // CpuPartOfGpuWorkload: another pod holds GPUs in the same image.
  std::string skip = Fill(
      "!$p.partial && !$p.agent && !$p.assigns && !$c.gpu && !$c.nvd && $c.cuda && !$c.agentImage "
      "&& !$c.claims && !(!$p.gpu && variables.containers.exists($o, $o.pod != $c.pod && $o.gpu && "
      "$o.image == $c.image))",
      {{"c", c}, {"p", p}, {"o", o}});
  std::string init_of_gpu_image = Fill(
      "($c.role == 'initContainer' && variables.containers.exists($o, $o.pod == $c.pod && "
      "$o.path != $c.path && $o.gpu && $o.image == $c.image))",
      {{"c", c}, {"o", o}});
  std::string findings = Fill(
      "$p.reach != '' && !$init ? $error : $p.reach != '' ? $init_warning : $warning",
      {{"p", p},
       {"init", init_of_gpu_image},
       {"error", Builder::Find(b.Default(), c + ".path",
                               what + " + ' and ' + " + p + ".reach + " + rm + " + " +
                                   Str(", but sets no " + gpu +
                                       " limit: on a GPU node it sees every GPU, including GPUs "
                                       "allocated to other pods"))},
       {"init_warning",
        Builder::Find(b.Sev(Severity::kWarning), c + ".path",
                      what + " + " +
                          Str(", the image of a GPU container of its pod, and sets no " + gpu +
                              " limit: while it runs, before the others start, it sees every GPU "
                              "of the node, including GPUs allocated to other pods"))},
       {"warning",
        Builder::Find(b.Sev(Severity::kWarning), c + ".path",
                      what + " + " + rm + " + " +
                          Str(" and sets no " + gpu +
                              " limit: if it lands on a GPU node (one that is not tainted), it "
                              "sees every GPU there, including GPUs allocated to other pods; "
                              "nothing in the pod says where it runs"))}});
  std::string per_container =
      Let(rm,
          "'alpha.kubernetes.io/nvidia-gpu' in " + c +
              ".lm ? ' (alpha.kubernetes.io/nvidia-gpu was removed in Kubernetes 1.11)' : ''",
          Let(what, Label(c) + " + ' runs a CUDA image (' + " + c + ".image + ')'", findings));
  return b.Collect("variables.containers.filter(" + c + ", " + skip + ").map(" + c + ", " +
                   per_container + ")");
}

std::string GpuVisibilityBypass(const Builder& b) {
  Names* n = b.names();
  std::string c = n->Next("c"), i = n->Next("i"), e = n->Next("e"), q = n->Next("q");
  std::string v = n->Next("v"), k = n->Next("k");
  std::string p = PodOf(c);
  std::string privileged_path = c + ".path + '.securityContext.privileged'";
  std::string holds = Label(c) + " + " +
                      Str(" holds GPUs and is privileged: it sees every GPU device of its node "
                          "(/dev/nvidia*, /dev/dri, /dev/kfd), not only the ones it was given, "
                          "and can use the other pods' GPUs; ") +
                      " + (" + c + ".ipcLock ? " + Str("drop privileged: its IPC_LOCK is what RDMA needs") +
                      " : " + Str("grant the capabilities it needs (IPC_LOCK for RDMA) instead") +
                      ")";
  std::string privileged = Fill(
      "($c.privileged && ($c.gpu || $p.reach != '') ? [$c.gpu ? $holds : $reach] : [])",
      {{"c", c},
       {"p", p},
       {"holds", Builder::Find(b.Sev(Severity::kWarning), privileged_path, holds)},
       {"reach", Builder::Find(b.Sev(Severity::kWarning), privileged_path,
                               Label(c) + " + ' is privileged and ' + " + p + ".reach + " +
                                   Str(": a privileged container sees every /dev/nvidia* device "
                                       "whatever its GPU limit"))}});
  // An env entry: its value's text, or the first key of its valueFrom.
  std::string value = Field(e, "value"), from = Field(e, "valueFrom");
  std::string has_value = "('value' in " + e + " && type(" + value + ") != map && type(" + value +
                          ") != list && " + ScalarText(value) + " != '')";
  std::string has_from =
      "('valueFrom' in " + e + " && type(" + from + ") == map && size(" + from + ") > 0)";
  std::string name = StringAt(e, "name");
  std::string set = "(" + has_value + " ? '=' + " + ScalarText(value) + " : ' from ' + " + from +
                    ".map(" + k + ", " + k + ").min())";
  std::string at = c + ".path + '.env[' + string(" + i + ") + ']' + (" + has_value +
                   " ? '.value' : '.valueFrom')";
  std::string msg =
      Label(c) + " + ' sets ' + " + name + " + " + set +
      " + ' by hand with no GPU limit: it chooses GPUs the scheduler did not give it'";
  std::string env_entry = Fill(
      "type($e) == map && $name in ['NVIDIA_VISIBLE_DEVICES', 'CUDA_VISIBLE_DEVICES'] && "
      "($has_value ? !($text in ['void', 'none']) : $has_from)",
      {{"e", e},
       {"name", name},
       {"has_value", has_value},
       {"text", ScalarText(value)},
       {"has_from", has_from}});
  std::string env = Fill(
      "(!$c.gpu && 'env' in $c.c && type($c.c.env) == list ? $c.c.env.transformList($i, $e, "
      "$match, $p.reach != '' && !$c.agentImage ? $error : $warning) : [])",
      {{"c", c},
       {"i", i},
       {"e", e},
       {"match", env_entry},
       {"p", p},
       {"error", Builder::Find(b.Default(), at, msg + " + ', and ' + " + p + ".reach")},
       {"warning", Builder::Find(b.Sev(Severity::kWarning), at, msg)}});
  // A container given GPUs that sets NVIDIA_VISIBLE_DEVICES itself
  // (engine/rules/gpu_visibility_bypass.cc's CheckEnvWithGpus).
  std::string present = "('value' in " + e + " && type(" + value + ") != map && type(" + value +
                        ") != list)";
  std::string text = "(" + present + " ? " + ScalarText(value) + " : '')";
  std::string gpu_at = c + ".path + '.env[' + string(" + i + ") + ']' + (" + present +
                       " ? '.value' : '')";
  std::string head = Label(c) + " + ' holds GPUs and sets NVIDIA_VISIBLE_DEVICES=' + " + text;
  std::string gpu_env_entry = Fill(
      "!$present && $has_from ? $from_found : ($text in ['', 'void', 'none'] ? $hides : $sees)",
      {{"present", present},
       {"has_from", has_from},
       {"text", text},
       {"from_found",
        Builder::Find(b.Sev(Severity::kWarning), at,
                      Label(c) + " + ' holds GPUs and sets NVIDIA_VISIBLE_DEVICES from ' + " +
                          from + ".map(" + k + ", " + k + ").min() + " +
                          Str(": whatever it holds replaces the device plugin's choice of its "
                              "GPUs"))},
       {"hides", Builder::Find(b.Default(), gpu_at,
                               head + " + " +
                                   Str(": it sees none of them; they stay allocated to it and idle "
                                       "(remove the variable, or the GPU limit if it needs no "
                                       "GPU)"))},
       {"sees", Builder::Find(b.Default(), gpu_at,
                              head + " + ' by hand: that replaces the device plugin\\'s choice, so "
                                     "it sees ' + (" + text + " == 'all' ? 'every GPU of its node' "
                                     ": 'the node\\'s GPUs ' + " + text +
                                     " + ', not the ones it was given') + ', including GPUs "
                                     "allocated to other pods'")}});
  std::string gpu_env = Fill(
      "($c.gpu && 'env' in $c.c && type($c.c.env) == list ? $c.c.env.transformList($i, $e, "
      "type($e) == map && $name == 'NVIDIA_VISIBLE_DEVICES', $entry) : [])",
      {{"c", c}, {"i", i}, {"e", e}, {"name", name}, {"entry", gpu_env_entry}});
  std::string volumes = Field(q + ".spec", "volumes");
  std::string device = ScalarText(Field(Field(v, "hostPath"), "path"));
  std::string host_paths = Fill(
      "($has && type($vols) == list ? $vols.transformList($i, $v, $hp && ($device in ['/dev', "
      "'/dev/'] || $device.startsWith('/dev/nvidia') || $device.startsWith('/dev/dri') || "
      "$device.startsWith('/dev/kfd')), $find) : [])",
      {{"has", HasField(q + ".spec", "volumes")},
       {"vols", volumes},
       {"i", i},
       {"v", v},
       {"hp",
        "(" + HasField(v, "hostPath") + " && " + HasField(Field(v, "hostPath"), "path") + ")"},
       {"device", device},
       {"find", Builder::Find(b.Sev(Severity::kWarning),
                              q + ".path + '.volumes[' + string(" + i + ") + '].hostPath.path'",
                              "'hostPath volume ' + " + device +
                                  " + ' mounts GPU device nodes directly, bypassing the device "
                                  "plugin'")}});
  // GKE's devices.gke.io/container.NAME annotation in a pod that holds no GPU
  // (CheckDeviceAnnotations).
  std::string a = n->Next("a"), m = n->Next("m");
  std::string meta = q + ".meta", annotations = Field(meta, "annotations");
  std::string meta_path =
      "(" + q + ".path.endsWith('spec') ? " + q + ".path.substring(0, size(" + q +
      ".path) - 4) + 'metadata' : (" + q + ".path == '' ? 'metadata' : " + q +
      ".path + '.metadata'))";
  std::string list = Fill(
      "(size($m) == 1 ? $m[0] : size($m) == 2 ? $m[0] + ', ' + $m[1] : $m[0] + ', ' + $m[1] + "
      "', ' + $m[2] + (size($m) > 3 ? ', ...' : ''))",
      {{"m", m}});
  std::string device_annotations = Fill(
      "(!$q.gpu && $has && type($anns) == map ? $anns.filter($a, $a.startsWith("
      "'devices.gke.io/container.') && type($anns[$a]) == string && size($anns[$a].findAll("
      "$re)) > 0).map($a, $let) : [])",
      {{"q", q},
       {"has", HasField(meta, "annotations")},
       {"anns", annotations},
       {"a", a},
       {"re", Str("/dev/(?:nvidia[0-9]+|dri(?:/[A-Za-z0-9_.-]+)?|kfd)")},
       {"let",
        Let(m, annotations + "[" + a + "].findAll(" +
                   Str("/dev/(?:nvidia[0-9]+|dri(?:/[A-Za-z0-9_.-]+)?|kfd)") + ")",
            Builder::Find(
                b.Sev(Severity::kWarning),
                PathExpr(meta_path).Child("annotations").KeyExpr(a).Cel(),
                "'annotation ' + " + a + " + ' gives container \"' + " + a +
                    ".substring(25) + '\" ' + string(size(" + m + ")) + ' GPU device node' + "
                    "(size(" + m + ") == 1 ? '' : 's') + ' (' + " + list +
                    " + ') in a pod that holds no GPU: it reaches GPUs around the device "
                    "plugin, other pods\\' included'"))}});
  return b.Collect("variables.containers.filter(" + c + ", !" + p + ".agent).map(" + c + ", " +
                   privileged + " + " + env + " + " + gpu_env +
                   ").flatten() + variables.pods.filter(" + q + ", !" + q + ".agent).map(" + q +
                   ", " + host_paths + " + " + device_annotations + ").flatten()");
}

std::string MemoryLimitMissing(const Builder& b) {
  // What escapes a discrete GPU's pod, as engine/rules/memory_limit_missing.cc
  // says it (the export needs no nodes, so no unified-memory GPU is in view).
  static constexpr const char* kDiscrete =
      ": nothing bounds its host memory, pinned and managed CUDA memory included (the cgroup "
      "charges those), and outside its cgroup a discrete NVIDIA GPU\\'s driver adds about 120 "
      "MiB per CUDA context and 1.2% of what it pins; an unbounded container can hang the node'";
  std::string c = b.names()->Next("c"), p = PodOf(c);
  // An InferenceService's predictor model is merged with its serving runtime,
  // never in view of admission (engine/rules/memory_limit_missing.cc).
  std::string predictor_model =
      "(variables.group == 'serving.kserve.io' && object.kind == 'InferenceService' && " + c +
      ".path.startsWith('spec.predictor.') && !" + c + ".path.substring(15).contains('.') && !" +
      c + ".path.substring(15).contains('['))";
  std::string at = c + ".resPath + '.limits'";
  std::string head = Label(c) + " + ' uses GPUs but sets no memory limit";
  return b.Collect(
      "variables.containers.filter(" + c + ", !" + p + ".partial && !" + p + ".memLimit && " + c +
      ".gpu && !" + c + ".memLimit).map(" + c + ", " + predictor_model + " ? " +
      Builder::Find(b.Sev(Severity::kInfo), at,
                    head + "; its serving runtime, not in the input, may set one (KServe merges "
                           "the runtime\\'s container into the predictor), and if it sets none "
                           "either" + kDiscrete) +
      " : " + Builder::Find(b.Default(), at, head + kDiscrete) +
      ")");
}

std::string LimitsMissingOnGpuNode(const Builder& b) {
  Names* n = b.names();
  std::string c = n->Next("c"), m = n->Next("m"), p = PodOf(c);
  std::string missing = Fill(
      "(!$c.memLimit && !$p.memLimit && !$c.gpu ? ['memory'] : []) + (!$c.cpuLimit && !$p.cpuLimit "
      "? ['CPU'] : [])",
      {{"c", c}, {"p", p}});
  std::string find = Builder::Find(
      b.Default(), c + ".resPath + '.limits'",
      Label(c) + " + ' sets no ' + " + m + "[0] + (size(" + m + ") > 1 ? ' or ' + " + m +
          "[1] : '') + ' limit, and ' + " + p +
          ".reach + ': an unbounded container on a GPU node takes what the GPU pods and their "
          "driver need'");
  return b.Collect("variables.containers.filter(" + c + ", !" + p + ".partial && !" + p +
                   ".agent && " + p + ".reach != '').map(" + c + ", " +
                   Let(m, missing, "size(" + m + ") > 0 ? [" + find + "] : []") + ").flatten()");
}

std::string GpuRequestLimitMismatch(const Builder& b) {
  Names* n = b.names();
  std::string e = n->Next("e"), r = n->Next("r"), lim = n->Next("lim");
  std::string c = ContainerOf(r);
  std::string no_limit = Builder::Find(
      b.Default(), r + ".path",
      Label(c) + " + ': ' + " + r + ".name + ' is requested (' + " + DescribeCount(r, n) + " + " +
          Str(rule_text::kRequestWithoutLimit));
  // In statements of their own: the names they take are drawn in order.
  std::string requests = DescribeCount(r, n);
  std::string limits = DescribeCount(lim, n);
  std::string differs = Builder::Find(
      b.Default(), r + ".path",
      Label(c) + " + ': ' + " + r + ".name + ' requests ' + " + requests + " + ' but limits ' + " +
          limits + " + " + Str(rule_text::kRequestNotLimit));
  std::string limit = Entry(r + ".name", c + ".lm[" + r + ".name]", "''", "true", "", n);
  std::string per_request =
      "!(" + r + ".name in " + c + ".lm) ? [" + no_limit + "] : " +
      Let(lim, limit,
          lim + ".valid && " + lim + ".q.compareTo(" + r + ".q) != 0 ? [" + differs + "] : []");
  return b.Collect(
      Judged(e, e + ".list == 'requests' && " + Extended(e + ".name", n), r, r + ".valid", n) +
      ".map(" + r + ", " + per_request + ").flatten()");
}

std::string GpuFractional(const Builder& b) {
  Names* n = b.names();
  std::string e = n->Next("e"), f = n->Next("f");
  // In statements of their own: the names they take are drawn in order.
  std::string whole = Whole(f + ".q", n);
  std::string judged = Judged(e, e + ".c >= 0 && " + e + ".name in variables.gpus", f,
                              f + ".valid && !(" + whole + ")", n);
  std::string count = DescribeCount(f, n);
  return b.Collect(
      judged + ".map(" + f + ", " +
      Builder::Find(b.Default(), f + ".path",
                    Label(ContainerOf(f)) + " + ': ' + " + f + ".name + ' ' + " + count + " + " +
                        Str(std::string(rule_text::kGpuNotWhole) + b.policy().vram_resource +
                            ")")) +
      ")");
}

}  // namespace gpulint::cel
