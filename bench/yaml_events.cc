// The ceiling for `gpulint check`: libyaml's event parser alone, pulling every
// event of each file and building nothing. Prints "bytes events documents".
// With --per-document, each document (cut at "---" lines, as gpulint's loader
// does) gets a parser of its own: the same ceiling with gpulint's isolation of
// one document from the next.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace {

bool PullAll(const char* path, long long* bytes, long long* events, long long* docs) {
  FILE* f = std::fopen(path, "rb");
  if (f == nullptr) {
    std::perror(path);
    return false;
  }
  yaml_parser_t parser;
  yaml_parser_initialize(&parser);
  yaml_parser_set_input_file(&parser, f);
  bool ok = true;
  for (;;) {
    yaml_event_t event;
    if (!yaml_parser_parse(&parser, &event)) {
      std::fprintf(stderr, "%s: %s\n", path, parser.problem ? parser.problem : "parse error");
      ok = false;
      break;
    }
    ++*events;
    if (event.type == YAML_DOCUMENT_START_EVENT) ++*docs;
    bool end = event.type == YAML_STREAM_END_EVENT;
    yaml_event_delete(&event);
    if (end) break;
  }
  *bytes += static_cast<long long>(parser.offset);
  yaml_parser_delete(&parser);
  std::fclose(f);
  return ok;
}

bool PullString(const char* data, size_t size, long long* events, long long* docs) {
  yaml_parser_t parser;
  yaml_parser_initialize(&parser);
  yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(data), size);
  bool ok = true;
  for (;;) {
    yaml_event_t event;
    if (!yaml_parser_parse(&parser, &event)) {
      ok = false;
      break;
    }
    ++*events;
    if (event.type == YAML_DOCUMENT_START_EVENT) ++*docs;
    bool end = event.type == YAML_STREAM_END_EVENT;
    yaml_event_delete(&event);
    if (end) break;
  }
  yaml_parser_delete(&parser);
  return ok;
}

bool PullEachDocument(const char* path, long long* bytes, long long* events, long long* docs) {
  // Mapped, not read: the timing is of the parser, not of a copy.
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    std::perror(path);
    if (fd >= 0) close(fd);
    return false;
  }
  size_t size = static_cast<size_t>(st.st_size);
  void* map = size ? mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0) : nullptr;
  close(fd);
  if (map == MAP_FAILED) {
    std::perror(path);
    return false;
  }
  std::string_view text(static_cast<const char*>(map), size);
  *bytes += static_cast<long long>(size);
  size_t begin = 0;
  bool ok = true;
  while (begin < text.size()) {
    size_t end = text.find("\n---", begin);
    end = end == std::string_view::npos ? text.size() : end + 1;
    ok &= PullString(text.data() + begin, end - begin, events, docs);
    begin = end;
  }
  if (map != nullptr) munmap(map, size);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  long long bytes = 0, events = 0, docs = 0;
  int rc = 0;
  bool per_document = argc > 1 && std::strcmp(argv[1], "--per-document") == 0;
  for (int i = per_document ? 2 : 1; i < argc; ++i) {
    bool ok = per_document ? PullEachDocument(argv[i], &bytes, &events, &docs)
                           : PullAll(argv[i], &bytes, &events, &docs);
    if (!ok) rc = 1;
  }
  std::printf("%lld %lld %lld\n", bytes, events, docs);
  return rc;
}
