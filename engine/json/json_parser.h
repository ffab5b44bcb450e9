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

// What one parse may build, checked as the tree is built, so that a text is
// refused before it grows rather than after.
struct JsonLimits {
  size_t max_depth = 128;
  // Bytes the tree may take: each value's own size (sizeof(Value), and a
  // key's std::string beside it in a mapping), every string too long to sit
  // inside its value, the index of a large mapping's keys, and the builder's
  // stacks of the containers still open. Ten bytes of text can so cost more
  // than a hundred ("0," is a 48-byte value). 0: no limit.
  size_t max_tree_bytes = 0;
};
enum class JsonParse : uint8_t {
  kOk,
  kInvalid,     // not JSON, or nested deeper than max_depth: *error says where
  kOverBudget,  // JSON, maybe, but its tree would take more than max_tree_bytes
};
// ParseJson within `limits`. Over the budget, *error says how far it got (a
// JSON pointer) and what the budget was; nothing of the tree is kept.
JsonParse ParseJsonWithin(std::string_view text, const JsonLimits& limits, Value* out,
                          Error* error);

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
