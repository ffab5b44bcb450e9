#include "lint/output/unified_diff.h"

#include <algorithm>
#include <vector>

namespace gpulint {
namespace {

constexpr size_t kContext = 3;

// Lines with their "\n", so that a last line without one differs from the
// same text with one, as it does for diff.
std::vector<std::string_view> Split(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    size_t end = std::min(text.find('\n'), text.size() - 1) + 1;
    out.push_back(text.substr(0, end));
    text.remove_prefix(end);
  }
  return out;
}

enum class Kind { kSame, kDelete, kInsert };
struct Edit {
  Kind kind;
  size_t a, b;  // line index in before (kSame, kDelete) and after (kSame, kInsert)
};

// Myers' O(ND) shortest edit script. Each step keeps only its diagonals
// -d..d, so memory is O(D²) for D differing lines, whatever the file size.
std::vector<Edit> ShortestEdit(const std::vector<std::string_view>& a,
                               const std::vector<std::string_view>& b) {
  const long n = static_cast<long>(a.size()), m = static_cast<long>(b.size());
  const long max = n + m, off = max + 1;
  std::vector<long> v(2 * max + 3, 0);
  std::vector<std::vector<long>> trace;
  for (long d = 0; d <= max; ++d) {
    bool done = false;
    for (long k = -d; k <= d; k += 2) {
      long x = (k == -d || (k != d && v[off + k - 1] < v[off + k + 1])) ? v[off + k + 1]
                                                                         : v[off + k - 1] + 1;
      long y = x - k;
      while (x < n && y < m && a[x] == b[y]) ++x, ++y;
      v[off + k] = x;
      if (x >= n && y >= m) done = true;
    }
    trace.emplace_back(v.begin() + off - d, v.begin() + off + d + 1);
    if (done) break;
  }
  std::vector<Edit> edits;
  long x = n, y = m;
  for (long d = static_cast<long>(trace.size()) - 1; d > 0; --d) {
    const std::vector<long>& prev = trace[d - 1];  // diagonal k at prev[k + d - 1]
    long k = x - y;
    bool down = k == -d || (k != d && prev[k - 1 + d - 1] < prev[k + 1 + d - 1]);
    long prev_k = down ? k + 1 : k - 1;
    long prev_x = prev[prev_k + d - 1], prev_y = prev_x - prev_k;
    while (x > prev_x && y > prev_y) --x, --y, edits.push_back({Kind::kSame, size_t(x), size_t(y)});
    if (down) {
      edits.push_back({Kind::kInsert, size_t(prev_x), size_t(prev_y)});
    } else {
      edits.push_back({Kind::kDelete, size_t(prev_x), size_t(prev_y)});
    }
    x = prev_x, y = prev_y;
  }
  while (x > 0 && y > 0) --x, --y, edits.push_back({Kind::kSame, size_t(x), size_t(y)});
  std::reverse(edits.begin(), edits.end());
  return edits;
}

// "-3,2", "-3" for one line, "-2,0" (the line before) for none.
std::string Range(char sign, size_t first, size_t count) {
  std::string out(1, sign);
  out += std::to_string(count == 0 ? first : first + 1);
  if (count != 1) out += "," + std::to_string(count);
  return out;
}

void AppendLine(char sign, std::string_view line, std::string* out) {
  out->push_back(sign);
  out->append(line);
  if (line.back() != '\n') out->append("\n\\ No newline at end of file\n");
}

}  // namespace

std::string UnifiedDiff(std::string_view before, std::string_view after, std::string_view path) {
  if (before == after) return "";
  std::vector<std::string_view> a = Split(before), b = Split(after);
  std::vector<Edit> edits = ShortestEdit(a, b);
  std::string out = "--- a/" + std::string(path) + "\n+++ b/" + std::string(path) + "\n";
  size_t i = 0;
  while (i < edits.size()) {
    if (edits[i].kind == Kind::kSame) {
      ++i;
      continue;
    }
    // A hunk: from kContext lines before this change to kContext lines after
    // the last change that is at most 2 × kContext unchanged lines from the next.
    size_t start = i >= kContext ? i - kContext : 0;
    while (start < i && edits[start].kind != Kind::kSame) ++start;
    size_t end = i;
    for (size_t same = 0; end < edits.size(); ++end) {
      same = edits[end].kind == Kind::kSame ? same + 1 : 0;
      if (same > 2 * kContext) break;
    }
    end = std::min(end, edits.size());
    while (end > i && edits[end - 1].kind == Kind::kSame) --end;
    size_t stop = std::min(edits.size(), end + kContext);
    size_t a_first = edits[start].a, b_first = edits[start].b, a_count = 0, b_count = 0;
    for (size_t j = start; j < stop; ++j) {
      a_count += edits[j].kind != Kind::kInsert;
      b_count += edits[j].kind != Kind::kDelete;
    }
    out += "@@ " + Range('-', a_first, a_count) + " " + Range('+', b_first, b_count) + " @@\n";
    for (size_t j = start; j < stop; ++j) {
      const Edit& e = edits[j];
      if (e.kind == Kind::kSame) AppendLine(' ', a[e.a], &out);
      if (e.kind == Kind::kDelete) AppendLine('-', a[e.a], &out);
      if (e.kind == Kind::kInsert) AppendLine('+', b[e.b], &out);
    }
    i = stop;
  }
  return out;
}

}  // namespace gpulint
