// AdmissionReview bodies to the engine's Value tree, CPU time per body: the
// parser the webhook uses (ParseJson: RapidJSON, nlohmann for what it
// refuses) against nlohmann's alone, which it replaced.
// Usage: json_parse ROUNDS FILE...   Prints one line per parser.
// JSON_PARSE_ONLY=fast measures ParseJson alone (for a profiler).
// JSON_PARSE_BUDGET=N parses as the webhook does, within a tree budget of N
// times each body (ParseJsonWithin; N=0: ParseJson).
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/json/json_parser.h"
#include "engine/json/json_tree_builder.h"
#include "engine/yaml/loader.h"

namespace {

double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

template <typename Parse>
void Measure(const char* name, const std::vector<std::string>& bodies, int rounds, Parse parse) {
  size_t bytes = 0;
  double start = CpuSeconds();
  for (int r = 0; r < rounds; ++r) {
    for (const std::string& body : bodies) {
      gpulint::Value v;
      gpulint::Error error;
      if (!parse(body, &v, &error)) {
        std::fprintf(stderr, "%s: %s\n", name, error.ToString().c_str());
        std::exit(1);
      }
      bytes += body.size();
    }
  }
  double seconds = CpuSeconds() - start;
  double n = static_cast<double>(bodies.size()) * rounds;
  std::printf("%-10s %8.2f us/body %8.1f MB/s (%zu bytes per body)\n", name, seconds / n * 1e6,
              static_cast<double>(bytes) / seconds / 1e6, bytes / static_cast<size_t>(n));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: json_parse ROUNDS FILE...\n");
    return 2;
  }
  int rounds = std::atoi(argv[1]);
  std::vector<std::string> bodies;
  for (int i = 2; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    bodies.push_back(text.str());
  }
  const char* budget_text = std::getenv("JSON_PARSE_BUDGET");
  size_t budget = budget_text ? std::strtoul(budget_text, nullptr, 10) : 0;
  for (int pass = 0; pass < 2; ++pass) {  // the first pass warms caches and the allocator
    Measure("ParseJson", bodies, rounds, [budget](const std::string& b, gpulint::Value* v,
                                                  gpulint::Error* e) {
      if (budget == 0) return gpulint::ParseJson(b, 256, v, e);
      gpulint::JsonLimits limits{256, budget * b.size()};
      return gpulint::ParseJsonWithin(b, limits, v, e) == gpulint::JsonParse::kOk;
    });
    if (const char* only = std::getenv("JSON_PARSE_ONLY"); only && std::string(only) == "fast") continue;
    Measure("nlohmann", bodies, rounds, [](const std::string& b, gpulint::Value* v, gpulint::Error* e) {
      return gpulint::ParseJsonNlohmann(b, 256, v, e);
    });
  }
  return 0;
}
