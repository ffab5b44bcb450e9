// Reads a policy document onto a Policy. A user policy is layered on the
// default one: every field it writes replaces the default's, every field it
// leaves out keeps it, and three tables merge by key (reserved by resource,
// rules by name, workloads by group and kind). policies/README.md documents the
// format; the error messages below are part of it.
#include <re2/re2.h>

#include <algorithm>
#include <set>
#include <utility>

#include "engine/loader.h"
#include "engine/path.h"
#include "engine/policy.h"
#include "engine/policy_decoder.h"
#include "engine/rule.h"

namespace gpulint {
namespace {

constexpr std::string_view kApiVersion = "gpulint.io/v1alpha1";
constexpr std::string_view kKind = "Policy";

std::string Index(std::string_view path, size_t i) {
  return std::string(path) + "[" + std::to_string(i) + "]";
}

// Calls fn(key, value, path) for each member of an optional mapping field.
template <typename Fn>
void ForField(const Value& parent, std::string_view path, std::string_view key, Fn fn) {
  if (const Value* v = parent.Find(key)) fn(*v, JoinPath(path, key));
}

bool ReadReserve(PolicyDecoder& d, const Value& v, const std::string& path, Reserve* out) {
  if (!d.ExpectFields(v, path, {"fixed", "percent", "perGpu"})) return false;
  *out = Reserve{};
  ForField(v, path, "fixed",
           [&](const Value& f, const std::string& p) { d.ReadQuantity(f, p, &out->fixed); });
  ForField(v, path, "percent", [&](const Value& f, const std::string& p) {
    d.ReadPercentMilli(f, p, &out->percent_milli);
  });
  ForField(v, path, "perGpu",
           [&](const Value& f, const std::string& p) { d.ReadQuantity(f, p, &out->per_gpu); });
  if (d.failed()) return false;
  if (out->fixed.sign() < 0)
    return d.Fail(*v.Find("fixed"), path + ".fixed", "must not be negative");
  if (out->per_gpu.sign() < 0)
    return d.Fail(*v.Find("perGpu"), path + ".perGpu", "must not be negative");
  return true;
}

bool ReadReserved(PolicyDecoder& d, const Value& v, const std::string& path, Policy* p) {
  if (!d.ExpectMapping(v, path)) return false;
  for (const auto& [resource, child] : v.members()) {
    Reserve r;
    if (!ReadReserve(d, child, AppendKey(path, resource), &r)) return false;
    p->reserved[resource] = r;
  }
  return true;
}

bool ReadVram(PolicyDecoder& d, const Value& v, const std::string& path, Policy* p) {
  if (!d.ExpectFields(v, path, {"resource", "annotation"})) return false;
  ForField(v, path, "resource", [&](const Value& f, const std::string& fp) {
    if (d.ReadNonEmptyString(f, fp, &p->vram_resource) &&
        p->vram_resource.find('/') == std::string::npos)
      d.Fail(f, fp,
             "\"" + p->vram_resource +
                 "\" is not an extended resource name: use a domain prefix, e.g. "
                 "gpulint.io/vram");
  });
  ForField(v, path, "annotation", [&](const Value& f, const std::string& fp) {
    d.ReadNonEmptyString(f, fp, &p->vram_annotation);
  });
  return !d.failed();
}

bool ReadPatterns(PolicyDecoder& d, const Value& v, const std::string& path, PatternList* out) {
  std::vector<std::string> texts;
  if (!d.ReadStringList(v, path, &texts)) return false;
  size_t bad = 0;
  std::string error;
  std::vector<std::string> copy = texts;
  if (out->Set(std::move(texts), &bad, &error)) return true;
  return d.Fail(v.items()[bad], Index(path, bad), "invalid pattern \"" + copy[bad] + "\": " + error);
}

bool ReadGpuNodes(PolicyDecoder& d, const Value& v, const std::string& path, Policy* p) {
  if (!d.ExpectFields(v, path,
                      {"taintKeys", "labelKeys", "cudaImages", "agentImages", "agentHostPaths",
                       "extendedResourceToleration"}))
    return false;
  ForField(v, path, "extendedResourceToleration", [&](const Value& f, const std::string& fp) {
    d.ReadBool(f, fp, &p->extended_resource_toleration);
  });
  ForField(v, path, "taintKeys", [&](const Value& f, const std::string& fp) {
    d.ReadStringList(f, fp, &p->gpu_taint_keys);
  });
  ForField(v, path, "labelKeys", [&](const Value& f, const std::string& fp) {
    d.ReadStringList(f, fp, &p->gpu_node_label_keys);
  });
  ForField(v, path, "cudaImages", [&](const Value& f, const std::string& fp) {
    ReadPatterns(d, f, fp, &p->cuda_images);
  });
  ForField(v, path, "agentImages", [&](const Value& f, const std::string& fp) {
    ReadPatterns(d, f, fp, &p->agent_images);
  });
  ForField(v, path, "agentHostPaths", [&](const Value& f, const std::string& fp) {
    if (!d.ReadStringList(f, fp, &p->agent_host_paths)) return;
    for (size_t i = 0; i < p->agent_host_paths.size(); ++i)
      if (p->agent_host_paths[i].empty() || p->agent_host_paths[i].front() != '/')
        d.Fail(f.items()[i], Index(fp, i),
               "\"" + p->agent_host_paths[i] + "\" is not an absolute path");
  });
  return !d.failed();
}

bool ReadOtherGpuAssignments(PolicyDecoder& d, const Value& v, const std::string& path,
                             Policy* p) {
  if (!d.ExpectFields(v, path, {"resources", "podKeys", "deviceClasses"})) return false;
  ForField(v, path, "deviceClasses", [&](const Value& f, const std::string& fp) {
    d.ReadStringList(f, fp, &p->gpu_device_classes);
  });
  ForField(v, path, "resources", [&](const Value& f, const std::string& fp) {
    ReadPatterns(d, f, fp, &p->gpu_assignment_resources);
  });
  ForField(v, path, "podKeys", [&](const Value& f, const std::string& fp) {
    d.ReadStringList(f, fp, &p->gpu_assignment_pod_keys);
  });
  return !d.failed();
}

bool ReadTaint(PolicyDecoder& d, const Value& v, const std::string& path, Taint* out) {
  if (!d.ExpectFields(v, path, {"key", "value", "effect"})) return false;
  const Value* key = v.Find("key");
  const Value* effect = v.Find("effect");
  if (!key || !effect)
    return d.Fail(v, path,
                  std::string("missing required field \"") + (key ? "effect" : "key") + "\"");
  d.ReadNonEmptyString(*key, path + ".key", &out->key);
  ForField(v, path, "value",
           [&](const Value& f, const std::string& fp) { d.ReadString(f, fp, &out->value); });
  if (!d.ReadString(*effect, path + ".effect", &out->effect)) return false;
  if (out->effect != "NoSchedule" && out->effect != "PreferNoSchedule" &&
      out->effect != "NoExecute")
    return d.Fail(*effect, path + ".effect",
                  "unknown effect \"" + out->effect +
                      "\" (expected NoSchedule, PreferNoSchedule or NoExecute)");
  return !d.failed();
}

bool ReadSharing(PolicyDecoder& d, const Value& v, const std::string& path, GpuSharing* out) {
  std::string s;
  if (!d.ReadString(v, path, &s)) return false;
  for (GpuSharing g : {GpuSharing::kNone, GpuSharing::kTimeSlicing, GpuSharing::kMps}) {
    if (s == GpuSharingName(g)) {
      *out = g;
      return true;
    }
  }
  return d.Fail(v, path, "unknown sharing \"" + s + "\" (expected none, time-slicing or mps)");
}

bool ReadGpu(PolicyDecoder& d, const Value& v, const std::string& path, GpuInfo* gpu,
             bool* has_count) {
  if (!d.ExpectFields(v, path, {"model", "count", "memoryPerGpu", "sharing", "replicas"}))
    return false;
  ForField(v, path, "model",
           [&](const Value& f, const std::string& fp) { d.ReadString(f, fp, &gpu->model); });
  ForField(v, path, "count", [&](const Value& f, const std::string& fp) {
    *has_count = d.ReadInt(f, fp, 0, 1024, &gpu->count);
  });
  ForField(v, path, "memoryPerGpu", [&](const Value& f, const std::string& fp) {
    Quantity q;
    if (!d.ReadQuantity(f, fp, &q)) return;
    if (q.sign() <= 0) d.Fail(f, fp, "must be more than 0");
    gpu->vram_per_gpu = q;
  });
  ForField(v, path, "sharing",
           [&](const Value& f, const std::string& fp) { ReadSharing(d, f, fp, &gpu->sharing); });
  ForField(v, path, "replicas", [&](const Value& f, const std::string& fp) {
    d.ReadInt(f, fp, 1, 1024, &gpu->replicas);
  });
  if (d.failed()) return false;
  if (gpu->replicas > 1 && gpu->sharing == GpuSharing::kNone)
    return d.Fail(*v.Find("replicas"), path + ".replicas",
                  "more than 1 replica per GPU needs sharing: time-slicing or mps");
  return true;
}

// A class's GPU count and its GPU resource in allocatable are two views of the
// device plugin's advertisement (count × replicas); fill whichever is missing.
void ReconcileGpuCount(const Policy& p, bool has_count, NodeClass* c) {
  const std::string& resource = p.gpu_resources.front();
  auto it = c->allocatable.find(resource);
  if (!has_count && it != c->allocatable.end()) {
    Quantity physical = it->second.ScaledUp(1, c->gpu.replicas);
    c->gpu.count = physical.Value();
  } else if (has_count && it == c->allocatable.end() && c->gpu.count > 0) {
    c->allocatable[resource] = Quantity::FromInt(c->gpu.count * c->gpu.replicas);
  }
}

bool ReadNodeClass(PolicyDecoder& d, const Policy& p, const Value& v, const std::string& path,
                   NodeClass* c) {
  if (!d.ExpectFields(v, path, {"name", "labels", "taints", "allocatable", "gpu"})) return false;
  const Value* name = v.Find("name");
  if (!name) return d.Fail(v, path, "missing required field \"name\"");
  d.ReadNonEmptyString(*name, path + ".name", &c->name);
  c->source = "policy";
  ForField(v, path, "labels",
           [&](const Value& f, const std::string& fp) { d.ReadStringMap(f, fp, &c->labels); });
  ForField(v, path, "taints", [&](const Value& f, const std::string& fp) {
    if (!d.ExpectSequence(f, fp)) return;
    for (size_t i = 0; i < f.items().size() && !d.failed(); ++i) {
      Taint t;
      if (ReadTaint(d, f.items()[i], Index(fp, i), &t)) c->taints.push_back(std::move(t));
    }
  });
  ForField(v, path, "allocatable", [&](const Value& f, const std::string& fp) {
    if (!d.ExpectMapping(f, fp)) return;
    for (const auto& [resource, q] : f.members()) {
      std::string rp = AppendKey(fp, resource);
      if (!d.ReadQuantity(q, rp, &c->allocatable[resource])) return;
      if (c->allocatable[resource].sign() < 0) d.Fail(q, rp, "must not be negative");
    }
  });
  bool has_count = false;
  ForField(v, path, "gpu",
           [&](const Value& f, const std::string& fp) { ReadGpu(d, f, fp, &c->gpu, &has_count); });
  if (d.failed()) return false;
  ReconcileGpuCount(p, has_count, c);
  return true;
}

bool ReadNodeClasses(PolicyDecoder& d, const Value& v, const std::string& path, Policy* p) {
  if (!d.ExpectSequence(v, path)) return false;
  std::vector<NodeClass> classes;
  std::set<std::string> names;
  for (size_t i = 0; i < v.items().size(); ++i) {
    NodeClass c;
    std::string cp = Index(path, i);
    if (!ReadNodeClass(d, *p, v.items()[i], cp, &c)) return false;
    if (!names.insert(c.name).second)
      return d.Fail(*v.items()[i].Find("name"), cp + ".name",
                    "duplicate node class name \"" + c.name + "\"");
    classes.push_back(std::move(c));
  }
  p->node_classes = std::move(classes);
  return true;
}

bool ReadRules(PolicyDecoder& d, const Value& v, const std::string& path, Policy* p) {
  if (!d.ExpectMapping(v, path)) return false;
  for (const auto& [rule, child] : v.members()) {
    std::string rp = AppendKey(path, rule);
    if (!d.ExpectFields(child, rp, {"enabled", "severity"})) return false;
    RuleSetting s;
    s.mark = child.mark();
    ForField(child, rp, "enabled",
             [&](const Value& f, const std::string& fp) { d.ReadBool(f, fp, &s.enabled); });
    ForField(child, rp, "severity", [&](const Value& f, const std::string& fp) {
      std::string text;
      Severity severity = Severity::kError;
      if (!d.ReadString(f, fp, &text)) return;
      if (ParseSeverity(text, &severity))
        s.severity = severity;
      else
        d.Fail(f, fp, "unknown severity \"" + text + "\" (expected info, warning or error)");
    });
    if (d.failed()) return false;
    if (!FindRule(rule)) {
      std::string names;
      for (const Rule* r : AllRules()) names += std::string(names.empty() ? "" : ", ") + r->info.name;
      return d.Fail(child, rp, "unknown rule \"" + rule + "\" (rules: " + names + ")");
    }
    p->rules[rule] = s;
  }
  return true;
}

bool ReadMutations(PolicyDecoder& d, const Value& v, const std::string& path, Policy* p) {
  if (!d.ExpectFields(v, path, {"vram", "headroom", "hideGpus", "headroomAnnotation"}))
    return false;
  ForField(v, path, "vram",
           [&](const Value& f, const std::string& fp) { d.ReadBool(f, fp, &p->mutations.vram); });
  ForField(v, path, "headroom", [&](const Value& f, const std::string& fp) {
    d.ReadBool(f, fp, &p->mutations.headroom);
  });
  ForField(v, path, "hideGpus", [&](const Value& f, const std::string& fp) {
    d.ReadBool(f, fp, &p->mutations.hide_gpus);
  });
  ForField(v, path, "headroomAnnotation", [&](const Value& f, const std::string& fp) {
    d.ReadNonEmptyString(f, fp, &p->headroom_annotation);
  });
  return !d.failed();
}

bool ReadExemptions(PolicyDecoder& d, const Value& v, const std::string& path, Policy* p) {
  if (!d.ExpectFields(v, path, {"namespaces", "ignoreAnnotationPrefix"})) return false;
  ForField(v, path, "namespaces", [&](const Value& f, const std::string& fp) {
    d.ReadStringList(f, fp, &p->exempt_namespaces);
  });
  ForField(v, path, "ignoreAnnotationPrefix", [&](const Value& f, const std::string& fp) {
    d.ReadNonEmptyString(f, fp, &p->ignore_annotation_prefix);
  });
  return !d.failed();
}

// "spec.tasks.*.template": dotted names, "*" for any key or item; "" is the
// object itself.
bool ReadTemplatePaths(PolicyDecoder& d, const Value& v, const std::string& path,
                       std::vector<std::string>* out) {
  if (!d.ExpectSequence(v, path)) return false;
  for (size_t i = 0; i < v.items().size(); ++i) {
    std::string t;
    if (!d.ReadString(v.items()[i], Index(path, i), &t)) return false;
    bool bad =
        !t.empty() && (t.front() == '.' || t.back() == '.' || t.find("..") != std::string::npos);
    if (bad)
      return d.Fail(v.items()[i], Index(path, i),
                    "invalid path \"" + t +
                        "\": expected dotted field names such as "
                        "spec.template (\"*\" for every key or item, \"\" for the object itself)");
    out->push_back(std::move(t));
  }
  return true;
}

bool ReadWorkloads(PolicyDecoder& d, const Value& v, const std::string& path, Policy* p) {
  if (!d.ExpectSequence(v, path)) return false;
  std::set<std::pair<std::string, std::string>> seen;
  for (size_t i = 0; i < v.items().size(); ++i) {
    const Value& item = v.items()[i];
    std::string ip = Index(path, i);
    if (!d.ExpectFields(item, ip, {"group", "kind", "templates", "podSpecs", "containers", "containerLists",
                                        "containerResources"})) return false;
    WorkloadKind w;
    const Value* kind = item.Find("kind");
    if (!kind) return d.Fail(item, ip, "missing required field \"kind\"");
    d.ReadNonEmptyString(*kind, ip + ".kind", &w.kind);
    ForField(item, ip, "group",
             [&](const Value& f, const std::string& fp) { d.ReadString(f, fp, &w.group); });
    ForField(item, ip, "templates", [&](const Value& f, const std::string& fp) {
      ReadTemplatePaths(d, f, fp, &w.templates);
    });
    ForField(item, ip, "podSpecs", [&](const Value& f, const std::string& fp) {
      ReadTemplatePaths(d, f, fp, &w.pod_specs);
    });
    ForField(item, ip, "containers", [&](const Value& f, const std::string& fp) {
      ReadTemplatePaths(d, f, fp, &w.containers);
    });
    ForField(item, ip, "containerLists", [&](const Value& f, const std::string& fp) {
      ReadTemplatePaths(d, f, fp, &w.container_lists);
    });
    ForField(item, ip, "containerResources", [&](const Value& f, const std::string& fp) {
      d.ReadNonEmptyString(f, fp, &w.container_resources);
    });
    if (d.failed()) return false;
    if (!seen.insert({w.group, w.kind}).second)
      return d.Fail(item, ip,
                    "duplicate entry for kind " + w.kind + " in group \"" + w.group + "\"");
    auto same = [&](const WorkloadKind& o) { return o.group == w.group && o.kind == w.kind; };
    auto it = std::find_if(p->workloads.begin(), p->workloads.end(), same);
    if (it != p->workloads.end())
      *it = std::move(w);
    else
      p->workloads.push_back(std::move(w));
  }
  return true;
}

bool ReadGpuResources(PolicyDecoder& d, const Value& v, const std::string& path, Policy* p) {
  if (d.ReadStringList(v, path, &p->gpu_resources) && p->gpu_resources.empty())
    d.Fail(v, path, "must name at least one resource, e.g. nvidia.com/gpu");
  return !d.failed();
}

using SectionReader = bool (*)(PolicyDecoder&, const Value&, const std::string&, Policy*);

struct Section {
  std::string_view name;
  SectionReader read;
};

constexpr Section kSections[] = {
    {"vram", ReadVram},           {"gpuResources", ReadGpuResources}, {"reserved", ReadReserved},
    {"gpuNodes", ReadGpuNodes},   {"otherGpuAssignments", ReadOtherGpuAssignments},   {"nodeClasses", ReadNodeClasses},   {"rules", ReadRules},
    {"mutations", ReadMutations}, {"exemptions", ReadExemptions},     {"workloads", ReadWorkloads},
};

// Sections are read in the order they are written, so the first error
// reported is the first one in the file. gpuResources goes first whatever its
// place: a node class's GPU count may come from it.
bool ReadSpec(PolicyDecoder& d, const Value& spec, Policy* p) {
  const std::string path = "spec";
  if (!d.ExpectFields(spec, path,
                      {"vram", "gpuResources", "reserved", "gpuNodes", "otherGpuAssignments",
                       "nodeClasses", "rules",
                       "mutations", "exemptions", "workloads"}))
    return false;
  if (const Value* v = spec.Find("gpuResources");
      v && !ReadGpuResources(d, *v, "spec.gpuResources", p))
    return false;
  for (const auto& [key, value] : spec.members()) {
    if (key == "gpuResources") continue;
    for (const Section& section : kSections)
      if (section.name == key && !section.read(d, value, JoinPath(path, key), p)) return false;
  }
  return true;
}

bool ExpectExactly(PolicyDecoder& d, const Value& doc, std::string_view key,
                   std::string_view expected) {
  const Value* v = doc.Find(key);
  if (!v)
    return d.Fail(doc, "",
                  "missing required field \"" + std::string(key) + "\" (" + std::string(key) +
                      ": " + std::string(expected) + ")");
  std::string text;
  if (!d.ReadString(*v, key, &text)) return false;
  if (text != expected)
    return d.Fail(*v, key, "expected \"" + std::string(expected) + "\", got \"" + text + "\"");
  return true;
}

// Layers one policy document onto *p.
bool ApplyDocument(PolicyDecoder& d, const Value& doc, Policy* p) {
  if (!doc.is_mapping())
    return d.Fail(doc, "",
                  doc.is_null() ? "the policy is empty"
                                : "a policy must be a mapping with apiVersion, kind "
                                  "and spec");
  if (!d.ExpectFields(doc, "", {"apiVersion", "kind", "metadata", "spec"})) return false;
  if (!ExpectExactly(d, doc, "apiVersion", kApiVersion) || !ExpectExactly(d, doc, "kind", kKind))
    return false;
  ForField(doc, "", "metadata", [&](const Value& f, const std::string& fp) {
    if (!d.ExpectFields(f, fp, {"name", "labels", "annotations"})) return;
    ForField(f, fp, "name",
             [&](const Value& n, const std::string& np) { d.ReadString(n, np, &p->name); });
    std::map<std::string, std::string> ignored;
    ForField(f, fp, "labels",
             [&](const Value& n, const std::string& np) { d.ReadStringMap(n, np, &ignored); });
    ForField(f, fp, "annotations",
             [&](const Value& n, const std::string& np) { d.ReadStringMap(n, np, &ignored); });
  });
  if (d.failed()) return false;
  if (const Value* spec = doc.Find("spec")) return ReadSpec(d, *spec, p);
  return true;
}

// The one document of a policy stream; empty documents (a trailing "---")
// are skipped.
bool SingleDocument(std::vector<Document>* docs, const std::string& name, Value* out,
                    Error* error) {
  Document* found = nullptr;
  for (Document& doc : *docs) {
    if (!doc.ok) {
      if (error) *error = doc.error;
      return false;
    }
    if (doc.root.is_null()) continue;
    if (found) {
      if (error)
        *error = Error{name, doc.start, "a policy is one YAML document; found a second one here"};
      return false;
    }
    found = &doc;
  }
  if (!found) {
    if (error)
      *error = Error{name,
                     {},
                     "the policy is empty: expected one document with apiVersion: " +
                         std::string(kApiVersion) + " and kind: Policy"};
    return false;
  }
  *out = std::move(found->root);
  return true;
}

DocumentSink Collect(std::vector<Document>* docs) {
  return [docs](Document&& doc) {
    docs->push_back(std::move(doc));
    return docs->size() < 3;  // a second non-empty document is already an error
  };
}

const Value& DefaultPolicyDocument() {
  static const Value* doc = [] {
    auto* v = new Value();
    std::vector<Document> docs;
    Error error;
    if (!LoadYamlString(DefaultPolicyText(), "<default policy>", LoadLimits{}, Collect(&docs),
                        &error) ||
        !SingleDocument(&docs, "<default policy>", v, &error))
      *v = Value();  // DefaultPolicy() reports it; tests keep it from happening
    return v;
  }();
  return *doc;
}

}  // namespace

bool LoadPolicy(const Value& doc, const std::string& file, Policy* out, Error* error) {
  Policy p;
  PolicyDecoder defaults("<default policy>", error);
  if (!ApplyDocument(defaults, DefaultPolicyDocument(), &p)) return false;
  PolicyDecoder d(file, error);
  if (!ApplyDocument(d, doc, &p)) return false;
  *out = std::move(p);
  return true;
}

bool LoadPolicyText(std::string_view text, const std::string& name, Policy* out, Error* error) {
  std::vector<Document> docs;
  Value root;
  if (!LoadYamlString(text, name, LoadLimits{}, Collect(&docs), error) ||
      !SingleDocument(&docs, name, &root, error))
    return false;
  return LoadPolicy(root, name, out, error);
}

bool LoadPolicyFile(const std::string& path, Policy* out, Error* error) {
  std::vector<Document> docs;
  Value root;
  if (!LoadInput(InputFile{path}, LoadLimits{}, Collect(&docs), error) ||
      !SingleDocument(&docs, path, &root, error))
    return false;
  return LoadPolicy(root, path, out, error);
}

}  // namespace gpulint
