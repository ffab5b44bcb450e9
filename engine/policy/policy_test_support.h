// Helpers shared by the policy and inventory tests.
#ifndef GPULINT_ENGINE_POLICY_POLICY_TEST_SUPPORT_H_
#define GPULINT_ENGINE_POLICY_POLICY_TEST_SUPPORT_H_

#include <catch2/catch.hpp>
#include <string>
#include <string_view>

#include "engine/policies.h"
#include "engine/quantity/quantity.h"
#include "tests/golden.h"

namespace gpulint::policy_testing {

inline const std::string kPolicies = testing::SourceDir() + "/testdata/policies/";

inline Quantity Q(std::string_view text) {
  Quantity q;
  QuantityError error;
  INFO(text);
  REQUIRE(Quantity::Parse(text, &q, &error));
  return q;
}

// "policy.yaml:L:C: message", or "" when the policy loads.
inline std::string LoadError(const std::string& text) {
  Policy p;
  Error error;
  if (LoadPolicyText(text, "policy.yaml", &p, &error)) return "";
  return error.ToString();
}

inline Policy MustLoad(const std::string& text) {
  Policy p;
  Error error;
  bool ok = LoadPolicyText(text, "policy.yaml", &p, &error);
  INFO(error.ToString());
  REQUIRE(ok);
  return p;
}

inline const std::string kHeader = "apiVersion: gpulint.io/v1alpha1\nkind: Policy\n";

}  // namespace gpulint::policy_testing

#endif  // GPULINT_ENGINE_POLICY_POLICY_TEST_SUPPORT_H_
