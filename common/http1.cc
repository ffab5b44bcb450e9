#include "common/http1.h"

#include <strings.h>

#include <algorithm>
#include <cstring>

namespace gpulint {

void HttpHeaders::Add(std::string_view name, std::string_view value) {
  fields_.emplace_back(std::string(name), std::string(value));
}

void HttpHeaders::Set(std::string_view name, std::string_view value) {
  std::erase_if(fields_, [name](const Field& f) { return EqualsIgnoreCase(f.first, name); });
  Add(name, value);
}

size_t HttpHeaders::Count(std::string_view name) const {
  return static_cast<size_t>(std::count_if(fields_.begin(), fields_.end(), [name](const Field& f) {
    return EqualsIgnoreCase(f.first, name);
  }));
}

std::string_view HttpHeaders::Get(std::string_view name, size_t index) const {
  for (const Field& f : fields_)
    if (EqualsIgnoreCase(f.first, name) && index-- == 0) return f.second;
  return {};
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

bool HasToken(std::string_view list, std::string_view token) {
  while (!list.empty()) {
    size_t comma = list.find(',');
    if (EqualsIgnoreCase(TrimBlanks(list.substr(0, comma)), token)) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

bool IsToken(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum && (c == '\0' || std::strchr("!#$%&'*+-.^_`|~", c) == nullptr)) return false;
  }
  return true;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

size_t FindHeadEnd(std::string_view buffer, size_t* scanned) {
  // Empty lines before the start line are allowed (RFC 9112, 2.2).
  size_t start = buffer.find_first_not_of("\r\n");
  if (start == std::string_view::npos) return 0;
  size_t pos = std::max(*scanned, start);
  while (pos < buffer.size()) {
    const void* hit = std::memchr(buffer.data() + pos, '\n', buffer.size() - pos);
    if (!hit) break;
    size_t i = static_cast<const char*>(hit) - buffer.data();
    // `start` is neither CR nor LF, so these look-backs stay inside the head.
    if (buffer[i - 1] == '\n' || (buffer[i - 1] == '\r' && i - 1 > start && buffer[i - 2] == '\n'))
      return i + 1;
    pos = i + 1;
  }
  *scanned = buffer.size();
  return 0;
}

std::string_view NextLine(std::string_view text, size_t* pos) {
  size_t end = text.find('\n', *pos);
  if (end == std::string_view::npos) end = text.size();
  std::string_view line = text.substr(*pos, end - *pos);
  *pos = end + 1;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

bool ParseFieldLines(std::string_view head, size_t* pos, HttpHeaders* headers, std::string* why) {
  for (size_t number = 1; *pos < head.size(); ++number) {
    std::string_view line = NextLine(head, pos);
    if (line.empty()) break;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos || !IsToken(line.substr(0, colon))) {
      *why = "malformed header line " + std::to_string(number) + ": expected Name: value";
      return false;
    }
    std::string_view value = TrimBlanks(line.substr(colon + 1));
    if (value.find_first_of(std::string_view("\r\0", 2)) != std::string_view::npos) {
      *why = "header line " + std::to_string(number) + " has a control character";
      return false;
    }
    headers->Add(line.substr(0, colon), value);
  }
  return true;
}

bool ParseContentLength(std::string_view text, uint64_t* length) {
  if (text.empty() || text.size() > 19) return false;  // 19 digits cannot overflow
  uint64_t n = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  *length = n;
  return true;
}

std::string_view TrimBlanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string QuotedForMessage(std::string_view value) {
  std::string v(value.substr(0, 64));
  for (char& c : v)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return "\"" + v + (value.size() > 64 ? "...\"" : "\"");
}

}  // namespace gpulint
