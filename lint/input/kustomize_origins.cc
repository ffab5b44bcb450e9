#include "lint/input/kustomize_origins.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <system_error>
#include <utility>

#include "engine/base/objects.h"
#include "lint/input/inputs.h"
#include "lint/input/scratch_dir.h"

namespace gpulint {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kOriginAnnotation = "config.kubernetes.io/origin";

// What tells two renders' documents apart.
struct Identity {
  std::string kind, ns, name;
  bool operator==(const Identity& o) const {
    return kind == o.kind && ns == o.ns && name == o.name;
  }
};

Identity IdentityOf(const Value& doc) {
  const Value* meta = doc.Find("metadata");
  return {std::string(doc.StringAt("kind")),
          std::string(meta ? meta->StringAt("namespace") : std::string_view()),
          std::string(meta ? meta->StringAt("name") : std::string_view())};
}

// Every document of `text`, in order (null roots included, counted as kustomize
// never prints an empty one).
std::vector<Value> Documents(std::string_view text) {
  std::vector<Value> out;
  Error error;
  LoadYamlString(
      text, "<kustomize>", LoadLimits{},
      [&](Document&& doc) {
        if (doc.ok && doc.root.is_null()) return true;
        out.push_back(std::move(doc.root));
        return true;
      },
      &error);
  return out;
}

// One step from a node to a child: a key, or an item, known by its `name`
// when it is a mapping that has one (a patch may add containers before it).
struct Step {
  std::string key;
  size_t index = 0;
  std::optional<std::string> name;
  bool is_item = false;
};

// The steps from `node` to the node marked `mark`; false when none is.
bool PathTo(const Value& node, Mark mark, std::vector<Step>* steps) {
  if (node.mark().line == mark.line && node.mark().column == mark.column) return true;
  if (node.is_mapping()) {
    for (const Value::Member& m : node.members()) {
      steps->push_back({m.first, 0, std::nullopt, false});
      if (PathTo(m.second, mark, steps)) return true;
      steps->pop_back();
    }
  } else if (node.is_sequence()) {
    for (size_t i = 0; i < node.items().size(); ++i) {
      const Value& item = node.items()[i];
      Step step{"", i, std::nullopt, true};
      if (const Value* name = item.Find("name"); name && name->is_scalar()) step.name = name->text();
      steps->push_back(std::move(step));
      if (PathTo(item, mark, steps)) return true;
      steps->pop_back();
    }
  }
  return false;
}

const Value* Walk(const Value& from, const std::vector<Step>& steps) {
  const Value* at = &from;
  for (const Step& step : steps) {
    if (!step.is_item) {
      at = at->Find(step.key);
    } else if (!at->is_sequence()) {
      at = nullptr;
    } else if (step.name) {
      const Value* found = nullptr;
      for (const Value& item : at->items())
        if (const Value* name = item.Find("name"); name && name->text() == *step.name) found = &item;
      at = found;
    } else {
      at = step.index < at->items().size() ? &at->items()[step.index] : nullptr;
    }
    if (at == nullptr) return nullptr;
  }
  return at;
}

// Whether `source` is what kustomize wrote at `out`: the same scalar text, or
// a mapping or list there too.
bool Same(const Value& source, const Value& out) {
  if (out.is_scalar()) return source.is_scalar() && source.text() == out.text();
  return source.type() == out.type();
}

std::string Shown(const fs::path& real, const fs::path& cwd, bool relative) {
  if (!relative) return real.generic_string();
  fs::path rel = real.lexically_relative(cwd);
  return rel.empty() ? real.generic_string() : rel.generic_string();
}

}  // namespace

struct KustomizedDocument::Kustomization {
  std::string dir;   // as given
  std::string file;  // its kustomization file, as shown
  std::vector<std::string> argv;  // the first render's, the directory last
  std::string what;               // "kubectl kustomize"
  ToolLimits limits;
  std::string output;  // the first render's

  // Where each document came from, by index: a resource file or the
  // kustomization that generated it, as shown; both empty when unknown.
  struct Origin {
    std::string path;
    std::string configured_in;
  };
  std::optional<std::vector<Origin>> origins;
  std::map<std::string, std::vector<Value>> sources;  // a resource file's objects

  const Origin* OriginOf(size_t index) {
    if (!origins) origins = FindOrigins();
    return index < origins->size() ? &(*origins)[index] : nullptr;
  }

