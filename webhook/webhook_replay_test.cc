// Replays the bodies kube-apiserver sent (testdata/admission) over real HTTPS
// and checks the answers its README asks for, against the engine called
// directly: the webhook must add transport, never verdicts.
#include <algorithm>

#include <catch2/catch.hpp>

#include "engine/engine.h"
#include "engine/json/json_parser.h"
#include "engine/mutate/mutate.h"
#include "engine/yaml/loader.h"
#include "tests/webhook_test_support.h"

namespace gpulint::webhook_test {
namespace {

// The request.object (or another field of the request) of a captured body,
// as the engine reads it.
Value ObjectOf(const std::string& body, std::string_view field = "object") {
  Value root;
  Error error;
  REQUIRE(ParseJson(body, 128, &root, &error));
  const Value* object = root.Find("request")->Find(field);
  REQUIRE(object != nullptr);
  return *object;
}

Inventory NoNodes() { return BuildInventory(DefaultPolicy(), {}); }

// Allowed with nothing else: no patch, no status, no warnings.
void CheckUntouched(const Json& response) {
  CHECK(response == Json{{"uid", response["uid"]}, {"allowed", true}});
}

std::string Basename(const std::string& path) { return fs::path(path).filename().string(); }

// What /validate must say: denied exactly when the engine finds an error that
// the UPDATE's oldObject (`old`) does not have too (ratcheting, on by
// default), every such error's rule named in status.message, every other
// finding, and each error the old object had, a warning.
void CheckValidate(const Json& response, std::vector<Finding> findings, std::vector<Finding> old) {
  size_t errors = 0, others = 0;
  for (Finding& f : findings) {
    auto had = std::find_if(old.begin(), old.end(), [&](const Finding& o) {
      return o.rule == f.rule && o.path == f.path && o.message == f.message;
    });
    if (f.severity == Severity::kError && had != old.end()) {
      old.erase(had);
      f.severity = Severity::kWarning;  // existing: a warning
    }
    (f.severity == Severity::kError ? errors : others)++;
  }
  CHECK(response["allowed"] == (errors == 0));
  if (errors) {
    CHECK(response["status"]["code"] == 403);
    std::string message = response["status"]["message"];
    for (const Finding& f : findings)
      if (f.severity == Severity::kError) CHECK_THAT(message, Catch::Contains(f.rule));
  } else {
    CHECK_FALSE(response.contains("status"));
  }
  size_t warnings = response.contains("warnings") ? response["warnings"].size() : 0;
  CHECK(warnings == std::min<size_t>(others, kMaxWarnings));
  if (warnings)
    for (const auto& w : response["warnings"]) CHECK(w.get<std::string>().size() <= kMaxWarningBytes);
}

// What /mutate must say: the engine's own patch, base64, with its type;
// nothing for a Pod or Job UPDATE, whose pod spec the API server keeps frozen.
void CheckMutate(const Json& response, const Json& request, const Value& object) {
  std::vector<PatchOp> ops = Mutate(object, DefaultPolicy(), NoNodes());
  std::string kind = request["kind"]["kind"];
  if (request["operation"] == "UPDATE" && (kind == "Pod" || kind == "Job")) ops.clear();
  CHECK(response["allowed"] == true);
  if (ops.empty()) {
    CHECK_FALSE(response.contains("patch"));
    CHECK_FALSE(response.contains("patchType"));
    return;
  }
  CHECK(response["patchType"] == "JSONPatch");
  CHECK(DecodeBase64(response["patch"]) == PatchToJson(ops));
  Value patched = object;
  Error error;
  INFO(error.message);
  CHECK(ApplyPatch(ops, &patched, &error));
}

TEST_CASE("every captured review is answered over HTTPS as the engine judges it",
          "[webhook][replay]") {
  TestServer s;
  std::vector<std::string> files = CapturedReviews();
  REQUIRE(files.size() == 20);
  std::vector<std::string> v136 = CapturedReviews("v1.36");
  REQUIRE(v136.size() == 25);
  files.insert(files.end(), v136.begin(), v136.end());
  for (const std::string& file : files) {
    INFO(Basename(file));
    std::string body = ReadFile(file);
    Json sent = Json::parse(body);
    Value object = ObjectOf(body);
    // Every body goes to /validate, for its verdict, and to /mutate, for its patch.
    for (const char* endpoint : {"validate", "mutate"}) {
      INFO(endpoint);
      Json answer = s.Review(endpoint, body);
      CHECK(answer["apiVersion"] == sent["apiVersion"]);
      CHECK(answer["kind"] == "AdmissionReview");
      CHECK(answer["response"]["uid"] == sent["request"]["uid"]);
      bool resize = sent["request"].value("subResource", "") == "resize";
      std::vector<Finding> old;
      if (sent["request"].value("operation", "") == "UPDATE")
        old = Evaluate(ObjectOf(body, "oldObject"), "", DefaultPolicy(), NoNodes());
      if (std::string(endpoint) == "validate")
        CheckValidate(answer["response"], Evaluate(object, "", DefaultPolicy(), NoNodes()), old);
      else if (resize)
        CheckUntouched(answer["response"]);
      else
        CheckMutate(answer["response"], sent["request"], object);
    }
  }
}

// The body of the capture numbered `prefix` ("16-") in `set`.
std::string CaptureBody(const std::string& prefix, const std::string& set) {
  for (const std::string& file : CapturedReviews(set))
    if (Basename(file).rfind(prefix, 0) == 0) return ReadFile(file);
  FAIL("no capture " << prefix << " in set '" << set << "'");
  return {};
}

Json ValidateCapture(TestServer& s, const std::string& prefix, const std::string& set = "") {
  return s.Review("validate", CaptureBody(prefix, set))["response"];
}

// Each set holds the same requests, made by the same commands, 1.26's and
// 1.36's: the README's verdicts hold for both.
TEST_CASE("the README's verdicts for the captured reviews", "[webhook][replay]") {
  TestServer s;
  std::string set = GENERATE(from_range(CaptureSets()));
  INFO("set '" << set << "'");
  SECTION("16: GPU requests 1, limits 2 is denied") {
    Json r = ValidateCapture(s, "16-", set);
    CHECK(r["allowed"] == false);
    CHECK(r["status"]["code"] == 403);
    CHECK_THAT(r["status"]["message"].get<std::string>(),
               Catch::StartsWith("gpu-request-limit-mismatch (spec.containers[0].resources."));
  }
  SECTION("17: a GPU of 500m is denied") {
    Json r = ValidateCapture(s, "17-", set);
    CHECK(r["allowed"] == false);
    CHECK_THAT(r["status"]["message"].get<std::string>(), Catch::StartsWith("gpu-fractional ("));
  }
  SECTION("05: a Pod UPDATE gets no patch, though its CREATE would") {
    std::string body = CaptureBody("05-", set);
    REQUIRE_FALSE(Mutate(ObjectOf(body), DefaultPolicy(), NoNodes()).empty());
    CHECK_FALSE(s.Review("mutate", body)["response"].contains("patch"));
    Json created = Json::parse(body);
    created["request"]["operation"] = "CREATE";
    created["request"]["oldObject"] = nullptr;
    CHECK(s.Review("mutate", created.dump())["response"].contains("patch"));
  }
  SECTION("03: limits only, requests defaulted by the API server: no mismatch") {
    Json r = ValidateCapture(s, "03-", set);
    CHECK(r["allowed"] == true);
    CHECK_THAT(r.dump(), !Catch::Contains("gpu-request-limit-mismatch"));
  }
  SECTION("06-12: findings in templates carry the template's path") {
    size_t seen = 0;
    for (const std::string& file : CapturedReviews(set)) {
      std::string name = Basename(file);
      if (name < "06-" || name >= "13-") continue;
      INFO(name);
      std::string body = ReadFile(file);
      std::string text = s.Review("validate", body)["response"].dump();
      std::string prefix = name.find("cronjob") != std::string::npos
                               ? "spec.jobTemplate.spec.template.spec."
                               : "spec.template.spec.";
      for (const Finding& f : Evaluate(ObjectOf(body), "", DefaultPolicy(), NoNodes())) {
        ++seen;
        CHECK_THAT(f.path, Catch::StartsWith(prefix));
        // JSON-escaped in the answer, as the finding text is.
        CHECK_THAT(text, Catch::Contains(f.rule + " (" + Json(f.path).dump().substr(1, 20)));
      }
    }
    CHECK(seen > 0);
  }
}

// 1.36's resizes (pods/resize) of pods on a100-80g-0, judged with the nodes
// of the same API server (nodes-list.json). The API server refuses a resize
// past the node's allocatable (1157221112Ki) itself; 1100Gi is below it, and
// past what the node keeps free.
TEST_CASE("21 and 22: an in-place resize is judged on the pod's own node", "[webhook][replay]") {
  TestServer s([](ServerOptions& o, const TempDir& dir) {
    WriteFileAtomic(dir / "nodes.json", ReadFile(AdmissionDir() + "/nodes-list.json"));
    o.nodes_file = dir / "nodes.json";
  });
  const std::string set = "v1.36";
  SECTION("21: a container's 1100Gi does not fit a100-80g-0, the node the pod runs on") {
    Json r = ValidateCapture(s, "21-", set);
    CHECK(r["allowed"] == false);
    CHECK(r["status"]["code"] == 403);
    CHECK_THAT(r["status"]["message"].get<std::string>(),
               Catch::StartsWith("exceeds-allocatable (spec.containers[0].resources.requests.memory): "
                                 "the pod fits on none of its 1 candidate node: 1 insufficient "
                                 "memory: node \"a100-80g-0\": memory request 1100Gi"));
  }
  SECTION("22: a pod-level 1100Gi does not fit it either") {
    Json r = ValidateCapture(s, "22-", set);
    CHECK(r["allowed"] == false);
    CHECK_THAT(
        r["status"]["message"].get<std::string>(),
        Catch::StartsWith("exceeds-allocatable (spec.resources.requests.memory): the pod fits "
                          "on none of its 1 candidate node: 1 insufficient memory: node "
                          "\"a100-80g-0\": memory request 1100Gi"));
  }
  SECTION("the same pods before the resize are allowed") {
    for (const char* n : {"21-", "22-"}) {
      Json sent = Json::parse(CaptureBody(n, set));
      REQUIRE(sent["request"]["subResource"] == "resize");
      sent["request"]["object"] = sent["request"]["oldObject"];
      CHECK(s.Review("validate", sent.dump())["response"]["allowed"] == true);
    }
  }
}

TEST_CASE("23 to 25: what a 1.28 server could not send", "[webhook][replay]") {
  TestServer s([](ServerOptions& o, const TempDir& dir) {
    WriteFileAtomic(dir / "nodes.json", ReadFile(AdmissionDir() + "/nodes-list.json"));
    o.nodes_file = dir / "nodes.json";
  });
  SECTION("23: a pod-level request is what the node must hold") {
    Json sent = Json::parse(CaptureBody("23-", "v1.36"));
    REQUIRE(sent["request"]["object"]["spec"]["resources"]["requests"]["memory"] == "64Gi");
    CHECK(s.Review("validate", sent.dump())["response"]["allowed"] == true);
    // The containers ask no memory; 1100Gi at pod level is what is judged.
    sent["request"]["object"]["spec"]["resources"]["requests"]["memory"] = "1100Gi";
    sent["request"]["object"]["spec"]["resources"]["limits"]["memory"] = "1100Gi";
    Json r = s.Review("validate", sent.dump())["response"];
    CHECK(r["allowed"] == false);
    CHECK_THAT(r["status"]["message"].get<std::string>(),
               Catch::StartsWith("exceeds-allocatable (spec.resources.requests.memory): "));
  }
  SECTION("24: the sidecar is hidden from the GPUs, the trainer gets its headroom") {
    Json r = s.Review("mutate", CaptureBody("24-", "v1.36"))["response"];
    REQUIRE(r.contains("patch"));
    std::string patch = DecodeBase64(r["patch"]);
    CHECK_THAT(
        patch,
        Catch::Contains(
            R"("path":"/spec/initContainers/0/env","value":[{"name":"NVIDIA_VISIBLE_DEVICES","value":"void"}])"));
    CHECK_THAT(
        patch,
        Catch::Contains(R"("path":"/spec/containers/0/resources/requests/memory","value":"17Gi")"));
  }
  SECTION("25: a claim from a template the webhook cannot see is said so, and admitted") {
    Json r = ValidateCapture(s, "25-", "v1.36");
    CHECK(r["allowed"] == true);
    REQUIRE(r.contains("warnings"));
    CHECK_THAT(r["warnings"][0].get<std::string>(),
               Catch::StartsWith("dra-claim-unresolved (spec.resourceClaims[0]): claim \"gpu\" "
                                 "comes from ResourceClaimTemplate \"one-gpu\""));
  }
}

TEST_CASE("18: a pod without a name gets a patch that applies and is logged by generateName",
          "[webhook][replay]") {
  TestServer s;
  std::string set = GENERATE(from_range(CaptureSets()));
  INFO("set '" << set << "'");
  std::string body = CaptureBody("18-", set);
  Json sent = Json::parse(body);
  REQUIRE_FALSE(sent["request"]["object"]["metadata"].contains("name"));
  std::string generate_name = sent["request"]["object"]["metadata"]["generateName"];
  REQUIRE_THAT(generate_name, Catch::StartsWith("gpu-inference-"));
  Json r = s.Review("mutate", body)["response"];
  REQUIRE(r.contains("patch"));

  // Applying the patch and asking again gives nothing more to do.
  Value object = ObjectOf(body);
  Value patched = object;
  Error error;
  REQUIRE(ApplyPatch(Mutate(object, DefaultPolicy(), NoNodes()), &patched, &error));
  sent["request"]["object"] = Json::parse(ToJson(patched));
  Json again = s.Review("mutate", sent.dump())["response"];
  CHECK_FALSE(again.contains("patch"));

  std::vector<Json> lines = s.log().Messages("admission");
  REQUIRE(lines.size() == 2);
  CHECK(lines[0]["name"] == generate_name);
  CHECK(lines[0]["namespace"] == "gpu-test");
  CHECK(lines[0]["decision"] == "patched");
  CHECK(lines[0]["uid"] == sent["request"]["uid"]);
  CHECK(lines[1]["decision"] == "allowed");
}

TEST_CASE("13 and 14: dry-run requests get the verdict the same request gets without it",
          "[webhook][replay]") {
  TestServer s;
  std::string set = GENERATE(from_range(CaptureSets()));
  size_t seen = 0;
  for (const std::string& file : CapturedReviews(set)) {
    std::string name = Basename(file);
    if (name.rfind("13-", 0) != 0 && name.rfind("14-", 0) != 0) continue;
    INFO(name);
    ++seen;
    Json sent = Json::parse(ReadFile(file));
    REQUIRE(sent["request"]["dryRun"] == true);
    Json wet = sent;
    wet["request"]["dryRun"] = false;
    for (const char* endpoint : {"validate", "mutate"}) {
      CHECK(s.Review(endpoint, sent.dump()) == s.Review(endpoint, wet.dump()));
    }
  }
  CHECK(seen == 2);
}

TEST_CASE("a v1beta1 review is answered as v1beta1", "[webhook][replay]") {
  TestServer s;
  Json sent = Json::parse(ReadFile(CapturedReviews()[15]));  // 16: denied
  sent["apiVersion"] = "admission.k8s.io/v1beta1";
  Json answer = s.Review("validate", sent.dump());
  CHECK(answer["apiVersion"] == "admission.k8s.io/v1beta1");
  CHECK(answer["response"]["uid"] == sent["request"]["uid"]);
  CHECK(answer["response"]["allowed"] == false);
}

TEST_CASE("one log line per decision with the fields an operator greps for",
          "[webhook][replay]") {
  TestServer s;
  Json sent = Json::parse(ReadFile(CapturedReviews()[15]));  // 16: denied
  s.Review("validate", sent.dump());
  std::vector<Json> lines = s.log().Messages("admission");
  REQUIRE(lines.size() == 1);
  const Json& l = lines[0];
  CHECK(l["uid"] == sent["request"]["uid"]);
  CHECK(l["kind"] == "Pod");
  CHECK(l["namespace"] == "gpu-test");
  CHECK(l["name"] == "gpu-pod-invalid");
  CHECK(l["operation"] == "CREATE");
  CHECK(l["decision"] == "denied");
  Json rules = Json::array();
  for (const Finding& f : Evaluate(ObjectOf(sent.dump()), "", DefaultPolicy(), NoNodes()))
    if (std::find(rules.begin(), rules.end(), f.rule) == rules.end()) rules.push_back(f.rule);
  CHECK(rules.size() >= 1);
  CHECK(l["rules"] == rules);
  CHECK(l["latency_ms"].is_number());
  CHECK(l["endpoint"] == "validate");
}

}  // namespace
}  // namespace gpulint::webhook_test
