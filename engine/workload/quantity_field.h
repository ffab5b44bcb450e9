// A quantity field of a manifest, read the way the API server decodes one
// (Quantity.UnmarshalJSON in k8s.io/apimachinery): null is zero, surrounding
// white space is trimmed (strings.TrimSpace), and a YAML number is read from
// its text. ParseQuantity itself (Quantity::Parse) refuses all three.
#ifndef GPULINT_ENGINE_WORKLOAD_QUANTITY_FIELD_H_
#define GPULINT_ENGINE_WORKLOAD_QUANTITY_FIELD_H_

#include <string_view>

#include "engine/base/value.h"
#include "engine/quantity/quantity.h"
#include "engine/quantity/quantity_apiserver.h"  // TrimGoSpace

namespace gpulint {

// Reads `value` as the API server would. True when the value is accepted and
// evaluated (*out set, *error cleared). False otherwise, with *error saying
// why; an error of code kUnrepresentable means the API server accepts the
// value but it is too large to evaluate here (see AcceptedByApiServer).
bool ReadQuantityField(const Value& value, Quantity* out, QuantityError* error);

// Whether a field that ReadQuantityField answered with `error` is stored by the
// API server (it is unless the text is refused).
inline bool AcceptedByApiServer(const QuantityError& error) {
  return error.code == QuantityError::Code::kNone ||
         error.code == QuantityError::Code::kUnrepresentable;
}

}  // namespace gpulint

#endif  // GPULINT_ENGINE_WORKLOAD_QUANTITY_FIELD_H_
