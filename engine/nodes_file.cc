#include "engine/nodes_file.h"

#include <utility>

#include "engine/loader.h"

namespace gpulint {
namespace {

// `item`: the object is an item of a List, where a NodeList from the API
// leaves the kind out; a document of its own must say what it is.
bool ReadNode(const Value& object, bool item, const std::string& file,
              std::vector<NodeClass>* nodes, Error* error) {
  std::string_view kind = object.StringAt("kind");
  if (kind != "Node" && !(kind.empty() && item)) {
    *error = Error{file, object.mark(),
                   (kind.empty() ? std::string("not a Node (no kind)")
                                 : "not a Node (kind: " + std::string(kind) + ")") +
                       "; --nodes reads the output of 'kubectl get nodes -o yaml'"};
    return false;
  }
  NodeClass node;
  if (!NodeClassFromNode(object, file, &node, error)) return false;
  nodes->push_back(std::move(node));
  return true;
}

}  // namespace

bool LoadNodesFile(const std::string& path, int stdin_fd, std::vector<NodeClass>* nodes,
                   Error* error) {
  std::vector<NodeClass> read;
  bool ok = true;
  DocumentSink sink = [&](Document&& doc) {
    if (!doc.ok) {
      *error = doc.error;
      ok = false;
    } else if (!doc.root.is_null()) {
      ForEachObject(doc.root, [&](const Value& object) {
        if (ok) ok = ReadNode(object, &object != &doc.root, doc.file, &read, error);
      });
    }
    return ok;
  };
  bool loaded = path == "-" ? LoadYamlFd(stdin_fd, kStdinName, LoadLimits{}, sink, error)
                            : LoadInput(InputFile{path}, LoadLimits{}, sink, error);
  if (!loaded || !ok) return false;
  nodes->insert(nodes->end(), std::make_move_iterator(read.begin()),
                std::make_move_iterator(read.end()));
  return true;
}

}  // namespace gpulint