  std::vector<Origin> FindOrigins() const {
    std::error_code ec;
    ScratchDir scratch;
    if (scratch.path().empty()) return {};
    fs::path real_scratch = fs::canonical(scratch.path(), ec);
    fs::path target = fs::canonical(dir, ec);
    if (ec) return {};
    {
      std::ofstream wrapper(real_scratch / "kustomization.yaml");
      wrapper << "resources:\n- " << target.lexically_relative(real_scratch).generic_string()
              << "\nbuildMetadata: [originAnnotations]\n";
      if (!wrapper) return {};
    }
    std::vector<std::string> second = argv;
    second.back() = real_scratch.string();
    ToolRun run;
    std::string start_error;
    if (!RunTool(second, limits, &run, &start_error) || !run.ok()) return {};
    std::vector<Value> first_docs = Documents(output), second_docs = Documents(run.out);
    if (first_docs.size() != second_docs.size()) return {};
    bool relative = fs::path(dir).is_relative();
    fs::path cwd = fs::canonical(fs::current_path(ec), ec);
    std::vector<Origin> out(first_docs.size());
    for (size_t i = 0; i < first_docs.size(); ++i) {
      if (!(IdentityOf(first_docs[i]) == IdentityOf(second_docs[i]))) return {};
      const Value* meta = second_docs[i].Find("metadata");
      const Value* annotations = meta ? meta->Find("annotations") : nullptr;
      std::string_view text = annotations ? annotations->StringAt(kOriginAnnotation) : "";
      std::vector<Value> origin = Documents(text);
      if (origin.empty() || !origin[0].is_mapping()) continue;
      // A remote resource (repo:) is in no file here.
      if (origin[0].Find("repo")) continue;
      for (auto [key, field] : {std::pair{"path", &Origin::path},
                                std::pair{"configuredIn", &Origin::configured_in}}) {
        std::string_view written = origin[0].StringAt(key);
        if (written.empty()) continue;
        fs::path real = (real_scratch / fs::path(written)).lexically_normal();
        if (fs::is_regular_file(real, ec)) out[i].*field = Shown(real, cwd, relative);
      }
    }
    return out;
  }

  // The object of `file` that kustomize turned into `out`: of its kind, the
  // longest name that the output's holds (a prefix or suffix adds to it).
  const Value* SourceObject(const std::string& file, const Value& out) {
    auto [it, inserted] = sources.try_emplace(file);
    std::vector<Value>& objects = it->second;
    if (inserted) {
      Error error;
      LoadYamlFile(
          file, LoadLimits{},
          [&](Document&& doc) {
            if (doc.ok && doc.root.is_mapping())
              ForEachObject(doc.root, [&](const Value& o) { objects.push_back(o); });
            return true;
          },
          &error);
    }
    Identity want = IdentityOf(out);
    const Value* best = nullptr;
    size_t best_length = 0;
    for (const Value& candidate : it->second) {
      Identity have = IdentityOf(candidate);
      if (have.kind != want.kind || want.name.find(have.name) == std::string::npos) continue;
      if (best == nullptr || have.name.size() > best_length) {
        best = &candidate;
        best_length = have.name.size();
      }
    }
    return best;
  }
};

void KustomizedDocument::Place(const Value& doc, std::string* file, Mark* mark,
                               std::string* message) const {
  Kustomization& k = *kustomization_;
  const Kustomization::Origin* origin = k.OriginOf(index_);
  std::string from;  // the resource file, when the value is not its own
  if (origin && !origin->path.empty()) {
    std::vector<Step> steps;
    const Value* source = k.SourceObject(origin->path, doc);
    const Value* out = nullptr;
    if (source && mark->line > 0 && PathTo(doc, *mark, &steps)) out = Walk(doc, steps);
    const Value* at = out ? Walk(*source, steps) : nullptr;
    if (at && Same(*at, *out) && at->mark().line > 0) {
      *file = origin->path;
      *mark = at->mark();
      return;
    }
    from = origin->path;
  }
  Mark in_output = *mark;
  *file = origin && !origin->configured_in.empty() ? origin->configured_in : k.file;
  *mark = Mark();
  if (in_output.line == 0) return;
  std::string where = "line " + std::to_string(in_output.line) + " of " + k.what + "'s output";
  if (!from.empty()) where += ", from " + from;
  *message = where + ": " + *message;
}

bool LoadKustomizeOutput(std::string output, const std::string& dir,
                         std::vector<std::string> argv, const std::string& what,
                         const ToolLimits& tool_limits, const LoadLimits& limits,
                         const SourceSink& sink, Error* error) {
  auto k = std::make_shared<KustomizedDocument::Kustomization>();
  k->dir = dir;
  k->file = KustomizationFile(dir);
  k->argv = std::move(argv);
  k->what = what;
  k->limits = tool_limits;
  k->output = std::move(output);
  size_t index = 0;
  return LoadYamlString(
      k->output, k->file, limits,
      [&](Document&& doc) {
        if (doc.ok && doc.root.is_null()) return sink(std::move(doc), nullptr);
        KustomizedDocument origin(k, index++);
        return sink(std::move(doc), &origin);
      },
      error);
}

}  // namespace gpulint
