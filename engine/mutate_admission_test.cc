// Mutations of the API server's own bodies and of the golden cases.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "engine/engine_test_support.h"
#include "engine/json/json_parser.h"
#include "engine/mutate/mutate.h"
#include "engine/policies.h"

namespace gpulint {
namespace {

using namespace mutate_testing;  // NOLINT: test helpers
// ---------------------------------------------------------------------------
// The API server's own bodies (testdata/admission), default policy.

// `file`: under testdata/admission ("01-....json", "v1.36/01-....json").
Value AdmissionObject(const std::string& file) {
  std::string body = testing::ReadFile(testing::SourceDir() + "/testdata/admission/" + file);
  REQUIRE_FALSE(body.empty());
  Value review;
  Error error;
  INFO(file << ": " << error.ToString());
  REQUIRE(ParseJson(body, 256, &review, &error));
  const Value* request = review.Find("request");
  REQUIRE(request);
  const Value* object = request->Find("object");
  REQUIRE(object);
  return *object;
}

TEST_CASE("every mutating admission body: the patch applies and a second pass is empty",
          "[mutate][admission]") {
  int bodies = 0;
  const std::string dir = testing::SourceDir() + "/testdata/admission/";
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    std::string name = entry.path().string().substr(dir.size());  // both sets: 1.26's, 1.36's
    if (name.find("mutate") == std::string::npos || entry.path().extension() != ".json") continue;
    ++bodies;
    INFO(name);
    Value object = AdmissionObject(name);
    PatchFor(object, DefaultPolicy(), NoNodes());
    PatchFor(object, DefaultPolicy(), IncidentNodes());
  }
  CHECK(bodies >= 28);
}

TEST_CASE("admission bodies 01, 03, 06, 10, 11, 18 get the documented patches",
          "[mutate][admission]") {
  auto patch = [](const char* file, const Inventory& nodes = NoNodes()) {
    return PatchFor(AdmissionObject(file), DefaultPolicy(), nodes);
  };
  // 01: 500Gi request = limit, 2 GPUs; annotations exist (empty).
  CHECK(
      patch("01-pod-create-apply-mutate.json") ==
      R"([{"op":"replace","path":"/spec/containers/0/resources/requests/memory","value":"502Gi"},)"
      R"({"op":"replace","path":"/spec/containers/0/resources/limits/memory","value":"502Gi"},)"
      R"({"op":"add","path":"/metadata/annotations/gpulint.io~1headroom-added","value":"{\"cuda\":{\"added\":\"2Gi\",\"requests\":\"500Gi\",\"limits\":\"500Gi\"}}"}])");
  // 03: the GPU init container has no memory; the CPU sidecar is hidden from GPUs.
  CHECK(
      patch("03-pod-create-kubectlcreate-initcontainer-limits-only-mutate.json") ==
      R"([{"op":"replace","path":"/spec/containers/0/resources/requests/memory","value":"1032Gi"},)"
      R"({"op":"replace","path":"/spec/containers/0/resources/limits/memory","value":"1032Gi"},)"
      R"({"op":"add","path":"/spec/containers/1/env","value":[{"name":"NVIDIA_VISIBLE_DEVICES","value":"void"}]},)"
      R"({"op":"add","path":"/metadata/annotations/gpulint.io~1headroom-added","value":"{\"trainer\":{\"added\":\"8Gi\",\"requests\":\"1Ti\",\"limits\":\"1Ti\"}}"}])");
  // 06: a Deployment's template, metadata without annotations.
  CHECK(
      patch("06-deployment-create-mutate.json") ==
      R"([{"op":"replace","path":"/spec/template/spec/containers/0/resources/requests/memory","value":"33Gi"},)"
      R"({"op":"replace","path":"/spec/template/spec/containers/0/resources/limits/memory","value":"33Gi"},)"
      R"({"op":"add","path":"/spec/template/metadata/annotations",)"
      R"("value":{"gpulint.io/headroom-added":"{\"server\":{\"added\":\"1Gi\",\"requests\":\"32Gi\",\"limits\":\"32Gi\"}}"}}])");
  // 10: a Job template with a memory limit only (templates are not defaulted).
  CHECK(
      patch("10-job-create-mutate.json") ==
      R"([{"op":"replace","path":"/spec/template/spec/containers/0/resources/limits/memory","value":"508Gi"},)"
      R"({"op":"add","path":"/spec/template/metadata/annotations",)"
      R"("value":{"gpulint.io/headroom-added":"{\"train\":{\"added\":\"8Gi\",\"limits\":\"500Gi\"}}"}}])");
  // 11: GPUs without memory: nothing, unless the nodes give the VRAM.
  CHECK(patch("11-cronjob-create-mutate.json") == "[]");
  CHECK(patch("11-cronjob-create-mutate.json", IncidentNodes()) ==
        VramPatch("1546020454", "/spec/jobTemplate/spec/template/spec/containers/0"));
  // 18: no name, no annotations map.
  CHECK(
      patch("18-pod-create-by-replicaset-controller-mutate-noname.json") ==
      R"([{"op":"replace","path":"/spec/containers/0/resources/requests/memory","value":"33Gi"},)"
      R"({"op":"replace","path":"/spec/containers/0/resources/limits/memory","value":"33Gi"},)"
      R"({"op":"add","path":"/metadata/annotations","value":{"gpulint.io/headroom-added":"{\"server\":{\"added\":\"1Gi\",\"requests\":\"32Gi\",\"limits\":\"32Gi\"}}"}}])");
}

