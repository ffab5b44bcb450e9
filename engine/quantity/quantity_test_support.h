// Helpers for the quantity tests.
#ifndef GPULINT_ENGINE_QUANTITY_QUANTITY_TEST_SUPPORT_H_
#define GPULINT_ENGINE_QUANTITY_QUANTITY_TEST_SUPPORT_H_

#include <catch2/catch.hpp>
#include <string>

#include "engine/quantity/quantity.h"

namespace gpulint::quantity_testing {

// `text` parsed, or the test fails with the parser's message.
inline Quantity MustParse(const std::string& text) {
  Quantity q;
  QuantityError error;
  bool ok = Quantity::Parse(text, &q, &error);
  INFO("parsing \"" << text << "\": " << error.message);
  REQUIRE(ok);
  return q;
}

}  // namespace gpulint::quantity_testing

#endif  // GPULINT_ENGINE_QUANTITY_QUANTITY_TEST_SUPPORT_H_
