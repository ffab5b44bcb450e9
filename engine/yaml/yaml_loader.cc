// A YAML stream is cut into documents by a line scanner before any YAML
// parsing: a line that starts with "---" or "..." followed by a space, a tab
// or the end of the line is a document marker wherever it appears (a block
// scalar cannot contain one, and inside a quoted scalar it is an error). Each
// document then gets its own libyaml parser, so one broken document does not
// hide the next, every document has a size limit, and memory stays flat.
// This is the only splitter: `gpulint fix` edits the documents where this cuts
// them (Document::begin, end), so check and fix cannot disagree on a stream.
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "engine/yaml/loader.h"
#include "engine/yaml/yaml_document.h"

namespace gpulint {
namespace {

// Most manifests are a few KB: a buffer this size takes a whole file in one
// read and stays in the allocator's cache from one file to the next (a fresh
// 1 MiB buffer per file was a mapping, page faults and a copy, 10% of the
// time on a directory of small files).
constexpr size_t kInitialCapacity = size_t{64} << 10;

// The bytes of the stream that are still needed: all of a string, or a
// window over a file descriptor that slides as documents are handed out.
class StreamBuffer {
 public:
  explicit StreamBuffer(std::string_view text)
      : data_(text.data()), size_(text.size()), eof_(true) {}
  explicit StreamBuffer(int fd) : fd_(fd), data_(nullptr), size_(0), eof_(false) {}

  const char* data() const { return data_; }
  size_t size() const { return size_; }
  bool eof() const { return eof_; }

  // Drops the first `consumed` bytes (offsets shift down by as much) and
  // reads more. Returns false with *err set on a read error.
  bool More(size_t consumed, int* err) {
    size_ -= consumed;
    if (consumed != 0 && size_ != 0) {
      std::memmove(storage_.get(), storage_.get() + consumed, size_);
    }
    if (capacity_ - size_ < capacity_ / 4 || capacity_ == 0) {
      // Doubling when three quarters full keeps reads large. realloc can move
      // large blocks by remapping pages: no second copy of a large document
      // in memory while the buffer grows.
      size_t capacity = std::max(2 * capacity_, kInitialCapacity);
      char* bigger = static_cast<char*>(std::realloc(storage_.get(), capacity));
      if (bigger == nullptr) {
        *err = ENOMEM;
        return false;
      }
      storage_.release();
      storage_.reset(bigger);
      capacity_ = capacity;
    }
    data_ = storage_.get();
    ssize_t n;
    do {
      n = read(fd_, storage_.get() + size_, capacity_ - size_);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
      *err = errno;
      return false;
    }
    if (n == 0) eof_ = true;
    size_ += static_cast<size_t>(n);
    return true;
  }

 private:
  struct Free {
    void operator()(char* p) const { std::free(p); }
  };
  int fd_ = -1;
  std::unique_ptr<char, Free> storage_;
  size_t capacity_ = 0;
  const char* data_;
  size_t size_;
  bool eof_;
};

bool IsMarker(std::string_view line, std::string_view marker) {
  if (line.substr(0, 3) != marker) return false;
  return line.size() == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r';
}

// Column (0-based) of the first character that is neither blank nor the
// start of a comment, or npos when the text holds none.
size_t ContentColumn(std::string_view text) {
  size_t i = text.find_first_not_of(" \t\r");
  if (i == std::string_view::npos || text[i] == '#') return std::string_view::npos;
  return i;
}

class Splitter {
 public:
  Splitter(StreamBuffer* in, const std::string& name, const LoadLimits& limits,
           const DocumentSink& sink, const ItemSink& items)
      : in_(in), name_(name), limits_(limits), sink_(sink), items_(items) {}

  // False only on a read error (*error set); a stop is no failure.
  bool Run(Error* error);

 private:
  enum class Next { kGoOn, kStop };
  // Everything about the document whose text starts at begin_.
  struct Pending {
    uint32_t line = 0;    // 0-based line of its first byte
    bool marked = false;  // begins with "---"
    bool content = false;
    Mark start;
  };

  Next Line(std::string_view line, size_t line_begin, size_t next);
  Next Finish(size_t end);
  Next Refuse(std::string message);
  std::string TooLarge() const {
    return "document is larger than " + ByteSizeText(limits_.max_document_bytes) +
           "; the rest of the input is skipped";
  }
  void Begin(size_t at, uint32_t line) {
    begin_ = at;
    doc_ = Pending{};
    doc_.line = line;
  }

