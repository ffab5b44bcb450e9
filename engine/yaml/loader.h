// Manifests in, documents out: one document at a time, so memory stays flat
// whatever the size of the input.
#ifndef GPULINT_ENGINE_YAML_LOADER_H_
#define GPULINT_ENGINE_YAML_LOADER_H_

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "engine/base/finding.h"
#include "engine/base/value.h"

namespace gpulint {

// What standard input ("-" on a command line) is called in marks and errors.
inline constexpr char kStdinName[] = "<stdin>";

// Bounds that keep hostile input from taking time or memory without end.
struct LoadLimits {
  size_t max_depth = 256;                 // nesting of mappings/sequences
  size_t max_alias_expansion = 100000;    // nodes created by expanding aliases, per document
  size_t max_documents = 1000000;         // per stream
  size_t max_document_bytes = 64u << 20;  // one document's source text
  size_t max_scalar_bytes = 16u << 20;
};

// One document of a stream. `index` counts from 0 within its file; `start` is
// where the document begins. When the document could not be read, `error` is
// set (with its position) and `root` is null; the stream goes on with the next
// document where the syntax allows it.
struct Document {
  std::string file;
  size_t index = 0;
  Mark start;
  // The document's text in the stream: bytes [begin, end), its "---" and "..."
  // markers and directives included, from 0-based line `first_line`. The bytes
  // between one document and the next hold only blank lines, comments and
  // markers. `gpulint fix` edits these stretches, so that it cuts a stream
  // where `gpulint check` does.
  size_t begin = 0;
  size_t end = 0;
  uint32_t first_line = 0;
  Value root;
  bool ok = true;
  Error error;
};

// Called for each document in order. Return false to stop early.
using DocumentSink = std::function<bool(Document&&)>;

// Where the loaders below can send the items of a document's top-level `items`
// sequence, one at a time as each ends, instead of keeping them in the tree:
// a List of thousands of objects (5,000 Nodes are a 10.5 MB document) is then
// never in memory as one tree. The document's root keeps its `items` key with
// an empty sequence; an anchored sequence (`items: &a [...]`), one given by a
// merge key and any other `items` value stay in the tree. Items come before
// their document reaches the DocumentSink, and whether that document is a List
// is known only then (kubectl writes `items` before `kind`), so the items of
// any root mapping come here, and a document that fails later is refused after
// its items were seen.
using ItemSink = std::function<void(const Value& item)>;

// Reads a YAML stream (which includes JSON) from an open file descriptor,
// streaming: documents are handed to `sink` as soon as each one ends. `name` is
// the file name used in marks and errors ("<stdin>" for stdin). Returns false
// only when the stream could not be read at all (I/O error), with *error set;
// syntax errors are reported per document through the sink.
bool LoadYamlFd(int fd, const std::string& name, const LoadLimits& limits,
                const DocumentSink& sink, Error* error, const ItemSink& items = nullptr);
// The same over text already in memory.
bool LoadYamlString(std::string_view text, const std::string& name, const LoadLimits& limits,
                    const DocumentSink& sink, Error* error, const ItemSink& items = nullptr);

// Opens and streams one file through LoadYamlFd; "-" is standard input.
// Refuses directories, devices and unreadable files with a clear error; a FIFO
// or pipe is read as a stream, bounded by the per-document size limit.
bool LoadYamlFile(const std::string& path, const LoadLimits& limits, const DocumentSink& sink,
                  Error* error, const ItemSink& items = nullptr);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_YAML_LOADER_H_
