// Reads a policy document onto a Policy, field by field as the format's table
// (policy_schema.h) describes it, reporting every error in one pass: a wrong
// value is an error and its siblings are read on. What would make the errors
// after it meaningless stops there: YAML that does not parse, a document of
// another apiVersion or kind, a value of the wrong type (nothing under it is
// read), and a check across an object's fields (it runs only when they all
// read). A user policy is layered on the default one:
// every field it writes replaces the default's, every field it leaves out
// keeps it, and three tables merge by key (reserved by resource, rules by
// name, workloads by group and kind). policies/README.md documents the format;
// the error messages below are part of it.
#include <re2/re2.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <tuple>
#include <utility>

#include "engine/base/decoder.h"
#include "engine/base/path.h"
#include "engine/policy/policy.h"
#include "engine/policy/policy_schema.h"
#include "engine/yaml/loader.h"

namespace gpulint {
namespace {

std::string Index(std::string_view path, size_t i) {
  return std::string(path) + "[" + std::to_string(i) + "]";
}

const Field* FindField(FieldList fields, std::string_view name) {
  for (const Field& f : fields)
    if (f.name == name) return &f;
  return nullptr;
}

// "a, b or c"
std::string OneOf(std::span<const std::string_view> values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += i + 1 == values.size() ? " or " : ", ";
    out += values[i];
  }
  return out;
}

// The table's text rules, compiled once.
const RE2& Compiled(const TextRule& rule) {
  static std::mutex mu;
  static auto* compiled = new std::map<std::string_view, std::unique_ptr<RE2>>();
  std::lock_guard<std::mutex> lock(mu);
  std::unique_ptr<RE2>& re = (*compiled)[rule.pattern];
  if (!re) re = std::make_unique<RE2>(rule.pattern);
  return *re;
}

bool ReadText(StrictDecoder& d, const Field& f, const Value& v, const std::string& path,
              std::string* out) {
  if (!(f.non_empty ? d.ReadNonEmptyString(v, path, out) : d.ReadString(v, path, out)))
    return false;
  if (f.text && !RE2::PartialMatch(*out, Compiled(*f.text)))
    return d.Fail(v, path, f.text->message(*out));
  return true;
}

bool ReadBoundedQuantity(StrictDecoder& d, const Field& f, const Value& v, const std::string& path,
                         Quantity* out) {
  if (!d.ReadQuantity(v, path, out)) return false;
  if (f.bound == QuantityBound::kNonNegative && out->sign() < 0)
    return d.Fail(v, path, "must not be negative");
  if (f.bound == QuantityBound::kPositive && out->sign() <= 0)
    return d.Fail(v, path, "must be more than 0");
  return true;
}

// "unknown rule \"x\" (rules: a, b, ...)" unless `name` is a rule's.
bool CheckRuleName(StrictDecoder& d, const PolicyNames& names, const Value& v,
                   const std::string& path, const std::string& name, std::string_view noun) {
  const std::vector<KeyName>& keys = names.rules;
  if (std::any_of(keys.begin(), keys.end(), [&](const KeyName& k) { return k.name == name; }))
    return true;
  std::string listed;
  for (const KeyName& k : keys) listed += (listed.empty() ? "" : ", ") + std::string(k.name);
  std::string n(noun);
  return d.Fail(v, path, "unknown " + n + " \"" + name + "\" (" + n + "s: " + listed + ")");
}

bool ReadTextList(StrictDecoder& d, const PolicyNames& names, const Field& f, const Value& v,
                  const std::string& path, std::vector<std::string>* out) {
  if (!d.ExpectSequence(v, path)) return false;
  bool ok = true;
  for (size_t i = 0; i < v.items().size(); ++i) {
    std::string ip = Index(path, i);
    bool read = ReadText(d, f, v.items()[i], ip, &out->emplace_back());
    if (read && f.keys == KeySet::kRules && out->back() != "*")
      read = CheckRuleName(d, names, v.items()[i], ip, out->back(), "rule");
    ok = read && ok;
  }
  if (ok && f.if_empty && out->empty()) return d.Fail(v, path, f.if_empty);
  return ok;
}

bool ReadPatterns(StrictDecoder& d, const Value& v, const std::string& path, PatternList* out) {
  std::vector<std::string> texts;
  if (!d.ReadStringList(v, path, &texts)) return false;
  std::vector<PatternList::Bad> bad;
  if (out->Set(texts, &bad)) return true;
  for (const PatternList::Bad& b : bad)
    d.Fail(v.items()[b.index], Index(path, b.index),
           "invalid pattern \"" + texts[b.index] + "\": " + b.error);
  return false;
}

bool ReadQuantities(StrictDecoder& d, const Field& f, const Value& v, const std::string& path,
                    std::map<std::string, Quantity>* out) {
  if (!d.ExpectMapping(v, path)) return false;
  bool ok = true;
  for (const auto& [key, q] : v.members())
    ok = ReadBoundedQuantity(d, f, q, AppendKey(path, key), &(*out)[key]) && ok;
  return ok;
}

bool ReadEnum(StrictDecoder& d, const Field& f, const Value& v, const std::string& path,
              EnumChoice* out) {
  std::string text;
  if (!d.ReadString(v, path, &text)) return false;
  for (size_t i = 0; i < f.values.size(); ++i) {
    if (f.values[i] == text) {
      *out = {i, f.values[i]};
      return true;
    }
  }
  return d.Fail(
      v, path,
      "unknown " + std::string(f.name) + " \"" + text + "\" (expected " + OneOf(f.values) + ")");
}

bool ReadConstant(StrictDecoder& d, const Field& f, const Value& v, const std::string& path) {
  std::string text;
  if (!d.ReadString(v, path, &text)) return false;
  if (text != f.values.front())
    return d.Fail(v, path,
                  "expected \"" + std::string(f.values.front()) + "\", got \"" + text + "\"");
  return true;
}

// Reads a value whose field is no object into a local of the type its
// FieldType decodes to, and hands it to the field's member.
template <typename T, typename Read>
bool ReadLeaf(const Field& f, void* owner, Read read) {
  T decoded{};
  if (!read(&decoded)) return false;
  if (f.slot) f.assign(f.slot(owner), &decoded);
  return true;
}

bool DecodeFields(StrictDecoder& d, const PolicyNames& names, FieldList fields, const Value& v,
                  const std::string& path, void* target);

bool DecodeObjects(StrictDecoder& d, const PolicyNames& names, const Field& f, const Value& v,
                   const std::string& path, void* owner) {
  void* container = f.slot(owner);
  bool ok = true;
  if (f.type == FieldType::kObjectList) {
    if (!d.ExpectSequence(v, path)) return false;
    if (f.clear) f.clear(container);
    for (size_t i = 0; i < v.items().size(); ++i) {
      const Value& item = v.items()[i];
      std::string ip = Index(path, i);
      void* decoded = f.add_item(container, "");
      // The checks read the whole item: only one that read without error.
      ok = DecodeFields(d, names, f.fields, item, ip, decoded) &&
           (!f.check || f.check(d, item, ip, decoded)) &&
           (!f.item_check || f.item_check(d, v, i, ip, container)) && ok;
    }
    return ok;
  }
  if (!d.ExpectMapping(v, path)) return false;
  for (const Value::Member& member : v.members()) {
    // Not a structured binding: clang before 16 cannot capture one in a lambda.
    const std::string& key = member.first;
    const Value& item = member.second;
    std::string ip = AppendKey(path, key);
    if (f.keys != KeySet::kAny && !CheckRuleName(d, names, item, ip, key, f.key_noun)) ok = false;
    void* decoded = f.add_item(container, key);
    ok = DecodeFields(d, names, f.fields, item, ip, decoded) &&
         (!f.check || f.check(d, item, ip, decoded)) && ok;
  }
  return ok;
}

bool DecodeField(StrictDecoder& d, const PolicyNames& names, const Field& f, const Value& v,
                 const std::string& path, void* owner) {
  switch (f.type) {
    case FieldType::kString:
      return ReadLeaf<std::string>(f, owner,
                                   [&](auto* out) { return ReadText(d, f, v, path, out); });
    case FieldType::kBool:
      return ReadLeaf<bool>(f, owner, [&](auto* out) { return d.ReadBool(v, path, out); });
    case FieldType::kInt:
      return ReadLeaf<int64_t>(f, owner,
                               [&](auto* out) { return d.ReadInt(v, path, f.min, f.max, out); });
    case FieldType::kQuantity:
      return ReadLeaf<Quantity>(f, owner,
                                [&](auto* out) { return ReadBoundedQuantity(d, f, v, path, out); });
    case FieldType::kPercent:
      return ReadLeaf<int64_t>(f, owner,
                               [&](auto* out) { return d.ReadPercentMilli(v, path, out); });
    case FieldType::kEnum:
      return ReadLeaf<EnumChoice>(f, owner,
                                  [&](auto* out) { return ReadEnum(d, f, v, path, out); });
    case FieldType::kConstant:
      return ReadConstant(d, f, v, path);
    case FieldType::kStringList:
      return ReadLeaf<std::vector<std::string>>(
          f, owner, [&](auto* out) { return ReadTextList(d, names, f, v, path, out); });
    case FieldType::kPatternList:
      return ReadLeaf<PatternList>(f, owner,
                                   [&](auto* out) { return ReadPatterns(d, v, path, out); });
    case FieldType::kStringMap:
      return ReadLeaf<std::map<std::string, std::string>>(
          f, owner, [&](auto* out) { return d.ReadStringMap(v, path, out); });
    case FieldType::kQuantityMap:
      return ReadLeaf<std::map<std::string, Quantity>>(
          f, owner, [&](auto* out) { return ReadQuantities(d, f, v, path, out); });
    case FieldType::kObject: {
      void* target = f.slot(owner);
      return DecodeFields(d, names, f.fields, v, path, target) &&
             (!f.check || f.check(d, v, path, target));
    }
    case FieldType::kObjectList:
    case FieldType::kObjectMap:
      return DecodeObjects(d, names, f, v, path, owner);
  }
  return false;
}

// An object of `fields`: no unknown field, the required ones present, each
// member read in the order it is written. Its constants (apiVersion, kind)
// come first: an object of another format stops there, since its other
// fields would be read against the wrong one.
bool DecodeFields(StrictDecoder& d, const PolicyNames& names, FieldList fields, const Value& v,
                  const std::string& path, void* target) {
  if (!d.ExpectMapping(v, path)) return false;
  for (const auto& [key, child] : v.members()) {
    const Field* f = FindField(fields, key);
    if (f && f->type == FieldType::kConstant &&
        !DecodeField(d, names, *f, child, JoinPath(path, key), target))
      return false;
  }
  std::vector<std::string_view> known;
  for (const Field& f : fields) known.push_back(f.name);
  bool ok = d.ExpectFields(v, path, known);
  for (const Field& f : fields) {
    if (!f.required || v.Find(f.name)) continue;
    std::string message = "missing required field \"" + std::string(f.name) + "\"";
    if (f.type == FieldType::kConstant)
      message += " (" + std::string(f.name) + ": " + std::string(f.values.front()) + ")";
    ok = d.Fail(v, path, message);
  }
  for (const auto& [key, child] : v.members()) {
    const Field* f = FindField(fields, key);
    if (f && f->type != FieldType::kConstant)
      ok = DecodeField(d, names, *f, child, JoinPath(path, key), target) && ok;
  }
  return ok;
}

// Layers one policy document onto *p.
bool ApplyDocument(StrictDecoder& d, const PolicyNames& names, const Value& doc, Policy* p) {
  if (!doc.is_mapping())
    return d.Fail(doc, "",
                  doc.is_null() ? "the policy is empty"
                                : "a policy must be a mapping with apiVersion, kind "
                                  "and spec");
  return DecodeFields(d, names, PolicyDocumentFields(), doc, "", p);
}

// The one document of a policy stream; empty documents (a trailing "---")
// are skipped.
bool SingleDocument(std::vector<Document>* docs, const std::string& name, Value* out,
                    Error* error) {
  Document* found = nullptr;
  for (Document& doc : *docs) {
    if (!doc.ok) {
      *error = doc.error;
      return false;
    }
    if (doc.root.is_null()) continue;
    if (found) {
      *error = Error{name, doc.start, "a policy is one YAML document; found a second one here"};
      return false;
    }
    found = &doc;
  }
  if (!found) {
    *error = Error{name,
                   {},
                   "the policy is empty: expected one document with apiVersion: " +
                       std::string(kPolicyApiVersion) + " and kind: Policy"};
    return false;
  }
  *out = std::move(found->root);
  return true;
}

// Reads a stream's one document; an error stops the load with it alone.
bool ReadDocument(bool loaded, std::vector<Document>* docs, const std::string& name, Value* out,
                  Error error, std::vector<Error>* errors) {
  if (loaded && SingleDocument(docs, name, out, &error)) return true;
  errors->assign(1, std::move(error));
  return false;
}

// Errors in the order a reader meets them: by line, then column.
std::vector<Error> InFileOrder(std::vector<Error> errors) {
  std::stable_sort(errors.begin(), errors.end(), [](const Error& a, const Error& b) {
    return std::tie(a.mark.line, a.mark.column) < std::tie(b.mark.line, b.mark.column);
  });
  return errors;
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

bool LoadPolicy(const Value& doc, const std::string& file, const PolicyNames& names, Policy* out,
                std::vector<Error>* errors) {
  Policy p;
  for (auto [source, name] :
       {std::pair{&DefaultPolicyDocument(), "<default policy>"}, std::pair{&doc, file.c_str()}}) {
    StrictDecoder d(name);
    if (!ApplyDocument(d, names, *source, &p)) {
      *errors = InFileOrder(d.TakeErrors());
      return false;
    }
  }
  *out = std::move(p);
  return true;
}

bool LoadPolicyText(std::string_view text, const std::string& name, const PolicyNames& names,
                    Policy* out, std::vector<Error>* errors) {
  std::vector<Document> docs;
  Value root;
  Error error;
  bool loaded = LoadYamlString(text, name, LoadLimits{}, Collect(&docs), &error);
  return ReadDocument(loaded, &docs, name, &root, std::move(error), errors) &&
         LoadPolicy(root, name, names, out, errors);
}

bool LoadPolicyFile(const std::string& path, const PolicyNames& names, Policy* out,
                    std::vector<Error>* errors) {
  std::vector<Document> docs;
  Value root;
  Error error;
  bool loaded = LoadYamlFile(path, LoadLimits{}, Collect(&docs), &error);
  return ReadDocument(loaded, &docs, path, &root, std::move(error), errors) &&
         LoadPolicy(root, path, names, out, errors);
}

}  // namespace gpulint
