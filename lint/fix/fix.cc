#include "lint/fix/fix.h"

#include <algorithm>
#include <utility>

#include "engine/base/objects.h"
#include "engine/base/path.h"
#include "engine/engine.h"
#include "engine/mutate/mutate.h"
#include "engine/yaml/loader.h"
#include "engine/yaml_edit/yaml_edit.h"
#include "lint/fix/repair.h"
#include "lint/fix/unit_fix.h"

namespace gpulint {
namespace {

// A JSON pointer as the dotted path findings show, and the deepest value on it
// that exists (whose position a change is reported at).
struct Located {
  std::string path;
  const Value* value = nullptr;
};

Located Locate(const Value& root, std::string_view pointer) {
  Located out{"", &root};
  std::vector<std::string> segments;
  SplitPointer(pointer, &segments);  // the engine's own ops
  const Value* at = &root;
  for (const std::string& segment : segments) {
    if (!at) break;
    if (at->is_sequence()) {
      size_t index = segment == "-" ? at->items().size() : std::stoul(segment);
      out.path += "[" + std::to_string(index) + "]";
      at = index < at->items().size() ? &at->items()[index] : nullptr;
    } else {
      out.path = AppendKey(out.path, segment);
      at = at->Find(segment);
    }
    if (at) out.value = at;
  }
  return out;
}

// Marks are positions in the file: the loader reads each document in place.
std::string Position(const std::string& file, const Value& value) {
  std::string out = file;
  if (value.mark().line > 0) {
    out += ":" + std::to_string(value.mark().line);
    if (value.mark().column > 0) out += ":" + std::to_string(value.mark().column);
  }
  return out;
}

std::string Shown(const Value& v) { return v.is_string() ? v.text() : ToJson(v); }

constexpr std::string_view kUnitRule = "quantity-invalid";

bool Selected(const FixOptions& options, std::string_view rule) {
  return options.only.empty() || options.only.count(rule) > 0;
}

class DocumentFixer {
 public:
  DocumentFixer(const std::string& file, const Policy& policy, const Inventory& inventory,
                const FixOptions& options)
      : file_(file),
        policy_(policy),
        inventory_(inventory),
        options_(options) {}

  // Collects the ops for one object of the document, at `prefix` in it.
  void AddObject(const Value& object, const std::string& prefix, const std::string& shown_prefix) {
    if (!object.is_mapping()) return;
    Value fixed = object;
    std::vector<PatchOp> unit_ops;
    if (Selected(options_, kUnitRule)) {
      for (UnitFix& f : UnitFixes(object, policy_, inventory_)) {
        changes_.push_back(Position(file_, *f.at) + ": " + f.field + ": " +
                           f.at->text() + " -> " + f.op.value.text() + " (" + f.reason + ") [" +
                           std::string(kUnitRule) + "]");
        unit_ops.push_back(f.op);
        ops_.push_back(PatchOp{"replace", prefix + f.op.path, std::move(f.op.value)});
      }
    }
    // The repairs answer what check reports once the units are fixed, and
    // the mutations see both: a memory limit that was "8GiB" gets its
    // headroom now, not on a second run.
    if (!ApplyPatch(unit_ops, &fixed, nullptr)) return;
    if (!AddRepairs(&fixed, prefix, shown_prefix)) return;
    if (!options_.mutations) return;
    for (PatchOp& op : Mutate(fixed, policy_, inventory_)) {
      Located where = Locate(object, op.path);
      std::string change = Position(file_, *where.value) + ": ";
      const Value* old = op.op == "replace" ? Locate(fixed, op.path).value : nullptr;
      if (old && old->is_scalar()) {
        change +=
            JoinPath(shown_prefix, where.path) + ": " + Shown(*old) + " -> " + Shown(op.value);
      } else {
        change += "add " + JoinPath(shown_prefix, where.path) + ": " + Shown(op.value);
      }
      changes_.push_back(std::move(change));
      op.path = prefix + op.path;
      ops_.push_back(std::move(op));
    }
  }

  const std::vector<PatchOp>& ops() const { return ops_; }
  std::vector<std::string>& changes() { return changes_; }
  std::vector<std::string>& unfixed() { return unfixed_; }

