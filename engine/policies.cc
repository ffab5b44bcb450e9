#include "engine/policies.h"

#include <cstdio>
#include <cstdlib>

#include "engine/rules/rule.h"

namespace gpulint {
namespace {

const PolicyNames& Names() {
  static const PolicyNames* names = new PolicyNames(RuleNames());
  return *names;
}

}  // namespace

bool LoadPolicy(const Value& doc, const std::string& file, Policy* out, Error* error) {
  return LoadPolicy(doc, file, Names(), out, error);
}

bool LoadPolicyFile(const std::string& path, Policy* out, Error* error) {
  return LoadPolicyFile(path, Names(), out, error);
}

bool LoadPolicyText(std::string_view text, const std::string& name, Policy* out, Error* error) {
  return LoadPolicyText(text, name, Names(), out, error);
}

const Policy& DefaultPolicy() {
  static const Policy* policy = [] {
    auto* p = new Policy();
    Error error;
    if (!LoadPolicyText(DefaultPolicyText(), "<default policy>", p, &error)) {
      // The default policy is compiled in and tested; a binary whose default
      // does not load was built wrong, and must not run with no policy at all.
      std::fprintf(stderr, "gpulint: the built-in policy does not load: %s\n",
                   error.ToString().c_str());
      std::abort();
    }
    return p;
  }();
  return *policy;
}

std::string PolicyJsonSchema(PolicySchemaShape shape) { return PolicyJsonSchema(shape, Names()); }

}  // namespace gpulint
