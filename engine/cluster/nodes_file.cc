#include "engine/cluster/nodes_file.h"

#include <utility>

#include "engine/base/objects.h"
#include "engine/yaml/loader.h"

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

// What the items of the document being read came to. They are read before
// the document's kind is known, and count only if it turns out a List.
struct PendingItems {
  std::vector<NodeClass> nodes;
  bool ok = true;
  Error error;  // the first item that is not a usable Node
};

// One document's nodes into `read`: its items when it is a List (those seen
// on the way, then any left in the tree), else the document itself.
bool ReadDocument(const Document& doc, PendingItems* pending, std::vector<NodeClass>* read,
                  Error* error) {
  const Value* items = ListItems(doc.root);
  if (items == nullptr) return ReadNode(doc.root, false, doc.file, read, error);
  if (!pending->ok) {
    *error = std::move(pending->error);
    return false;
  }
  read->insert(read->end(), std::make_move_iterator(pending->nodes.begin()),
               std::make_move_iterator(pending->nodes.end()));
  for (const Value& item : items->items()) {
    if (!ReadNode(item, true, doc.file, read, error)) return false;
  }
  return true;
}

}  // namespace

bool LoadNodesFile(const std::string& path, int stdin_fd, std::vector<NodeClass>* nodes,
                   Error* error) {
  const std::string file = path == "-" ? kStdinName : path;
  std::vector<NodeClass> read;
  PendingItems pending;
  // A List is read item by item: each item is a NodeClass, and its tree gone,
  // before the next is parsed, so 5,000 nodes never make one tree.
  ItemSink item = [&](const Value& object) {
    if (pending.ok) pending.ok = ReadNode(object, true, file, &pending.nodes, &pending.error);
  };
  bool ok = true;
  DocumentSink sink = [&](Document&& doc) {
    if (!doc.ok) {
      *error = doc.error;
      ok = false;
    } else if (!doc.root.is_null()) {
      ok = ReadDocument(doc, &pending, &read, error);
    }
    pending = PendingItems{};
    return ok;
  };
  bool loaded = path == "-" ? LoadYamlFd(stdin_fd, file, LoadLimits{}, sink, error, item)
                            : LoadYamlFile(path, LoadLimits{}, sink, error, item);
  if (!loaded || !ok) return false;
  nodes->insert(nodes->end(), std::make_move_iterator(read.begin()),
                std::make_move_iterator(read.end()));
  return true;
}

}  // namespace gpulint
