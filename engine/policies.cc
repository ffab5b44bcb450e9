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

// The first of `errors`, saying how many more there are.
bool FirstOf(bool loaded, const std::vector<Error>& errors, Error* error) {
  if (loaded) return true;
  *error = errors.front();
  if (errors.size() > 1)
    error->message += "; and " + std::to_string(errors.size() - 1) +
                      (errors.size() == 2 ? " more error" : " more errors");
  return false;
}

}  // namespace

bool LoadPolicy(const Value& doc, const std::string& file, Policy* out,
                std::vector<Error>* errors) {
  return LoadPolicy(doc, file, Names(), out, errors);
}

bool LoadPolicyFile(const std::string& path, Policy* out, std::vector<Error>* errors) {
  return LoadPolicyFile(path, Names(), out, errors);
}

bool LoadPolicyText(std::string_view text, const std::string& name, Policy* out,
                    std::vector<Error>* errors) {
  return LoadPolicyText(text, name, Names(), out, errors);
}

bool LoadPolicy(const Value& doc, const std::string& file, Policy* out, Error* error) {
  std::vector<Error> errors;
  return FirstOf(LoadPolicy(doc, file, out, &errors), errors, error);
}

bool LoadPolicyFile(const std::string& path, Policy* out, Error* error) {
  std::vector<Error> errors;
  return FirstOf(LoadPolicyFile(path, out, &errors), errors, error);
}

bool LoadPolicyText(std::string_view text, const std::string& name, Policy* out, Error* error) {
  std::vector<Error> errors;
  return FirstOf(LoadPolicyText(text, name, out, &errors), errors, error);
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
