#include "engine/workload/quantity_field.h"

#include <string>

namespace gpulint {
namespace {

// Length of the white-space character `text` starts with, or 0.
size_t SpaceAt(std::string_view text) {
  if (text.empty()) return 0;
  const unsigned char c = static_cast<unsigned char>(text[0]);
  if (c == ' ' || (c >= '\t' && c <= '\r')) return 1;
  auto starts = [&](std::string_view s) { return text.substr(0, s.size()) == s; };
  if (starts("\xC2\x85") || starts("\xC2\xA0")) return 2;
  if (starts("\xE1\x9A\x80") || starts("\xE2\x80\xA8") || starts("\xE2\x80\xA9") ||
      starts("\xE2\x80\xAF") || starts("\xE2\x81\x9F") || starts("\xE3\x80\x80"))
    return 3;
  // U+2000..U+200A: E2 80 80..8A.
  if (text.size() >= 3 && starts("\xE2\x80") && static_cast<unsigned char>(text[2]) >= 0x80 &&
      static_cast<unsigned char>(text[2]) <= 0x8A)
    return 3;
  return 0;
}

// Length of the white-space character `text` ends with, or 0.
size_t SpaceBefore(std::string_view text) {
  for (size_t len = 1; len <= 3 && len <= text.size(); ++len)
    if (SpaceAt(text.substr(text.size() - len)) == len) return len;
  return 0;
}

}  // namespace

std::string_view TrimGoSpace(std::string_view text) {
  while (size_t n = SpaceAt(text)) text.remove_prefix(n);
  while (size_t n = SpaceBefore(text)) text.remove_suffix(n);
  return text;
}

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
