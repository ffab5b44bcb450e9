// The Value tree ParseJson builds, in bytes and time: what it keeps per value
// once parsed, what it peaks at while it parses, and CPU per parse. Built
// against two trees (this one, and an older checkout's: it uses only
// ParseJson and Value's public accessors) it compares them; bench/RESULTS.md
// has both. Every C++ allocation is counted through the operators below
// (the bytes asked for, without the allocator's own overhead).
//
// Usage: value_tree ROUNDS [FILE...]
// Besides the files: two bodies of the review that made the webhook's tree
// compact (issue 32), 3 MiB each: an AdmissionReview whose object holds an
// array of 0s, and a Pod with one container of a million empty args.
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <new>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "engine/base/value.h"
#include "engine/json/json_parser.h"

namespace {

size_t g_live = 0;  // one thread: no atomics
size_t g_peak = 0;
constexpr size_t kHeader = 16;  // keeps the alignment malloc gives

void* Allocate(size_t n) {
  void* p = std::malloc(n + kHeader);
  if (!p) throw std::bad_alloc();
  *static_cast<size_t*>(p) = n;
  g_live += n;
  if (g_live > g_peak) g_peak = g_live;
  return static_cast<char*>(p) + kHeader;
}

void Free(void* p) {
  if (!p) return;
  char* block = static_cast<char*>(p) - kHeader;
  g_live -= *reinterpret_cast<size_t*>(block);
  std::free(block);
}

}  // namespace

void* operator new(size_t n) { return Allocate(n); }
void* operator new[](size_t n) { return Allocate(n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  try {
    return Allocate(n);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept { Free(p); }
void operator delete[](void* p) noexcept { Free(p); }
void operator delete(void* p, size_t) noexcept { Free(p); }
void operator delete[](void* p, size_t) noexcept { Free(p); }

namespace {

double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// Values in the tree: every node, a mapping's member values included.
size_t CountValues(const gpulint::Value& root) {
  size_t n = 0;
  std::vector<const gpulint::Value*> stack = {&root};
  while (!stack.empty()) {
    const gpulint::Value* v = stack.back();
    stack.pop_back();
    ++n;
    for (const gpulint::Value& item : v->items()) stack.push_back(&item);
    for (const gpulint::Value::Member& m : v->members()) stack.push_back(&m.second);
  }
  return n;
}

bool Parse(const std::string& body, gpulint::Value* out) {
  gpulint::Error error;
  if (gpulint::ParseJson(body, 128, out, &error)) return true;
  std::fprintf(stderr, "value_tree: %s\n", error.ToString().c_str());
  return false;
}

void Measure(const std::string& name, const std::string& body, int rounds) {
  size_t before = g_live;
  g_peak = g_live;
  size_t kept = 0, peak = 0, values = 0;
  {
    gpulint::Value v;
    if (!Parse(body, &v)) std::exit(1);
    kept = g_live - before;
    peak = g_peak - before;
    values = CountValues(v);
  }
  double start = CpuSeconds();
  for (int r = 0; r < rounds; ++r) {
    gpulint::Value v;
    Parse(body, &v);
  }
  double seconds = (CpuSeconds() - start) / rounds;
  double n = static_cast<double>(values);
  double size = static_cast<double>(body.size());
  std::printf("| %s | %zu | %zu | %.1f | %.1f | %.1f | %.1f | %.1f | %.0f |\n", name.c_str(),
              body.size(), values, static_cast<double>(kept) / n, static_cast<double>(peak) / n,
              static_cast<double>(kept) / size, static_cast<double>(peak) / size,
              seconds * 1e6, size / seconds / 1e6);
}

std::string Review(const std::string& object) {
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":")"
         R"(b8d6c1e2-0000-4000-8000-000000000032","kind":{"group":"","version":"v1","kind":"Pod"},)"
         R"("operation":"CREATE","namespace":"t","object":)" +
         object + "}}";
}

// Fills `text` with `unit` (and a comma between) until it holds `bytes`.
std::string Repeat(const std::string& unit, size_t bytes) {
  std::string text;
  text.reserve(bytes + unit.size() + 1);
  while (text.size() + unit.size() + 1 < bytes) text += text.empty() ? unit : "," + unit;
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: value_tree ROUNDS [FILE...]\n");
    return 2;
  }
  int rounds = std::atoi(argv[1]);
  std::vector<std::pair<std::string, std::string>> bodies;
  for (int i = 2; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    std::string name = argv[i];
    bodies.emplace_back(name.substr(name.rfind('/') + 1), text.str());
  }
  constexpr size_t kBody = 3u << 20;
  bodies.emplace_back("3 MiB of 0s in a review",
                      Review(R"({"apiVersion":"v1","kind":"Pod","x":[)" +
                             Repeat("0", kBody - 400) + "]}"));
  bodies.emplace_back(
      "a Pod, one container of 1M empty args",
      Review(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"giant"},"spec":{)"
             R"("containers":[{"name":"c","image":"busybox","args":[)" +
             Repeat("\"\"", 3000000) + "]}]}}"));
  std::printf("| body | bytes | values | kept B/value | peak B/value | kept / body | "
              "peak / body | CPU us/parse | MB/s |\n|---|---|---|---|---|---|---|---|---|\n");
  for (const auto& [name, body] : bodies) {
    // The large ones in fewer rounds: each is a second's parse.
    Measure(name, body, body.size() > (1u << 20) ? std::max(1, rounds / 100) : rounds);
  }
  return 0;
}
