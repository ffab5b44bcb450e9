// What the output writers share (lint/ only): numbers without locale or
// allocation, and JSON serialized one way for every format that writes it.
#ifndef GPULINT_LINT_OUTPUT_OUTPUT_INTERNAL_H_
#define GPULINT_LINT_OUTPUT_OUTPUT_INTERNAL_H_

#include <charconv>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace gpulint {

// Keys in the order they are set: the formats' key order is part of them.
using json = nlohmann::ordered_json;

// Compact, UTF-8 as is; invalid UTF-8 (a file name, say) becomes U+FFFD
// rather than an exception.
inline std::string DumpJson(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}
inline void AppendNumber(uint64_t n, std::string* out) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, n);
  out->append(buf, end);
}

}  // namespace gpulint

#endif  // GPULINT_LINT_OUTPUT_OUTPUT_INTERNAL_H_
