// libFuzzer target: the YAML stream loader, then the whole engine on every
// object it yields (Evaluate and Mutate with the built-in policy), as
// `gpulint check` runs it.
//
// Properties, beyond "no crash, no sanitizer report":
//  - no document comes back ok with a root nested deeper than the limit;
//  - a document that is not ok carries an error message and a null root;
//  - ToJson of every loaded root parses back with ParseJson to an equal tree
//    (the webhook and the CLI must see the same object);
//  - Mutate's patch applies cleanly to the object it was made for, and
//    mutating the result again yields nothing (mutate.h's promise).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/base/objects.h"
#include "engine/base/value.h"
#include "engine/engine.h"
#include "engine/json/json_parser.h"
#include "engine/mutate/mutate.h"
#include "engine/policy/policy.h"
#include "engine/yaml/loader.h"

namespace {

using gpulint::Value;

[[noreturn]] void Fail(std::string_view what, const std::string& detail) {
  std::fprintf(stderr, "yaml_loader_fuzzer: %.*s\n  %s\n", static_cast<int>(what.size()),
               what.data(), detail.c_str());
  std::abort();
}

// Collection levels from the root down (a scalar root has depth 0), without
// recursion: the tree under test may be deep.
size_t Depth(const Value& root) {
  size_t deepest = 0;
  std::vector<std::pair<const Value*, size_t>> stack = {{&root, 0}};
  while (!stack.empty()) {
    auto [v, depth] = stack.back();
    stack.pop_back();
    if (v->is_scalar()) continue;
    deepest = std::max(deepest, depth + 1);
    for (const Value& item : v->items()) stack.push_back({&item, depth + 1});
    for (const Value::Member& m : v->members()) stack.push_back({&m.second, depth + 1});
  }
  return deepest;
}

// What JSON can hold of a scalar: ToJson turns numbers JSON cannot spell
// (".inf", "+1.5") into strings or JSON syntax, so compare what ToJson wrote.
bool SameScalar(const Value& loaded, const Value& reparsed) {
  std::string json = gpulint::ToJson(loaded);
  if (json != gpulint::ToJson(reparsed)) return false;
  if (!json.empty() && json[0] == '"') return reparsed.is_string();
  // A YAML int stays an int; a float JSON writes as "1" comes back an int.
  if (loaded.type() == Value::Type::kFloat) {
    return reparsed.type() == Value::Type::kFloat || reparsed.type() == Value::Type::kInt;
  }
  return loaded.type() == reparsed.type();
}

bool SameTree(const Value& a, const Value& b, std::string* where) {
  std::vector<std::pair<const Value*, const Value*>> stack = {{&a, &b}};
  while (!stack.empty()) {
    auto [x, y] = stack.back();
    stack.pop_back();
    if (x->is_scalar()) {
      if (!SameScalar(*x, *y)) {
        *where = gpulint::ToJson(*x) + " came back as " + gpulint::ToJson(*y);
        return false;
      }
      continue;
    }
    if (x->type() != y->type() || x->items().size() != y->items().size() ||
        x->members().size() != y->members().size()) {
      *where = "a collection changed shape";
      return false;
    }
    for (size_t i = 0; i < x->items().size(); ++i) stack.push_back({&x->items()[i], &y->items()[i]});
    for (size_t i = 0; i < x->members().size(); ++i) {
      if (x->members()[i].first != y->members()[i].first) {
        *where = "key \"" + x->members()[i].first + "\" came back as \"" +
                 y->members()[i].first + "\"";
        return false;
      }
      stack.push_back({&x->members()[i].second, &y->members()[i].second});
    }
  }
  return true;
}

void CheckObject(const Value& object, const gpulint::Policy& policy,
                 const gpulint::Inventory& inventory) {
  (void)gpulint::Evaluate(object, "fuzz.yaml", policy, inventory);
  std::vector<gpulint::PatchOp> ops = gpulint::Mutate(object, policy, inventory);
  if (ops.empty()) return;
  (void)gpulint::PatchToJson(ops);
  Value patched = object;
  gpulint::Error error;
  if (!gpulint::ApplyPatch(ops, &patched, &error))
    Fail("Mutate's patch does not apply", gpulint::PatchToJson(ops) + ": " + error.ToString());
  std::vector<gpulint::PatchOp> again = gpulint::Mutate(patched, policy, inventory);
  if (!again.empty())
    Fail("mutating a mutated object changes it again",
         gpulint::ToJson(object) + "\n  first: " + gpulint::PatchToJson(ops) +
             "\n  again: " + gpulint::PatchToJson(again));
}

void CheckDocument(const gpulint::Document& doc, const gpulint::LoadLimits& limits) {
  if (!doc.ok) {
    if (doc.error.message.empty()) Fail("a refused document has no error message", "");
    if (!doc.root.is_null()) Fail("a refused document has a root", gpulint::ToJson(doc.root));
    (void)gpulint::ParseErrorFinding(doc.error);
    return;
  }
  size_t depth = Depth(doc.root);
  if (depth > limits.max_depth)
    Fail("a document deeper than the limit loaded", std::to_string(depth) + " levels");
  std::string json = gpulint::ToJson(doc.root);
  Value reparsed;
  gpulint::Error error;
  if (!gpulint::ParseJson(json, limits.max_depth, &reparsed, &error))
    Fail("ToJson's output does not parse", json + "\n  " + error.ToString());
  std::string where;
  if (!SameTree(doc.root, reparsed, &where)) Fail("ToJson/ParseJson changed the tree", where);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const gpulint::Policy& policy = gpulint::DefaultPolicy();
  static const gpulint::Inventory inventory = gpulint::BuildInventory(policy, {});
  const gpulint::LoadLimits limits;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  gpulint::Error error;
  size_t documents = 0;
  bool ok = gpulint::LoadYamlString(
      text, "fuzz.yaml", limits,
      [&](gpulint::Document&& doc) {
        if (doc.index != documents++) Fail("documents out of order", std::to_string(doc.index));
        CheckDocument(doc, limits);
        if (!doc.ok) return true;
        gpulint::ForEachObject(doc.root, [&](const Value& object) {
          if (object.is_mapping()) CheckObject(object, policy, inventory);
        });
        return true;
      },
      &error);
  // Text in memory cannot fail to be read.
  if (!ok) Fail("LoadYamlString failed on text in memory", error.ToString());
  return 0;
}
