// The manifests under the directories named, read as `gpulint check` reads
// them (the same walk, the same YAML reading, a List's items one by one), one
// JSON line each:
//   {"file": F, "doc": N, "item": I, "object": {...}}   an object (I is -1
//                                                         when it is no List item)
//   {"file": F, "doc": N, "error": "..."}               a document that does not parse
//   {"file": F, "source": "helm chart" | "kustomization"}   not a manifest until rendered
// so that tests/vap/run.py sends the API server exactly the objects the engine
// judges.
#include <iostream>
#include <string>
#include <vector>

#include "engine/base/objects.h"
#include "engine/base/value.h"
#include "lint/input/setup.h"

namespace {

std::string JsonString(const std::string& text) {
  return gpulint::ToJson(gpulint::Value::String(text));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gpulint;
  std::vector<std::string> paths(argv + 1, argv + argc);
  if (paths.empty()) {
    std::cerr << "usage: gpulint_vap_documents DIR...\n";
    return 2;
  }
  std::vector<Error> errors;
  std::vector<InputFile> inputs = ManifestInputs(paths, &errors);
  for (const Error& e : errors) std::cerr << e.ToString() << '\n';
  for (const InputFile& input : inputs) {
    const std::string file = JsonString(input.path);
    if (input.kind != InputKind::kFile) {
      std::cout << "{\"file\": " << file << ", \"source\": \""
                << (input.kind == InputKind::kHelmChart ? "helm chart" : "kustomization")
                << "\"}\n";
      continue;
    }
    Error error;
    bool read = LoadPath(
        input.path, 0, LoadLimits(),
        [&](Document&& doc) {
          std::string head = "{\"file\": " + file + ", \"doc\": " + std::to_string(doc.index);
          if (!doc.ok) {
            std::cout << head << ", \"error\": " << JsonString(doc.error.ToString()) << "}\n";
            return true;
          }
          if (!doc.root.is_mapping()) return true;  // an empty document, a comment
          int item = ListItems(doc.root) ? 0 : -1;
          ForEachObject(doc.root, [&](const Value& object) {
            std::cout << head << ", \"item\": " << item << ", \"object\": " << ToJson(object)
                      << "}\n";
            if (item >= 0) ++item;
          });
          return true;
        },
        &error);
    if (!read) {
      std::cerr << error.ToString() << '\n';
      return 1;
    }
  }
  return errors.empty() ? 0 : 1;
}
