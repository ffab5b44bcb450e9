#include "engine/workload/quantity_field.h"

#include <string>

namespace gpulint {

bool ReadQuantityField(const Value& value, Quantity* out, QuantityError* error) {
  if (value.is_null()) {
    *out = Quantity();
    *error = QuantityError{};
    return true;
  }
  if (!value.is_scalar() || value.type() == Value::Type::kBool) {
    *error = QuantityError{};
    error->code = QuantityError::Code::kFormat;
    error->message =
        std::string("a quantity must be a number or a string, not a ") + TypeName(value.type());
    return false;
  }
  return Quantity::Parse(TrimGoSpace(value.text()), out, error);
}

}  // namespace gpulint