 private:
  // The repairs of `*fixed`'s findings, applied to it; a note for each
  // finding of the repaired rules that is left.
  bool AddRepairs(Value* fixed, const std::string& prefix, const std::string& shown_prefix) {
    std::vector<Finding> findings = Evaluate(*fixed, "", policy_, inventory_);
    std::vector<Repair> repairs;
    std::vector<Unrepaired> left;
    RepairFindings(*fixed, findings, policy_, inventory_, options_.only, &repairs, &left);
    std::sort(left.begin(), left.end(),
              [](const Unrepaired& a, const Unrepaired& b) { return a.finding < b.finding; });
    for (const Unrepaired& u : left) {
      Value at = Value::String("", u.finding->mark);
      unfixed_.push_back(Position(file_, at) + ": not fixed: " +
                         JoinPath(shown_prefix, u.finding->path) + ": " + u.why + " [" +
                         u.finding->rule + "]");
    }
    std::vector<PatchOp> ops;
    for (Repair& r : repairs) {
      changes_.push_back(Position(file_, *r.at) + ": " +
                         JoinPath(shown_prefix, r.path) + ": " + r.what + " [" + r.rule + "]");
      ops.push_back(r.op);
      ops_.push_back(PatchOp{r.op.op, prefix + r.op.path, std::move(r.op.value)});
    }
    return ApplyPatch(ops, fixed, nullptr);
  }

  const std::string& file_;
  const Policy& policy_;
  const Inventory& inventory_;
  const FixOptions& options_;
  std::vector<PatchOp> ops_;
  std::vector<std::string> changes_;
  std::vector<std::string> unfixed_;
};

Error LeftAsItWas(Error error, const std::string& file) {
  error.file = file;
  error.message = "not fixed, left as it was: " + error.message;
  return error;
}

// One document's fixes, edited into its text; the text as it was when there
// is nothing to change or it cannot be edited in place.
std::string FixDocument(const Document& doc, std::string_view doc_text, const Policy& policy,
                        const Inventory& inventory, const FixOptions& options, FixedFile* out) {
  const Value& root = doc.root;
  DocumentFixer fixer(doc.file, policy, inventory, options);
  const Value* items = root.Find("items");
  ForEachObject(root, [&](const Value& object) {
    if (&object == &root) return fixer.AddObject(object, "", "");
    std::string index = std::to_string(&object - &items->items()[0]);
    fixer.AddObject(object, "/items/" + index, "items[" + index + "]");
  });
  for (std::string& u : fixer.unfixed()) out->unfixed.push_back(std::move(u));
  if (fixer.ops().empty()) return std::string(doc_text);
  std::string edited;
  Error error;
  if (!EditYamlDocument(doc_text, fixer.ops(), &edited, &error)) {
    // The edit's positions are in the document's text.
    if (error.mark.line > 0) error.mark.line += doc.first_line;
    out->problems.push_back(LeftAsItWas(std::move(error), doc.file));
    return std::string(doc_text);
  }
  ++out->documents_changed;
  for (std::string& c : fixer.changes()) out->changes.push_back(std::move(c));
  return edited;
}

}  // namespace

// The documents are cut where `gpulint check` cuts them, by the one loader;
// what lies between them (comments, markers) is copied as it is.
FixedFile FixText(std::string_view text, const std::string& file, const Policy& policy,
                  const Inventory& inventory, const FixOptions& options) {
  FixedFile out;
  out.text.reserve(text.size());
  size_t copied = 0;
  Error io_error;
  LoadYamlString(
      text, file, LoadLimits{},
      [&](Document&& doc) {
        if (!doc.ok) {
          out.problems.push_back(LeftAsItWas(std::move(doc.error), file));
          return true;
        }
        if (doc.root.is_null()) return true;
        out.text += text.substr(copied, doc.begin - copied);
        out.text += FixDocument(doc, text.substr(doc.begin, doc.end - doc.begin), policy,
                                inventory, options, &out);
        copied = doc.end;
        return true;
      },
      &io_error);
  out.text += text.substr(copied);
  return out;
}

}  // namespace gpulint