  StreamBuffer* in_;
  const std::string& name_;
  const LoadLimits& limits_;
  const DocumentSink& sink_;
  const ItemSink& items_;
  size_t begin_ = 0;   // offset of the pending document's text in the buffer
  size_t dropped_ = 0;  // bytes of the stream before the buffer's first
  uint32_t line_ = 0;  // 0-based line of the line being scanned
  size_t documents_ = 0;
  Pending doc_;
};

bool Splitter::Run(Error* error) {
  size_t pos = 0;
  size_t scanned = 0;  // no newline in [pos, scanned): a long line is searched once
  bool started = false;
  while (true) {
    const char* data = in_->data();
    size_t size = in_->size();
    size_t from = std::max(pos, scanned);
    const void* nl = from < size ? std::memchr(data + from, '\n', size - from) : nullptr;
    if (nl == nullptr && !in_->eof()) {
      if (size - begin_ > limits_.max_document_bytes) {
        Refuse(TooLarge());
        return true;
      }
      int err = 0;
      size_t consumed = begin_;
      if (!in_->More(consumed, &err)) {
        *error = Error{name_, {}, "read failed: " + ErrnoText(err)};
        return false;
      }
      pos -= consumed;
      dropped_ += consumed;
      scanned = size - consumed;
      begin_ = 0;
      continue;
    }
    if (!started) {
      started = true;
      std::string_view head(data, std::min<size_t>(size, 3));
      if (head.substr(0, 2) == "\xFF\xFE" || head.substr(0, 2) == "\xFE\xFF") {
        Refuse("the input is UTF-16; save it as UTF-8");
        return true;
      }
      if (head == "\xEF\xBB\xBF") pos = begin_ = 3;
    }
    if (pos >= size) {
      Finish(size);
      return true;
    }
    size_t end = nl ? static_cast<const char*>(nl) - data : size;
    size_t next = nl ? end + 1 : size;
    if (Line(std::string_view(data + pos, end - pos), pos, next) == Next::kStop) return true;
    if (next - begin_ > limits_.max_document_bytes) {
      Refuse(TooLarge());
      return true;
    }
    pos = next;
    ++line_;
  }
}

Splitter::Next Splitter::Line(std::string_view line, size_t line_begin, size_t next) {
  if (line.empty()) return Next::kGoOn;
  // Nearly every line starts with neither: it is not compared with the markers.
  char first = line[0];
  if (first == '-' && IsMarker(line, "---")) {
    if (doc_.content || doc_.marked) {
      if (Finish(line_begin) == Next::kStop) return Next::kStop;
      Begin(line_begin, line_);
    }
    doc_.marked = true;
    doc_.start = {line_ + 1, 1};
    if (ContentColumn(line.substr(3)) != std::string_view::npos) doc_.content = true;
    return Next::kGoOn;
  }
  if (first == '.' && IsMarker(line, "...")) {
    Next result = Finish(next);
    Begin(next, line_ + 1);
    return result;
  }
  if (first == '%') {
    // A directive opens the next document; in a body it could only be an error.
    // After a "---" that opened no content it still opens the next one, so
    // that the "---" after it does not cut the directive off its document.
    if (doc_.content || doc_.marked) {
      if (Finish(line_begin) == Next::kStop) return Next::kStop;
      Begin(line_begin, line_);
    }
    return Next::kGoOn;
  }
  if (!doc_.content) {
    size_t column = ContentColumn(line);
    if (column != std::string_view::npos) {
      doc_.content = true;
      if (!doc_.marked) doc_.start = {line_ + 1, static_cast<uint32_t>(column + 1)};
    }
  }
  return Next::kGoOn;
}

// Hands out the pending document, which ends at `end`; documents with nothing
// but comments, blank lines and markers are no documents.
Splitter::Next Splitter::Finish(size_t end) {
  if (!doc_.content) return Next::kGoOn;
  if (documents_ == limits_.max_documents) {
    return Refuse("more than " + std::to_string(limits_.max_documents) +
                  " documents; the rest of the input is skipped");
  }
  Document doc;
  doc.file = name_;
  doc.index = documents_++;
  doc.start = doc_.start;
  doc.begin = dropped_ + begin_;
  doc.end = dropped_ + end;
  doc.first_line = doc_.line;
  std::string_view text(in_->data() + begin_, end - begin_);
  if (!ParseYamlDocument(text, doc_.line, limits_, items_ ? &items_ : nullptr, &doc.root,
                         &doc.error)) {
    doc.ok = false;
    doc.root = Value();
    doc.error.file = name_;
  }
  return sink_(std::move(doc)) ? Next::kGoOn : Next::kStop;
}

// Limits that end the stream: the document is refused and nothing after it
// is read, so endless input (a pipe from /dev/zero) ends too.
Splitter::Next Splitter::Refuse(std::string message) {
  Document doc;
  doc.file = name_;
  doc.index = documents_++;
  doc.start = doc_.start.line ? doc_.start : Mark{doc_.line + 1, 1};
  doc.begin = doc.end = dropped_ + begin_;  // none of it was read as a document
  doc.first_line = doc_.line;
  doc.ok = false;
  doc.error = Error{name_, doc.start, std::move(message)};
  sink_(std::move(doc));
  return Next::kStop;
}

}  // namespace

bool LoadYamlFd(int fd, const std::string& name, const LoadLimits& limits, const DocumentSink& sink,
                Error* error, const ItemSink& items) {
  StreamBuffer in(fd);
  return Splitter(&in, name, limits, sink, items).Run(error);
}

bool LoadYamlString(std::string_view text, const std::string& name, const LoadLimits& limits,
                    const DocumentSink& sink, Error* error, const ItemSink& items) {
  StreamBuffer in(text);
  return Splitter(&in, name, limits, sink, items).Run(error);
}

}  // namespace gpulint
