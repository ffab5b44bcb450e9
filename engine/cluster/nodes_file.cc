#include "engine/cluster/nodes_file.h"

#include <utility>

#include "engine/base/objects.h"
#include "engine/yaml/loader.h"

namespace gpulint {
namespace {

void AppendAll(NodesFile* to, NodesFile&& from) {
  to->nodes.insert(to->nodes.end(), std::make_move_iterator(from.nodes.begin()),
                   std::make_move_iterator(from.nodes.end()));
  to->dra.classes.insert(to->dra.classes.end(), std::make_move_iterator(from.dra.classes.begin()),
                         std::make_move_iterator(from.dra.classes.end()));
  to->dra.slices.insert(to->dra.slices.end(), std::make_move_iterator(from.dra.slices.begin()),
                        std::make_move_iterator(from.dra.slices.end()));
}

// `item`: the object is an item of a List, where a NodeList from the API
// leaves the kind out; a document of its own must say what it is.
bool ReadObject(const Value& object, bool item, const std::string& file, NodesFile* read,
                Error* error) {
  if (!DraKindOf(object).empty()) return ReadDraObject(object, file, &read->dra, error);
  std::string_view kind = object.StringAt("kind");
  if (kind != "Node" && !(kind.empty() && item)) {
    *error = Error{file, object.mark(),
                   (kind.empty() ? std::string("not a Node (no kind)")
                                 : "not a Node (kind: " + std::string(kind) + ")") +
                       "; --nodes reads the output of 'kubectl get nodes,deviceclasses,"
                       "resourceslices -o yaml'"};
    return false;
  }
  NodeClass node;
  if (!NodeClassFromNode(object, file, &node, error)) return false;
  read->nodes.push_back(std::move(node));
  return true;
}

// What the items of the document being read came to. They are read before
// the document's kind is known, and count only if it turns out a List.
struct PendingItems {
  NodesFile read;
  bool ok = true;
  Error error;  // the first item that is not a usable object
};

// One document's objects into `read`: its items when it is a List (those
// seen on the way, then any left in the tree), else the document itself.
bool ReadDocument(const Document& doc, PendingItems* pending, NodesFile* read, Error* error) {
  const Value* items = ListItems(doc.root);
  if (items == nullptr) return ReadObject(doc.root, false, doc.file, read, error);
  if (!pending->ok) {
    *error = std::move(pending->error);
    return false;
  }
  AppendAll(read, std::move(pending->read));
  for (const Value& item : items->items()) {
    if (!ReadObject(item, true, doc.file, read, error)) return false;
  }
  return true;
}

}  // namespace

bool LoadNodesFile(const std::string& path, int stdin_fd, NodesFile* out, Error* error) {
  const std::string file = path == "-" ? kStdinName : path;
  NodesFile read;
  PendingItems pending;
  // A List is read item by item: each item is a NodeClass (or a DRA object),
  // and its tree gone, before the next is parsed, so 5,000 nodes never make
  // one tree.
  ItemSink item = [&](const Value& object) {
    if (pending.ok) pending.ok = ReadObject(object, true, file, &pending.read, &pending.error);
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
  AppendAll(out, std::move(read));
  return true;
}

bool LoadNodesFile(const std::string& path, int stdin_fd, std::vector<NodeClass>* nodes,
                   Error* error) {
  NodesFile read;
  if (!LoadNodesFile(path, stdin_fd, &read, error)) return false;
  nodes->insert(nodes->end(), std::make_move_iterator(read.nodes.begin()),
                std::make_move_iterator(read.nodes.end()));
  return true;
}

}  // namespace gpulint
