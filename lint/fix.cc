#include "lint/fix.h"

#include <algorithm>
#include <utility>

#include "engine/engine.h"
#include "engine/loader.h"
#include "engine/mutate.h"
#include "engine/path.h"
#include "engine/yaml_edit.h"
#include "lint/repair.h"
#include "lint/unit_fix.h"

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
  const Value* at = &root;
  size_t i = 0;
  while (at && i < pointer.size()) {
    size_t next = pointer.find('/', i + 1);
    std::string segment;
    for (size_t k = i + 1; k < std::min(next, pointer.size()); ++k) {
      if (pointer[k] == '~' && k + 1 < pointer.size()) {
        segment += pointer[++k] == '1' ? '/' : '~';
      } else {
        segment += pointer[k];
      }
    }
    i = next == std::string_view::npos ? pointer.size() : next;
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

std::string Position(const std::string& file, const Value& value, uint32_t first_line) {
  std::string out = file;
  if (value.mark().line > 0) {
    out += ":" + std::to_string(value.mark().line + first_line);
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
  DocumentFixer(const std::string& file, uint32_t first_line, const Policy& policy,
                const Inventory& inventory, const FixOptions& options)
      : file_(file),
        first_line_(first_line),
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
        changes_.push_back(Position(file_, *f.at, first_line_) + ": " + f.field + ": " +
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
      std::string change = Position(file_, *where.value, first_line_) + ": ";
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
      unfixed_.push_back(Position(file_, at, first_line_) + ": not fixed: " +
                         JoinPath(shown_prefix, u.finding->path) + ": " + u.why + " [" +
                         u.finding->rule + "]");
    }
    std::vector<PatchOp> ops;
    for (Repair& r : repairs) {
      changes_.push_back(Position(file_, *r.at, first_line_) + ": " +
                         JoinPath(shown_prefix, r.path) + ": " + r.what + " [" + r.rule + "]");
      ops.push_back(r.op);
      ops_.push_back(PatchOp{r.op.op, prefix + r.op.path, std::move(r.op.value)});
    }
    return ApplyPatch(ops, fixed, nullptr);
  }

  const std::string& file_;
  uint32_t first_line_;
  const Policy& policy_;
  const Inventory& inventory_;
  const FixOptions& options_;
  std::vector<PatchOp> ops_;
  std::vector<std::string> changes_;
  std::vector<std::string> unfixed_;
};

Error Shifted(Error error, const std::string& file, uint32_t first_line) {
  error.file = file;
  if (error.mark.line > 0) error.mark.line += first_line;
  error.message = "not fixed, left as it was: " + error.message;
  return error;
}

}  // namespace

FixedFile FixText(std::string_view text, const std::string& file, const Policy& policy,
                  const Inventory& inventory, const FixOptions& options) {
  FixedFile out;
  out.text.reserve(text.size());
  for (const DocumentSpan& span : SplitYamlStream(text)) {
    std::string_view doc_text = text.substr(span.begin, span.end - span.begin);
    std::vector<Document> docs;
    Error io_error;
    LoadYamlString(
        doc_text, file, LoadLimits{},
        [&](Document&& d) {
          docs.push_back(std::move(d));
          return true;
        },
        &io_error);
    if (docs.size() != 1 || !docs[0].ok || docs[0].root.is_null()) {
      if (docs.size() > 1)
        out.problems.push_back(Shifted(Error{file, docs[1].start,
                                             "a document the fixer could "
                                             "not tell apart"},
                                       file, span.first_line));
      if (docs.size() == 1 && !docs[0].ok)
        out.problems.push_back(Shifted(docs[0].error, file, span.first_line));
      out.text += doc_text;
      continue;
    }
    const Value& root = docs[0].root;
    DocumentFixer fixer(file, span.first_line, policy, inventory, options);
    const Value* items = root.Find("items");
    ForEachObject(root, [&](const Value& object) {
      if (&object == &root) return fixer.AddObject(object, "", "");
      std::string index = std::to_string(&object - &items->items()[0]);
      fixer.AddObject(object, "/items/" + index, "items[" + index + "]");
    });
    for (std::string& u : fixer.unfixed()) out.unfixed.push_back(std::move(u));
    std::string edited;
    Error error;
    if (fixer.ops().empty()) {
      out.text += doc_text;
    } else if (!EditYamlDocument(doc_text, fixer.ops(), &edited, &error)) {
      out.problems.push_back(Shifted(error, file, span.first_line));
      out.text += doc_text;
    } else {
      out.text += edited;
      ++out.documents_changed;
      for (std::string& c : fixer.changes()) out.changes.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace gpulint
