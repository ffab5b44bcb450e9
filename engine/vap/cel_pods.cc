#include "engine/vap/cel_pods.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "engine/vap/cel_facts.h"
#include "engine/vap/cel_paths.h"
#include "engine/vap/cel_quantity.h"
#include "engine/vap/cel_text.h"

namespace gpulint::cel {
namespace {

// The workload table's entries, each a shape: the kinds whose entries say the
// same share one. `by_kind` maps "group/kind" ("*/Workflow" for any group) to
// its shape, as FindWorkload picks: the first entry of the object's group,
// else the first of group "*".
struct Shapes {
  std::vector<const WorkloadKind*> shapes;
  std::map<std::string, size_t> by_kind;
};

Shapes ShapesOf(const Policy& policy) {
  Shapes out;
  using Key = std::tuple<std::vector<std::string>, std::vector<std::string>,
                         std::vector<std::string>, std::vector<std::string>, std::string, bool>;
  std::map<Key, size_t> index;
  for (const WorkloadKind& w : policy.workloads) {
    std::string name = w.group + "/" + w.kind;
    if (out.by_kind.count(name)) continue;
    Key key{w.templates,       w.pod_specs,           w.containers,
            w.container_lists, w.container_resources, w.partial};
    auto [it, added] = index.emplace(key, out.shapes.size());
    if (added) out.shapes.push_back(&w);
    out.by_kind[name] = it->second;
  }
  return out;
}

// Whether a `containers` pattern lies in a pod of the kind's templates or
// podSpecs whatever the object holds: a pattern of such a pod is a prefix of
// it ("*" matching "*").
bool SurelyEnclosed(const Segments& c, const std::vector<Segments>& pod_patterns) {
  for (const Segments& p : pod_patterns) {
    if (p.size() > c.size()) continue;
    bool prefix = true;
    for (size_t i = 0; i < p.size() && prefix; ++i)
      prefix = p[i] == c[i] || (IsWild(p[i]) && IsWild(c[i]));
    if (prefix) return true;
  }
  return false;
}

// Whether a pattern may reach below `dir`.
bool MayBeUnder(const Segments& c, const Segments& dir) {
  if (dir.size() > c.size()) return false;
  for (size_t i = 0; i < dir.size(); ++i)
    if (dir[i] != c[i] && !IsWild(dir[i]) && !IsWild(c[i])) return false;
  return true;
}

// ExtractPods lets a container that no pod of the kind's holds make a pod of
// its own, which later containers may join, in the order they are met. CEL
// follows that where it is simple: such a container's path has no wildcard
// and no other container path of the kind may lie beside it.
bool CheckKind(const WorkloadKind& kind, std::string* error) {
  const std::string where =
      "workloads entry {group: \"" + kind.group + "\", kind: " + kind.kind + "}";
  std::vector<Segments> pods;
  for (const std::string& t : kind.templates) {
    pods.push_back(Split(t));
    pods.back().push_back("spec");
  }
  for (const std::string& s : kind.pod_specs) pods.push_back(Split(s));
  for (const std::string& l : kind.container_lists) {
    if (!SurelyEnclosed(Split(l), pods)) {
      *error = where + ": containerLists path \"" + l +
               "\" lies in none of the kind's templates or podSpecs; its containers would make "
               "a pod of their own, which the exported policy cannot follow";
      return false;
    }
  }
  for (const std::string& c : kind.containers) {
    Segments segs = Split(c);
    if (SurelyEnclosed(segs, pods)) continue;
    Segments parent = Slice(segs, 0, segs.empty() ? 0 : segs.size() - 1);
    bool alone = Wildcards(segs) == 0 && !segs.empty();
    for (const std::string& other : kind.containers)
      alone = alone && (other == c || !MayBeUnder(Split(other), parent));
    for (const std::string& other : kind.container_lists)
      alone = alone && !MayBeUnder(Split(other), parent);
    if (!alone) {
      *error = where + ": containers path \"" + c +
               "\" lies in none of the kind's templates or podSpecs, and its pod could hold "
               "other containers of the kind; the exported policy follows such a container only "
               "when its path has no \"*\" and no other container path is beside it";
      return false;
    }
  }
  return true;
}

// A shape as CEL data: {paths, res, partial}, each path a list of its
// segments after a tag: 't' for a template, 's' a podSpec, 'c' a container
// (a `containers` path, or a `containerLists` path's items), in that order.
std::string ShapeData(const WorkloadKind& w) {
  std::vector<std::string> paths;
  auto add = [&](const std::vector<std::string>& list, const char* tag, const char* tail) {
    for (const std::string& path : list) {
      Segments segs = Split(path);
      segs.insert(segs.begin(), tag);
      if (*tail) segs.push_back(tail);
      paths.push_back(StrList(segs));
    }
  };
  add(w.templates, "t", "");
  add(w.pod_specs, "s", "");
  add(w.containers, "c", "");
  add(w.container_lists, "c", "#");
  std::string list;
  for (const std::string& path : paths) list += (list.empty() ? "" : ", ") + path;
  return "{'paths': dyn([" + list + "]), 'res': dyn(" + Str(w.container_resources) +
         "), 'partial': dyn(" + (w.partial ? "true" : "false") + ")}";
}

// One step of a path: from {k, v, p, h, hp} (the path's tag, a value, its
// path, its holder and the holder's path) to the values at `seg` below it
// (ForEachAtPath, with ForEachWithHolder's holder).
std::string Step(const std::string& x, const std::string& seg, Names* names) {
  std::string k = names->Next("k"), w = names->Next("w");
  auto item = [&](const std::string& value, const std::string& path) {
    return "{'k': " + x + ".k, 'v': dyn(" + value + "), 'p': dyn(" + path + "), 'h': dyn(" + x +
           ".v), 'hp': dyn(" + x + ".p)}";
  };
  std::string v = x + ".v";
  return Fill(
      "($seg == '*' || $seg == '#' ? (type($v) == list ? $v.transformList($k, $w, $item) : "
      "$seg == '*' && type($v) == map ? $v.map($k, $k).sort().map($k, $mapitem) : []) : "
      "type($v) == map && $seg in $v ? [$field] : [])",
      {{"seg", seg},
       {"v", v},
       {"k", k},
       {"w", w},
       {"item", item(w, PathExpr(x + ".p").Index(k).Cel())},
       {"mapitem", item(v + "[" + k + "]", PathExpr(x + ".p").KeyExpr(k).Cel())},
       {"field", item(v + "[" + seg + "]", PathExpr(x + ".p").KeyExpr(seg).Cel())}});
}

// The values at each path of variables.w below the object, path by path:
// each {k, v, p, h, hp}. `depth` is the longest path's length: CEL has no
// loop, so the steps are written out.
std::string WalkPaths(size_t depth, Names* names) {
  std::string s = names->Next("s");
  std::string level =
      "[{'k': " + s + "[0], 'v': dyn(object), 'p': dyn(''), 'h': dyn(null), 'hp': dyn('')}]";
  for (size_t i = 1; i <= depth; ++i) {
    std::string l = names->Next("l"), x = names->Next("x");
    std::string seg = s + "[" + std::to_string(i) + "]";
    level = Let(l, level,
                "size(" + s + ") > " + std::to_string(i) + " ? " + l + ".map(" + x + ", " +
                    Step(x, seg, names) + ").flatten() : " + l);
  }
  return "variables.w.paths.map(" + s + ", " + level + ").flatten()";
}

// Whether a pod at `pod_path` holds what is at `path` (PodOf's enclosure, on
// dotted paths: a key with '.' or '[' in it is bracketed, so a boundary is
// '.' or '[').
std::string Encloses(std::string_view pod_path, std::string_view path) {
  return Fill("($o == '' || $p == $o || $p.startsWith($o + '.') || $p.startsWith($o + '['))",
              {{"o", std::string(pod_path)}, {"p", std::string(path)}});
}

std::string Found(const std::string& c, const std::string& path) {
  return "{'c': dyn(" + c + "), 'path': dyn(" + path + ")}";
}

// A raw pod: {path, meta, own (its metadata is the object's), spec, podLevel
// (spec.resources read), partial, found (containers found for it by the
// kind's `containers` and `containerLists` paths)}.
std::string RawPod(const std::string& path, const std::string& meta, const std::string& own,
                   const std::string& spec, const std::string& pod_level,
                   const std::string& found) {
  return "{'path': dyn(" + path + "), 'meta': dyn(" + meta + "), 'own': dyn(" + own +
         "), 'spec': dyn(" + spec + "), 'podLevel': dyn(" + pod_level +
         "), 'partial': variables.w.partial, 'found': dyn(" + found + ")}";
}

// The list `list` without a second entry of a path (a node reached twice).
std::string Unique(const std::string& list, Names* names) {
  std::string l = names->Next("l"), i = names->Next("i"), e = names->Next("e");
  std::string j = names->Next("j"), d = names->Next("d");
  return Let(l, list,
             Fill("$l.transformList($i, $e, !$l.exists($j, $d, $j < $i && $d.path == $e.path), $e)",
                  {{"l", l}, {"i", i}, {"e", e}, {"j", j}, {"d", d}}));
}

// ExtractPods, on variables.w: the pods of the templates and podSpecs, each
// once, with the containers found in them (the deepest pod holding one takes
// it); then a pod for each container no pod holds.
std::string RawPods(Names* names) {
  std::string x = names->Next("x"), y = names->Next("y"), base = names->Next("base");
  std::string cm = names->Next("cm"), p = names->Next("p"), o = names->Next("o");
  std::string z = names->Next("z"), k = names->Next("k");
  std::string tv = x + ".v";
  std::string templates = "variables.walked.filter(" + x + ", " + x + ".k == 't' && " +
                          HasField(tv, "spec") + " && type(" + Field(tv, "spec") +
                          ") == map).map(" + x + ", " +
                          RawPod(PathExpr(x + ".p").Child("spec").Cel(),
                                 "'metadata' in " + tv + " && type(" + Field(tv, "metadata") +
                                     ") == map ? " + Field(tv, "metadata") + " : {}",
                                 x + ".p == ''", Field(tv, "spec"), "true", "[]") +
                          ")";
  std::string pod_specs = "variables.walked.filter(" + y + ", " + y + ".k == 's' && type(" + y +
                          ".v) == map).map(" + y + ", " +
                          RawPod(y + ".p", "{}", "false", y + ".v", "true", "[]") + ")";
  std::string mine = cm + ".filter(" + z + ", " + Encloses(p + ".path", z + ".p") + " && !" + base +
                     ".exists(" + o + ", size(" + o + ".path) > size(" + p + ".path) && " +
                     Encloses(o + ".path", z + ".p") + ")).map(" + z + ", " +
                     Found(z + ".v", z + ".p") + ")";
  // PodOf: placed by the container itself when it says where it runs, else
  // by the mapping that holds it.
  std::string placed = "['nodeName', 'nodeSelector', 'affinity', 'tolerations'].exists(" + k +
                       ", " + k + " in " + z + ".v)";
  std::string own = cm + ".filter(" + z + ", !" + base + ".exists(" + o + ", " +
                    Encloses(o + ".path", z + ".p") + ")).map(" + z + ", " +
                    RawPod("(" + placed + " ? " + z + ".p : " + z + ".hp)", "{}", "false",
                           "(" + placed + " ? " + z + ".v : " + z + ".h)", "false",
                           "[" + Found(z + ".v", z + ".p") + "]") +
                    ")";
  return Let(
      base, Unique(templates + " + " + pod_specs, names),
      Let(cm, "variables.walked.filter(" + z + ", " + z + ".k == 'c' && type(" + z + ".v) == map)",
          base + ".map(" + p + ", " +
              RawPod(p + ".path", p + ".meta", p + ".own", p + ".spec", p + ".podLevel", mine) +
              ") + " + own));
}

// A container record {c, path, role, name, image, res, resPath} of a node
// `c` at `path` (ReadContainer): `resources` names the field holding its
// requests and limits; `name_from_path` is for one found by a path, which
// AddContainer names by its field when it has no name.
std::string Container(const std::string& c, const std::string& path, const std::string& role,
                      const std::string& resources, bool name_from_path) {
  std::string name = StringAt(c, "name");
  if (name_from_path)
    name =
        Fill("($n != '' ? $n : $p.substring([$p.lastIndexOf('.'), $p.lastIndexOf('[')].max() + 1))",
             {{"n", name}, {"p", path}});
  std::string image = Field(c, "image");
  std::string image_text = Fill(
      "('image' in $c ? (type($i) == string ? $i : type($i) == map ? $repo + ($tag != '' ? ':' + "
      "$tag : '') : '') : '')",
      {{"c", c},
       {"i", image},
       {"repo", StringAt(image, "repository")},
       {"tag", StringAt(image, "tag")}});
  return "{'c': dyn(" + c + "), 'path': dyn(" + path + "), 'role': dyn(" + role +
         "), 'name': dyn(" + name + "), 'image': dyn(" + image_text + "), 'res': dyn(" + resources +
         "), 'resPath': dyn(" +
         (resources == "'resources'" ? PathExpr(path).Key("resources")
                                     : PathExpr(path).KeyExpr(resources))
             .Cel() +
         ")}";
}

// A raw pod with its containers read (ReadContainers: the spec's init
// containers, sidecars when restartPolicy is Always, then its containers;
// then those found for it), each once.
std::string ReadPod(const std::string& p, Names* names) {
  std::string x = names->Next("x"), y = names->Next("y"), f = names->Next("f");
  std::string spec = p + ".spec";
  std::string init_role =
      "(" + StringAt(x + ".v", "restartPolicy") + " == 'Always' ? 'sidecar' : 'initContainer')";
  // In statements of their own: the names they take are drawn in order.
  std::string init = Expand(spec, PathExpr(p + ".path"), {"initContainers", "*"}, names);
  std::string apps = Expand(spec, PathExpr(p + ".path"), {"containers", "*"}, names);
  std::string containers =
      init + ".filter(" + x + ", type(" + x + ".v) == map).map(" + x + ", " +
      Container(x + ".v", x + ".p", init_role, "'resources'", false) + ") + " + apps + ".filter(" +
      y + ", type(" + y + ".v) == map).map(" + y + ", " +
      Container(y + ".v", y + ".p", "'container'", "'resources'", false) + ") + " + p +
      ".found.map(" + f + ", " +
      Container(f + ".c", f + ".path", "'container'", "variables.w.res", true) + ")";
  // A node is reached twice only through a path of the kind's own.
  std::string l = names->Next("l");
  return "{'path': " + p + ".path, 'meta': " + p + ".meta, 'own': " + p + ".own, 'spec': " + spec +
         ", 'podLevel': " + p + ".podLevel, 'partial': " + p + ".partial, 'containers': dyn(" +
         Let(l, containers, "size(" + p + ".found) == 0 ? " + l + " : " + Unique(l, names)) + ")}";
}

std::string KindMap(const Shapes& shapes, bool any_group) {
  std::string out;
  for (const auto& [name, shape] : shapes.by_kind) {
    if ((name.rfind("*/", 0) == 0) != any_group) continue;
    out += (out.empty() ? "" : ", ") + Str(name) + ": " + std::to_string(shape);
  }
  return "{" + out + "}";
}

constexpr std::string_view kGroup =
    "(object.apiVersion.contains('/') ? object.apiVersion.substring(0, "
    "object.apiVersion.indexOf('/')) : '')";

}  // namespace

bool PodVariables(const Policy& policy, std::vector<Variable>* variables, std::string* kinds,
                  std::string* error) {
  Names names;
  Shapes shapes = ShapesOf(policy);
  // Only the entry of the object's kind is made, on each request.
  std::string data;
  size_t depth = 1;
  for (size_t i = 0; i < shapes.shapes.size(); ++i) {
    const WorkloadKind* w = shapes.shapes[i];
    if (!CheckKind(*w, error)) return false;
    data += "variables.shape == " + std::to_string(i) + " ? " + ShapeData(*w) + " :\n";
    for (const auto* paths : {&w->templates, &w->pod_specs, &w->containers, &w->container_lists})
      for (const std::string& path : *paths)
        depth = std::max(depth, Split(path).size() + (paths == &w->container_lists ? 1 : 0));
  }
  std::string exact = KindMap(shapes, false), any = KindMap(shapes, true);
  std::string owners = Field(Field("object", "metadata"), "ownerReferences");
  std::string o = names.Next("o"), p = names.Next("p"), a = names.Next("a");
  std::string r = names.Next("r"), q = names.Next("q");
  auto annotations = [](const std::string& meta) {
    return "dyn(" + HasField(meta, "annotations") + " && type(" + Field(meta, "annotations") +
           ") == map ? " + Field(meta, "annotations") + " : {})";
  };
  *variables = QuantityConstants();
  std::vector<Variable> pods = {
      {"group", std::string(kGroup)},
      {"gpus", StrList(policy.gpu_resources)},
      {"shape", exact + "[?(variables.group + '/' + object.kind)].orValue(" + any +
                    "[?('*/' + object.kind)].orValue(-1))"},
      // The entry of the object's kind, as data.
      {"w", data + "{'paths': dyn([]), 'res': dyn('resources'), 'partial': dyn(false)}"},
      {"ds", "object.kind == 'DaemonSet' || (object.kind == 'Pod' && " +
                 HasField("object", "metadata") + " && " +
                 HasField(Field("object", "metadata"), "ownerReferences") + " && type(" + owners +
                 ") == list && " + owners + ".exists(" + o + ", type(" + o + ") == map && " +
                 StringAt(o, "kind") + " == 'DaemonSet'))"},
      {"walked", WalkPaths(depth, &names)},
      {"pods0", RawPods(&names)},
      // DropEmptyPods: a pod with no container whose spec names none is not one.
      {"pods1", "variables.pods0.map(" + r + ", " + ReadPod(r, &names) + ").filter(" + q +
                    ", size(" + q + ".containers) > 0 || 'containers' in " + q + ".spec)"},
  };
  variables->insert(variables->end(), pods.begin(), pods.end());
  for (Variable& v : FactVariables(policy, &names)) variables->push_back(std::move(v));
  variables->push_back({"annotations", "[" + HasField("object", "metadata") + " ? " +
                                           annotations(Field("object", "metadata")) +
                                           " : dyn({})] + variables.pods.map(" + a + ", " +
                                           annotations(a + ".meta") + ")"});
  *kinds = "(" + std::string(kGroup) + " + '/' + object.kind) in " + exact +
           " || ('*/' + object.kind) in " + any;
  return true;
}

}  // namespace gpulint::cel
