// Policies as the front ends load them: the policy layer's loaders
// (engine/policy/policy.h) with the names of the rules handed in, so that a
// policy that names no rule, or one that does not exist, is told apart.
#ifndef GPULINT_ENGINE_POLICIES_H_
#define GPULINT_ENGINE_POLICIES_H_

#include <string>
#include <string_view>
#include <vector>

#include "engine/base/finding.h"
#include "engine/base/value.h"
#include "engine/policy/policy.h"
#include "engine/policy/policy_schema.h"

namespace gpulint {

// Every error of a policy that does not load, in file order (LoadPolicy in
// engine/policy/policy.h).
bool LoadPolicy(const Value& doc, const std::string& file, Policy* out, std::vector<Error>* errors);
bool LoadPolicyFile(const std::string& path, Policy* out, std::vector<Error>* errors);
bool LoadPolicyText(std::string_view text, const std::string& name, Policy* out,
                    std::vector<Error>* errors);
// The same for a caller with room for one line: the first error, its
// message ending "; and N more errors" when there are more.
bool LoadPolicy(const Value& doc, const std::string& file, Policy* out, Error* error);
bool LoadPolicyFile(const std::string& path, Policy* out, Error* error);
bool LoadPolicyText(std::string_view text, const std::string& name, Policy* out, Error* error);
// The policy compiled into both binaries (policies/default.yaml). A binary
// whose default does not load was built wrong: it stops, with the reason.
const Policy& DefaultPolicy();
// The policy format as JSON Schema, the rule names listed under spec.rules.
std::string PolicyJsonSchema(PolicySchemaShape shape);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_POLICIES_H_
