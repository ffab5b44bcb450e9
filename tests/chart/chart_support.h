// Runs the real helm over charts/gpulint-webhook and hands the rendered
// objects to the tests as JSON, read with the engine's own YAML loader (the
// same one `gpulint check` uses, so no other YAML parser is needed).
#ifndef GPULINT_TESTS_CHART_CHART_SUPPORT_H_
#define GPULINT_TESTS_CHART_CHART_SUPPORT_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace gpulint::chart_test {

using nlohmann::json;

// The release every test installs; its objects are named after it.
inline constexpr const char* kRelease = "gpulint-webhook";

// helm's path, set once by main() before any test runs.
void SetHelm(std::string path);
const std::string& Helm();
std::string SourceDir();
std::string ChartDir();

struct Output {
  int status = -1;  // exit status, or -1 when the command could not run
  std::string out, err;
};
// Runs argv[0] (a path) with `argv`; stdout and stderr are kept apart.
Output RunCommand(const std::vector<std::string>& argv);

struct Rendered {
  Output helm;
  std::vector<json> objects;        // every non-empty document, in order
  std::vector<std::string> errors;  // documents the loader could not read
};
// `helm template kRelease CHART --namespace NS ARGS...`.
Rendered Render(const std::vector<std::string>& args, const std::string& ns);
// `helm lint --strict CHART --namespace NS ARGS...`.
Output Lint(const std::vector<std::string>& args, const std::string& ns);

// A set of values the chart is rendered and linted with, and what it implies.
struct ValueSet {
  std::string name;
  std::vector<std::string> args;  // helm flags: --set ..., -f FILE
  std::string ns = "gpu-system";
  bool cert_manager = false;
  std::string failure_policy = "Fail";
  // The webhook registers its configurations (webhook.selfRegister): helm
  // renders them empty, and whole in a ConfigMap for gpulint-webhook --register.
  bool self_register = true;
  std::string mode = "audit";  // the cluster's mode
  // webhook.mutating.validatePods: pod CREATEs go to /admit, not /validate.
  bool validate_pods = false;
};
// Defaults, cert-manager (own CA and a given issuer), ServiceMonitor,
// failurePolicy Ignore, another namespace, tests/chart/values-production.yaml,
// helm registering the webhooks, warn mode, and one call per pod.
const std::vector<ValueSet>& ValueSets();

// The first object of `kind` (named `name` when one is given), or nullptr.
const json* FindObject(const Rendered& rendered, std::string_view kind,
                       std::string_view name = {});
std::vector<const json*> FindObjects(const Rendered& rendered, std::string_view kind);
// The webhook configurations as the API server ends up holding them: from the
// registration ConfigMap (webhook.selfRegister), else as rendered. Each
// object's documents in order (validating first); empty when none.
std::vector<json> Configurations(const Rendered& rendered);
// The objects of the YAML documents in `text`; fails the test on an error.
std::vector<json> YamlObjects(const std::string& text);
// The value at a JSON pointer ("/spec/replicas"), or null when it is absent.
const json& At(const json& value, const std::string& pointer);
// Every label of `selector` (matchLabels) is on `labels`, and there is one.
bool Selects(const json& selector, const json& labels);
bool Contains(const json& list, const json& item);
// A Secret's data value as bytes.
std::string Base64Decode(const std::string& text);
// The string, or "" for any other value.
std::string Str(const json& value);

}  // namespace gpulint::chart_test

#endif  // GPULINT_TESTS_CHART_CHART_SUPPORT_H_
