// JSON text to a Value: the webhook's AdmissionReview bodies.
#ifndef GPULINT_ENGINE_JSON_JSON_PARSER_H_
#define GPULINT_ENGINE_JSON_JSON_PARSER_H_

#include <cstddef>
#include <string_view>

#include "engine/base/finding.h"
#include "engine/base/value.h"

namespace gpulint {

// Parses one JSON text (an AdmissionReview body) into a Value, refusing nesting
// deeper than `max_depth` before recursing, duplicate keys, and invalid UTF-8.
// Values carry no marks (webhook findings carry JSON paths); a parse error
// carries its line/column. On failure returns false with *error.
bool ParseJson(std::string_view text, size_t max_depth, Value* out, Error* error);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_JSON_JSON_PARSER_H_
