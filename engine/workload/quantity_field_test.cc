// ReadQuantityField: what the API server's decoder (Quantity.UnmarshalJSON)
// makes of a manifest's quantity field, case for case, with exact messages.
#include "engine/workload/quantity_field.h"

#include <catch2/catch.hpp>
#include <string>

namespace gpulint {
namespace {

using Code = QuantityError::Code;
using Type = Value::Type;

struct FieldCase {
  Type type;
  const char* text;
  bool evaluated;       // ReadQuantityField's answer
  const char* value;    // Canonical() when evaluated
  Code code;            // error code otherwise
  const char* message;  // error message otherwise
};

constexpr const char* kTooLarge =
    "quantity is too large to evaluate exactly (a magnitude of 10^29 or more)";

const FieldCase kCases[] = {
    // null decodes to zero (UnmarshalJSON's "null" branch).
    {Type::kNull, "", true, "0", Code::kNone, ""},
    // strings.TrimSpace before ParseQuantity: ASCII and Unicode white space.
    {Type::kString, " 16Gi", true, "16Gi", Code::kNone, ""},
    {Type::kString, "16Gi ", true, "16Gi", Code::kNone, ""},
    {Type::kString, "\t2\n", true, "2", Code::kNone, ""},
    {Type::kString, "500m\xC2\xA0", true, "500m", Code::kNone, ""},  // U+00A0
    {Type::kString,
     "\xE2\x80\x83"
     "1Ki\xE3\x80\x80",
     true, "1Ki", Code::kNone, ""},  // U+2003, U+3000
    // Only the ends are trimmed: a space inside is still refused.
    {Type::kString, " 1 Gi ", false, "", Code::kFormat, "spaces are not allowed in a quantity"},
    // Nothing but white space is the empty string, which ParseQuantity refuses.
    {Type::kString, " \t", false, "", Code::kEmpty, "quantity is empty"},
    {Type::kString, "", false, "", Code::kEmpty, "quantity is empty"},
    // A zero-width space (U+200B) is no white space to Go.
    {Type::kString, "1Gi\xE2\x80\x8B", false, "", Code::kFormat,
     "unexpected \"\xE2\x80\x8B\" after \"1Gi\""},
    // YAML numbers are read from their text.
    {Type::kInt, "1073741824", true, "1073741824", Code::kNone, ""},
    {Type::kFloat, "0.5", true, "500m", Code::kNone, ""},
    // Accepted by the API server, too large to evaluate here.
    {Type::kFloat, "1e30", false, "", Code::kUnrepresentable, kTooLarge},
    {Type::kString, " 1e29", false, "", Code::kUnrepresentable, kTooLarge},
    // Not a quantity at all.
    {Type::kBool, "true", false, "", Code::kFormat,
     "a quantity must be a number or a string, not a bool"},
};

TEST_CASE("ReadQuantityField decodes a field as the API server does", "[quantity]") {
  for (const FieldCase& c : kCases) {
    INFO("input: \"" << c.text << "\" (" << TypeName(c.type) << ")");
    Value v = c.type == Type::kNull ? Value() : Value::Scalar(c.type, c.text);
    Quantity q = Quantity::FromInt(42);
    QuantityError error;
    CHECK(ReadQuantityField(v, &q, &error) == c.evaluated);
    if (c.evaluated) {
      CHECK(q.Canonical() == c.value);
      CHECK(error.code == Code::kNone);
    } else {
      CHECK(error.code == c.code);
      CHECK(error.message == c.message);
    }
    CHECK(AcceptedByApiServer(error) == (c.evaluated || c.code == Code::kUnrepresentable));
  }
}

TEST_CASE("A sequence or mapping is no quantity", "[quantity]") {
  Value list(Value::Type::kSequence);
  Quantity q;
  QuantityError error;
  CHECK_FALSE(ReadQuantityField(list, &q, &error));
  CHECK(error.message == "a quantity must be a number or a string, not a sequence");
}

TEST_CASE("TrimGoSpace trims what strings.TrimSpace trims, and only that", "[quantity]") {
  CHECK(TrimGoSpace("  a b  ") == "a b");
  CHECK(TrimGoSpace("\xC2\x85x\xE2\x80\x8A") == "x");      // U+0085, U+200A
  CHECK(TrimGoSpace("x\xE2\x80\xA6") == "x\xE2\x80\xA6");  // U+2026 (an ellipsis) stays
  CHECK(TrimGoSpace("\xE2\x80\xA8\xE2\x80\xA9") == "");    // U+2028, U+2029
  CHECK(TrimGoSpace("") == "");
}

}  // namespace
}  // namespace gpulint
