// The least parse budget (--parse-budget: the tree's bytes in times the
// body's) that each AdmissionReview needs, so that the default can be set
// with room above what real reviews take (bench/parse_budget.sh).
// Usage: parse_budget FILE...   One line per file: its bytes and the least
// whole multiple ParseJsonWithin accepts, without the 1 MiB floor the
// webhook adds.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "engine/base/value.h"
#include "engine/json/json_parser.h"

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    std::string body = text.str();
    size_t least = 0;
    for (size_t n = 1; n <= 1000; ++n) {
      gpulint::Value v;
      gpulint::Error error;
      gpulint::JsonParse r = gpulint::ParseJsonWithin(body, {128, n * body.size()}, &v, &error);
      if (r == gpulint::JsonParse::kInvalid) {
        std::fprintf(stderr, "%s: %s\n", argv[i], error.ToString().c_str());
        return 1;
      }
      if (r == gpulint::JsonParse::kOk) {
        least = n;
        break;
      }
    }
    std::printf("%zu %zu %s\n", body.size(), least, argv[i]);
  }
  return 0;
}