// ---------------------------------------------------------------------------
// Golden cases: testdata/mutations/NAME.yaml, patched, is NAME.mutated.yaml.

// JSON with every mapping's keys sorted: equality as JSON means, marks ignored.
std::string SortedJson(const Value& v) {
  if (v.is_mapping()) {
    std::vector<const Value::Member*> members;
    for (const Value::Member& m : v.members()) members.push_back(&m);
    std::sort(members.begin(), members.end(),
              [](const Value::Member* a, const Value::Member* b) { return a->first < b->first; });
    std::string out = "{";
    for (const Value::Member* m : members) {
      if (out.size() > 1) out += ",";
      AppendJsonString(m->first, &out);
      out += ":" + SortedJson(m->second);
    }
    return out + "}";
  }
  if (v.is_sequence()) {
    std::string out = "[";
    for (const Value& item : v.items()) {
      if (out.size() > 1) out += ",";
      out += SortedJson(item);
    }
    return out + "]";
  }
  return ToJson(v);
}

Value YamlFile(const std::string& path) {
  std::string text = testing::ReadFile(path);
  REQUIRE_FALSE(text.empty());
  INFO(path);
  return Yaml(text);
}

TEST_CASE("golden mutation cases: the patched input is NAME.mutated.yaml", "[mutate][golden]") {
  const std::string dir = testing::SourceDir() + "/testdata/mutations/";
  std::vector<std::string> cases;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (name.size() > 5 && name.substr(name.size() - 5) == ".yaml" &&
        name.find(".mutated.") == std::string::npos)
      cases.push_back(name.substr(0, name.size() - 5));
  }
  std::sort(cases.begin(), cases.end());
  CHECK(cases.size() >= 10);
  for (const std::string& name : cases) {
    INFO(name);
    REQUIRE(fs::exists(dir + name + ".mutated.yaml"));
    // nodes-*: mutated with testdata/nodes/incidents.yaml; the rest with no nodes.
    const Inventory& nodes = name.rfind("nodes-", 0) == 0 ? IncidentNodes() : NoNodes();
    Value input = YamlFile(dir + name + ".yaml");
    Value expected = YamlFile(dir + name + ".mutated.yaml");
    std::vector<PatchOp> ops = Mutate(input, DefaultPolicy(), nodes);
    INFO(PatchToJson(ops));
    Value mutated = input;
    Error error;
    INFO(error.ToString());
    REQUIRE(ApplyPatch(ops, &mutated, &error));
    CHECK(SortedJson(mutated) == SortedJson(expected));
    CHECK(PatchToJson(Mutate(expected, DefaultPolicy(), nodes)) == "[]");
  }
}

}  // namespace
}  // namespace gpulint
