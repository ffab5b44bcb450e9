#include "lint/fix/fix.h"

#include <set>
#include <utility>

#include "engine/base/path.h"
#include "engine/engine.h"
#include "engine/object_stream.h"
#include "engine/mutate/mutate.h"
#include "engine/yaml/loader.h"
#include "engine/yaml_edit/yaml_edit.h"

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

// One document's repairs, from the fix-its the rules attach to their findings
// (engine/base/finding.h), and the webhook's patch when asked.
class DocumentFixer {
 public:
  DocumentFixer(const std::string& file, const Policy& policy, const Inventory& inventory,
                const FixOptions& options, const ObjectStream& stream)
      : file_(file), policy_(policy), inventory_(inventory), options_(options), stream_(stream) {}

  // Collects the ops for one object of the document, as the stream judged it
  // (an object folded under its owner, or no Kubernetes object, is not
  // judged, and not changed).
  // First the units, which every other repair and the mutations read: a
  // memory limit that was "8GiB" gets its headroom now, not on a second run.
  // Then the other rules' repairs, judged on the object with its units fixed.
  void AddObject(JudgedObject& judged) {
    if (!judged.kubernetes || judged.under_owner) return;
    const Value& object = judged.object;
    const std::string& prefix = judged.pointer;
    const std::string& shown_prefix = judged.shown;
    std::vector<Finding> findings = std::move(judged.findings);
    Value fixed = object;
    std::vector<PatchOp> unit_ops;
    if (Selected(options_, kUnitRule)) {
      for (Finding& f : findings)
        if (f.rule == kUnitRule && f.fix && Once(f)) Take(f, prefix, shown_prefix, &unit_ops);
    }
    if (!unit_ops.empty()) {
      if (!ApplyPatch(unit_ops, &fixed, nullptr)) return;
      findings = stream_.Rejudge(fixed, file_);
    }
    std::vector<PatchOp> repair_ops;
    for (Finding& f : findings) {
      if (f.fix && f.rule != kUnitRule && Selected(options_, f.rule) && Once(f))
        Take(f, prefix, shown_prefix, &repair_ops);
    }
    if (!ApplyPatch(repair_ops, &fixed, nullptr)) return;
    if (options_.mutations) AddMutations(object, fixed, prefix, shown_prefix);
  }

  const std::vector<PatchOp>& ops() const { return ops_; }
  std::vector<std::string>& changes() { return changes_; }

 private:
  // A pod spec reached twice reports the same finding twice: one answer.
  bool Once(const Finding& f) { return answered_.insert({f.rule, f.path}).second; }

  // Takes a finding's fix-it: its ops into *applied (pointers into the
  // object) and the document's ops (pointers into the document), and a line
  // saying what changed.
  void Take(Finding& f, const std::string& prefix, const std::string& shown_prefix,
            std::vector<PatchOp>* applied) {
    FixIt& fix = *f.fix;
    Value at = Value::String("", f.mark);
    std::string field = fix.field.empty() ? JoinPath(shown_prefix, f.path) : fix.field;
    changes_.push_back(Position(file_, at) + ": " + field + ": " + fix.what + " [" + f.rule + "]");
    for (PatchOp& op : fix.ops) {
      applied->push_back(op);
      ops_.push_back(PatchOp{op.op, prefix + op.path, std::move(op.value)});
    }
  }

  void AddMutations(const Value& object, const Value& fixed, const std::string& prefix,
                    const std::string& shown_prefix) {
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

  const std::string& file_;
  const Policy& policy_;
  const Inventory& inventory_;
  const FixOptions& options_;
  const ObjectStream& stream_;
  std::set<std::pair<std::string, std::string>> answered_;  // (rule, path)
  std::vector<PatchOp> ops_;
  std::vector<std::string> changes_;
};

Error LeftAsItWas(Error error, const std::string& file) {
  error.file = file;
  error.message = "not fixed, left as it was: " + error.message;
  return error;
}

// One document's fixes, edited into its text; the text as it was when there
// is nothing to change or it cannot be edited in place.
std::string FixDocument(const Document& doc, std::string_view doc_text, const Policy& policy,
                        const Inventory& inventory, const FixOptions& options,
                        ObjectStream* stream, FixedFile* out) {
  DocumentFixer fixer(doc.file, policy, inventory, options, *stream);
  stream->Judge(doc.root, doc.file, [&](JudgedObject& judged) { fixer.AddObject(judged); });
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

// Why the fixed text still has `f`. Judged with fixes asked for, a finding
// that carries a repair is one fix chose not to make, or could not.
std::string WhyLeft(const Finding& f, const FixOptions& options) {
  if (f.fix) {
    return Selected(options, f.rule) ? "its repair could not be made in place"
                                     : "--only leaves " + f.rule + " out";
  }
  if (!f.no_fix.empty()) return f.no_fix;
  return "gpulint fix does not repair " + f.rule + "; 'gpulint explain " + f.rule +
         "' says how to fix it";
}

// What `gpulint check` will report in the fixed text, as it reads it: the
// same stream of judged objects (engine/object_stream.h).
void JudgeWhatIsLeft(const std::string& file, const Policy& policy, const Inventory& inventory,
                     const FixOptions& options, FixedFile* out) {
  ObjectStream stream(policy, inventory, /*fixes=*/true);
  Error io_error;
  LoadYamlString(
      out->text, file, LoadLimits{},
      [&](Document&& doc) {
        if (!doc.ok) return true;  // left as it was, and reported
        stream.Judge(doc.root, file, [&](JudgedObject& judged) {
          for (Finding& f : judged.findings) {
            std::string why = WhyLeft(f, options);
            out->left.push_back(LeftFinding{std::move(f), std::move(why)});
          }
        });
        return true;
      },
      &io_error);
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
  ObjectStream stream(policy, inventory, /*fixes=*/true);  // as check reads the file
  LoadYamlString(
      text, file, LoadLimits{},
      [&](Document&& doc) {
        if (!doc.ok) {
          out.problems.push_back(LeftAsItWas(std::move(doc.error), file));
          return true;
        }
        if (doc.root.is_null()) return true;
        out.text += text.substr(copied, doc.begin - copied);
        out.text += FixDocument(doc, text.substr(doc.begin, doc.end - doc.begin), policy, inventory,
                                options, &stream, &out);
        copied = doc.end;
        return true;
      },
      &io_error);
  out.text += text.substr(copied);
  JudgeWhatIsLeft(file, policy, inventory, options, &out);
  return out;
}

}  // namespace gpulint
