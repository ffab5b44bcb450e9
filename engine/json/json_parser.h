// JSON text to a Value: the webhook's AdmissionReview bodies.
#ifndef GPULINT_ENGINE_JSON_JSON_PARSER_H_
#define GPULINT_ENGINE_JSON_JSON_PARSER_H_

#include <cstddef>
#include <functional>
#include <string_view>

#include "engine/base/finding.h"
#include "engine/base/value.h"

namespace gpulint {

// Parses one JSON text (an AdmissionReview body) into a Value, refusing nesting
// deeper than `max_depth` before recursing, duplicate keys, and invalid UTF-8.
// Values carry no marks (webhook findings carry JSON paths); a parse error
// carries its line/column. On failure returns false with *error.
bool ParseJson(std::string_view text, size_t max_depth, Value* out, Error* error);

// Where ParseJsonList sends the items of a List: each item of the root's
// "items" array, as soon as it is read, instead of the tree. A page of 500
// Pods from the API server is then never one tree, only one Pod at a time.
// The item is the sink's to change or keep (the API server leaves the kind
// out of a list's items). The YAML loader's ItemSink (engine/yaml/loader.h)
// does the same for YAML.
using JsonItemSink = std::function<void(Value& item)>;

// ParseJson, with the root's "items" handed to `items` (the root keeps an
// empty "items" array). Items come as they are read, so text that turns out
// invalid is refused after some were handed on; none is handed twice.
bool ParseJsonList(std::string_view text, size_t max_depth, Value* out, Error* error,
                   const JsonItemSink& items);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_JSON_JSON_PARSER_H_
