// HandleReview without a socket: the AdmissionReview contract, word for word.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "engine/engine.h"
#include "engine/json/json_parser.h"
#include "engine/mutate/mutate.h"
#include "engine/policy/policy.h"
#include "engine/yaml/loader.h"
#include "tests/default_snapshot.h"
#include "tests/webhook_test_support.h"
#include "webhook/server/admission.h"
#include "common/base64.h"

namespace gpulint {
namespace {

using Json = nlohmann::json;

Json Container(const std::string& name, const std::string& gpu_request,
               const std::string& gpu_limit) {
  Json c = {{"name", name}, {"image", "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04"}};
  c["resources"]["requests"]["nvidia.com/gpu"] = gpu_request;
  c["resources"]["limits"]["nvidia.com/gpu"] = gpu_limit;
  return c;
}

Json PodWith(Json containers, const std::string& ns = "ml") {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", "p"}, {"namespace", ns}}},
          {"spec", {{"containers", containers}}}};
}

// A pod the engine denies (GPU requests 1, limits 2) and one it lets through.
Json BadPod() { return PodWith(Json::array({Container("c", "1", "2")})); }
Json GoodPod() {
  Json pod = PodWith(Json::array({Container("c", "1", "1")}));
  pod["spec"]["containers"][0]["resources"]["limits"]["memory"] = "8Gi";
  pod["spec"]["containers"][0]["resources"]["requests"]["memory"] = "8Gi";
  return pod;
}

Json Request(const std::string& operation, Json object, Json old_object = nullptr) {
  return {{"uid", "705ab4f5-6393-11e8-b7cc-42010a800002"},
          {"kind", {{"group", ""}, {"version", "v1"}, {"kind", "Pod"}}},
          {"namespace", "ml"},
          {"name", "p"},
          {"operation", operation},
          {"object", object},
          {"oldObject", old_object}};
}

std::string Review(const Json& request, const std::string& api = "admission.k8s.io/v1") {
  return Json{{"apiVersion", api}, {"kind", "AdmissionReview"}, {"request", request}}.dump();
}

Json Answer(Endpoint endpoint, const std::string& body, const Snapshot& snap = DefaultSnapshot()) {
  ReviewResult r = HandleReview(endpoint, body, snap);
  INFO(r.body);
  REQUIRE(r.http_status == 200);
  REQUIRE(r.content_type == "application/json");
  Json j = Json::parse(r.body);
  REQUIRE(j["response"]["uid"] == "705ab4f5-6393-11e8-b7cc-42010a800002");
  return j["response"];
}

TEST_CASE("bodies that are not an AdmissionReview get HTTP 400 and a plain reason",
          "[webhook][admission]") {
  std::string long_uid(257, 'u');
  struct Case {
    std::string body, message;
  } cases[] = {
      {"", "request body is empty: expected an AdmissionReview"},
      {"[]", "request body is not a JSON object"},
      {"{}", "apiVersion is missing: expected admission.k8s.io/v1 or admission.k8s.io/v1beta1"},
      {R"({"apiVersion":"admission.k8s.io/v2","kind":"AdmissionReview"})",
       R"(apiVersion must be admission.k8s.io/v1 or admission.k8s.io/v1beta1, not "admission.k8s.io/v2")"},
      {R"({"apiVersion":"admission.k8s.io/v1"})", "kind is missing: expected AdmissionReview"},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"Pod"})",
       R"(kind must be AdmissionReview, not "Pod")"},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"})",
       "request is missing: an AdmissionReview must carry one"},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":"x"})",
       "request must be an object"},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"operation":"CREATE"}})",
       "request.uid is missing"},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":7}})",
       "request.uid must be a string"},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":""}})",
       "request.uid is empty"},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":")" +
           long_uid + R"("}})",
       "request.uid is longer than 256 bytes"},
  };
  for (const Case& c : cases) {
    for (Endpoint e : {Endpoint::kValidate, Endpoint::kMutate}) {
      INFO(c.body.substr(0, 120));
      ReviewResult r = HandleReview(e, c.body, DefaultSnapshot());
      CHECK(r.http_status == 400);
      CHECK(r.content_type == "text/plain; charset=utf-8");
      CHECK(r.body == c.message + "\n");
      CHECK(r.log.decision == "invalid");
    }
  }
}

TEST_CASE("JSON the parser refuses is a 400 before any recursion", "[webhook][admission]") {
  std::string prefix = R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","object":)";
  std::string deep = prefix + std::string(100000, '[');
  ReviewResult r = HandleReview(Endpoint::kValidate, deep, DefaultSnapshot());
  CHECK(r.http_status == 400);
  CHECK_THAT(r.body, Catch::StartsWith("request body is not valid JSON: "));
  CHECK_THAT(r.body, Catch::Contains("128"));

  std::string dup = R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"a","uid":"b"}})";
  r = HandleReview(Endpoint::kValidate, dup, DefaultSnapshot());
  CHECK(r.http_status == 400);
  CHECK_THAT(r.body, Catch::StartsWith("request body is not valid JSON: "));
  CHECK_THAT(r.body, Catch::Contains("uid"));

  r = HandleReview(Endpoint::kMutate, "hello", DefaultSnapshot());
  CHECK(r.http_status == 400);
  CHECK_THAT(r.body, Catch::StartsWith("request body is not valid JSON: "));
}

TEST_CASE("reviews the engine cannot evaluate are denied on /validate and left alone on /mutate",
          "[webhook][admission]") {
  Json no_kind = GoodPod();
  no_kind.erase("kind");
  Json bad_meta = GoodPod();
  bad_meta["metadata"] = "x";
  Json no_op = Request("CREATE", GoodPod());
  no_op.erase("operation");
  Json sub = Request("UPDATE", GoodPod());
  sub["subResource"] = 5;
  struct Case {
    Json request;
    std::string why;
  } cases[] = {
      {Request("CREATE", nullptr), "request.object is missing on CREATE"},
      {Request("UPDATE", nullptr), "request.object is missing on UPDATE"},
      {Request("CREATE", Json::array({GoodPod()})), "request.object must be an object, not "},
      {Request("CREATE", "pod"), "request.object must be an object, not "},
      {Request("CREATE", no_kind), "request.object.kind is missing"},
      {Request("CREATE", bad_meta), "request.object.metadata must be an object"},
      {no_op, "request.operation is missing"},
      {Request("PATCH", GoodPod()),
       R"(request.operation must be CREATE, UPDATE, DELETE or CONNECT, not "PATCH")"},
      {sub, "request.subResource must be a string"},
  };
  for (const Case& c : cases) {
    INFO(c.request.dump());
    Json v = Answer(Endpoint::kValidate, Review(c.request));
    CHECK(v["allowed"] == false);
    CHECK(v["status"]["code"] == 400);
    CHECK_THAT(v["status"]["message"].get<std::string>(),
               Catch::StartsWith("gpulint could not evaluate this request: " + c.why));
    Json m = Answer(Endpoint::kMutate, Review(c.request));
    CHECK(m["allowed"] == true);
    CHECK_FALSE(m.contains("patch"));
  }

  SECTION("a snapshot without a policy admits, saying why it does not enforce") {
    Snapshot none;
    none.problem = "policy.yaml:3:5: spec.rules.foo: unknown rule \"foo\"";
    for (Endpoint e : {Endpoint::kValidate, Endpoint::kMutate}) {
      ReviewResult r = HandleReview(e, Review(Request("CREATE", BadPod())), none);
      Json v = Json::parse(r.body)["response"];
      CHECK(v["allowed"] == true);
      CHECK(v["warnings"] == Json::array({"gpulint is not enforcing, its policy did not load: "
                                          "policy.yaml:3:5: spec.rules.foo: unknown rule \"foo\""}));
      CHECK(r.log.decision == "unenforced");
    }
  }
}

TEST_CASE("DELETE and CONNECT and subresources pass untouched", "[webhook][admission]") {
  Json sub = Request("UPDATE", BadPod(), BadPod());
  sub["subResource"] = "status";
  Json cases[] = {Request("DELETE", nullptr, BadPod()), Request("CONNECT", nullptr), sub};
  for (const Json& request : cases) {
    INFO(request.dump());
    for (Endpoint e : {Endpoint::kValidate, Endpoint::kMutate}) {
      ReviewResult r = HandleReview(e, Review(request), DefaultSnapshot());
      Json j = Json::parse(r.body)["response"];
      CHECK(j == Json{{"uid", "705ab4f5-6393-11e8-b7cc-42010a800002"}, {"allowed", true}});
      CHECK(r.log.decision == "allowed");
      CHECK_THAT(r.log.reason, Catch::EndsWith("is not checked"));
    }
  }
}

TEST_CASE("a resize is the one subresource /validate judges, /mutate leaves it alone",
          "[webhook][admission]") {
  Json resize = Request("UPDATE", BadPod(), GoodPod());
  resize["subResource"] = "resize";
  Json v = Answer(Endpoint::kValidate, Review(resize));
  CHECK(v["allowed"] == false);
  CHECK_THAT(v["status"]["message"].get<std::string>(),
             Catch::StartsWith("gpu-request-limit-mismatch (spec.containers[0].resources."));
  ReviewResult m = HandleReview(Endpoint::kMutate, Review(resize), DefaultSnapshot());
  CHECK(Json::parse(m.body)["response"] ==
        Json{{"uid", "705ab4f5-6393-11e8-b7cc-42010a800002"}, {"allowed", true}});
  CHECK(m.log.reason == "subresource \"resize\" is not checked");
  // Any other subresource of the same pod passes /validate untouched.
  resize["subResource"] = "ephemeralcontainers";
  CHECK(Answer(Endpoint::kValidate, Review(resize))["allowed"] == true);
}

TEST_CASE("UPDATE is judged on the new object and not the old one", "[webhook][admission]") {
  CHECK(Answer(Endpoint::kValidate, Review(Request("UPDATE", GoodPod(), BadPod())))["allowed"] ==
        true);
  CHECK(Answer(Endpoint::kValidate, Review(Request("UPDATE", BadPod(), GoodPod())))["allowed"] ==
        false);
}

TEST_CASE("a denial names every error rule, warnings are capped and cut", "[webhook][admission]") {
  Json v = Answer(Endpoint::kValidate, Review(Request("CREATE", BadPod())));
  CHECK(v["allowed"] == false);
  CHECK(v["status"]["code"] == 403);
  CHECK(v["status"]["reason"] == "Forbidden");
  CHECK_THAT(v["status"]["message"].get<std::string>(),
             Catch::StartsWith("gpu-request-limit-mismatch (spec.containers[0].resources.requests"));

  SECTION("hundreds of findings stay within bounds") {
    Json many = Json::array();
    for (int i = 0; i < 300; ++i) many.push_back(Container("c" + std::to_string(i), "500m", "500m"));
    Json r = Answer(Endpoint::kValidate, Review(Request("CREATE", PodWith(many))));
    std::string message = r["status"]["message"];
    CHECK(message.size() <= kMaxDenyMessageBytes + 32);
    // "...; and N more" (no std::regex: its recursion on a message this long
    // overflows the stack of a sanitizer build).
    size_t tail = message.rfind("; and ");
    REQUIRE(tail != std::string::npos);
    std::string count = message.substr(tail + 6);
    REQUIRE(count.size() > 5);
    CHECK(count.substr(count.size() - 5) == " more");
    count.resize(count.size() - 5);
    CHECK(!count.empty());
    CHECK(count.find_first_not_of("0123456789") == std::string::npos);
    REQUIRE(r.contains("warnings"));
    CHECK(r["warnings"].size() == kMaxWarnings);
    for (const auto& w : r["warnings"]) {
      std::string text = w;
      CHECK(text.size() <= kMaxWarningBytes);
    }
  }
}

TEST_CASE("/mutate returns the engine's patch in base64 only when there is one",
          "[webhook][admission]") {
  Json pod = GoodPod();
  Json m = Answer(Endpoint::kMutate, Review(Request("CREATE", pod)));
  CHECK(m["allowed"] == true);
  REQUIRE(m.contains("patch"));
  CHECK(m["patchType"] == "JSONPatch");
  Value object;
  Error error;
  REQUIRE(ParseJson(pod.dump(), 128, &object, &error));
  std::vector<PatchOp> ops = Mutate(object, DefaultPolicy(), BuildInventory(DefaultPolicy(), {}));
  REQUIRE_FALSE(ops.empty());
  CHECK(webhook_test::DecodeBase64(m["patch"]) == PatchToJson(ops));

  // The same object with nothing to do: no patch and no patchType.
  Json plain = PodWith(Json::array({{{"name", "web"}, {"image", "nginx:1.27"}}}));
  Json none = Answer(Endpoint::kMutate, Review(Request("CREATE", plain)));
  CHECK(none == Json{{"uid", "705ab4f5-6393-11e8-b7cc-42010a800002"}, {"allowed", true}});
}

TEST_CASE("no patch for a Pod or Job UPDATE since their pod spec is frozen", "[webhook][admission]") {
  Json pod = GoodPod();
  CHECK(Answer(Endpoint::kMutate, Review(Request("CREATE", pod))).contains("patch"));
  ReviewResult r = HandleReview(Endpoint::kMutate, Review(Request("UPDATE", pod, pod)), DefaultSnapshot());
  CHECK(Json::parse(r.body)["response"] ==
        Json{{"uid", "705ab4f5-6393-11e8-b7cc-42010a800002"}, {"allowed", true}});
  CHECK(r.log.reason == "Pod specs cannot change after creation");

  Json job = {{"apiVersion", "batch/v1"},
              {"kind", "Job"},
              {"metadata", {{"name", "j"}, {"namespace", "ml"}}},
              {"spec", {{"template", {{"spec", pod["spec"]}}}}}};
  CHECK(Answer(Endpoint::kMutate, Review(Request("CREATE", job))).contains("patch"));
  CHECK_FALSE(Answer(Endpoint::kMutate, Review(Request("UPDATE", job, job))).contains("patch"));

  Json deployment = job;
  deployment["apiVersion"] = "apps/v1";
  deployment["kind"] = "Deployment";
  CHECK(Answer(Endpoint::kMutate, Review(Request("UPDATE", deployment, deployment))).contains("patch"));
}

TEST_CASE("exempt namespaces come from the policy even when the object omits its namespace",
          "[webhook][admission]") {
  auto policy = std::make_shared<Policy>();
  Error error;
  REQUIRE(LoadPolicyText(DefaultPolicyText(), "<default>", policy.get(), &error));
  policy->exempt_namespaces = {"ml"};
  auto inventory = std::make_shared<const Inventory>(BuildInventory(*policy, {}));
  Snapshot snap{policy, inventory};

  Json bad = BadPod();
  CHECK(Answer(Endpoint::kValidate, Review(Request("CREATE", bad)), snap)["allowed"] == true);
  // The API server may leave metadata.namespace to request.namespace on CREATE.
  bad["metadata"].erase("namespace");
  CHECK(Answer(Endpoint::kValidate, Review(Request("CREATE", bad)), snap)["allowed"] == true);
  CHECK(Answer(Endpoint::kValidate, Review(Request("CREATE", bad)))["allowed"] == false);
  Json m = Answer(Endpoint::kMutate, Review(Request("CREATE", GoodPod())), snap);
  CHECK_FALSE(m.contains("patch"));
}

TEST_CASE("v1beta1 is answered as v1beta1", "[webhook][admission]") {
  ReviewResult r = HandleReview(Endpoint::kValidate,
                                Review(Request("CREATE", GoodPod()), "admission.k8s.io/v1beta1"),
                                DefaultSnapshot());
  CHECK(Json::parse(r.body)["apiVersion"] == "admission.k8s.io/v1beta1");
}

TEST_CASE("the log names what was judged by generateName when there is no name",
          "[webhook][admission]") {
  Json pod = BadPod();
  pod["metadata"].erase("name");
  pod["metadata"]["generateName"] = "p-";
  Json request = Request("CREATE", pod);
  request.erase("name");
  request["dryRun"] = true;
  ReviewResult r = HandleReview(Endpoint::kValidate, Review(request), DefaultSnapshot());
  CHECK(r.log.uid == "705ab4f5-6393-11e8-b7cc-42010a800002");
  CHECK(r.log.kind == "Pod");
  CHECK(r.log.namespace_name == "ml");
  CHECK(r.log.name == "p-");
  CHECK(r.log.operation == "CREATE");
  CHECK(r.log.dry_run);
  CHECK(r.log.decision == "denied");
  CHECK(r.log.finding_rules.front() == "gpu-request-limit-mismatch");
}

TEST_CASE("Base64Encode matches RFC 4648's test vectors", "[webhook][admission]") {
  std::pair<std::string, std::string> cases[] = {
      {"", ""},          {"f", "Zg=="},         {"fo", "Zm8="},
      {"foo", "Zm9v"},   {"foob", "Zm9vYg=="},  {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"}, {"\xff\xfe", "//4="},
  };
  for (const auto& [in, out] : cases) CHECK(Base64Encode(in) == out);
}

TEST_CASE("TruncateForWarning cuts at 120 bytes but never inside a UTF-8 sequence",
          "[webhook][admission]") {
  CHECK(TruncateForWarning("short", 120) == "short");
  CHECK(TruncateForWarning(std::string(120, 'a'), 120) == std::string(120, 'a'));
  CHECK(TruncateForWarning(std::string(130, 'a'), 120) == std::string(117, 'a') + "...");
  // "é" is two bytes at 116 and 117: cutting at 117 would split it.
  CHECK(TruncateForWarning(std::string(116, 'a') + "\xc3\xa9zzzz", 120) ==
        std::string(116, 'a') + "...");
  CHECK(TruncateForWarning("a\nb\tc", 120) == "a b c");
}

// The staged rollout: the same verdicts, applied (deny), shown (warn) or
// only recorded (audit).
TEST_CASE("modes: deny refuses, warn and audit allow and say what deny would do",
          "[webhook][admission][mode]") {
  std::string bad = Review(Request("CREATE", BadPod()));
  ReviewResult deny = HandleReview(Endpoint::kValidate, bad, DefaultSnapshot(), Mode::kDeny);
  Json d = Json::parse(deny.body)["response"];
  REQUIRE(d["allowed"] == false);
  std::string denial = d["status"]["message"];
  CHECK_FALSE(d.contains("auditAnnotations"));

  ReviewResult warn = HandleReview(Endpoint::kValidate, bad, DefaultSnapshot(), Mode::kWarn);
  Json w = Json::parse(warn.body)["response"];
  CHECK(w["allowed"] == true);
  CHECK_FALSE(w.contains("status"));
  REQUIRE(w["warnings"].size() >= 1);
  CHECK(w["warnings"][0] == TruncateForWarning("gpulint would deny: " + denial, kMaxWarningBytes));
  CHECK(w["auditAnnotations"] == Json{{"would-deny", denial}});
  CHECK(warn.log.decision == "would_deny");
  CHECK(warn.log.mode == Mode::kWarn);

  ReviewResult audit = HandleReview(Endpoint::kValidate, bad, DefaultSnapshot(), Mode::kAudit);
  Json a = Json::parse(audit.body)["response"];
  CHECK(a == Json{{"uid", "705ab4f5-6393-11e8-b7cc-42010a800002"},
                  {"allowed", true},
                  {"auditAnnotations", {{"would-deny", denial}}}});
  CHECK(audit.log.decision == "would_deny");
  CHECK(audit.log.finding_rules == deny.log.finding_rules);

  // Nothing to deny: the same answer in every mode but for audit's silence.
  std::string good = Review(Request("CREATE", GoodPod()));
  for (Mode m : {Mode::kAudit, Mode::kWarn, Mode::kDeny}) {
    INFO(EnforcementName(m));
    ReviewResult r = HandleReview(Endpoint::kValidate, good, DefaultSnapshot(), m);
    CHECK(Json::parse(r.body)["response"]["allowed"] == true);
    CHECK_FALSE(Json::parse(r.body)["response"].contains("auditAnnotations"));
    CHECK(r.log.decision == "allowed");
  }
}

TEST_CASE("modes: only deny patches, warn shows the patch, audit records it",
          "[webhook][admission][mode]") {
  // A pod that tolerates the GPU taint without asking for a GPU: deny mode
  // hides the node's GPUs from it.
  Json pod = PodWith(Json::array({{{"name", "tools"}, {"image", "busybox"}}}));
  pod["spec"]["tolerations"] = Json::array({{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}}});
  std::string body = Review(Request("CREATE", pod));
  ReviewResult deny = HandleReview(Endpoint::kMutate, body, DefaultSnapshot(), Mode::kDeny);
  Json d = Json::parse(deny.body)["response"];
  REQUIRE(d.contains("patch"));
  CHECK(deny.log.decision == "patched");
  std::string patch =
      R"([{"op":"add","path":"/spec/containers/0/env","value":[{"name":"NVIDIA_VISIBLE_DEVICES","value":"void"}]}])";

  ReviewResult warn = HandleReview(Endpoint::kMutate, body, DefaultSnapshot(), Mode::kWarn);
  Json w = Json::parse(warn.body)["response"];
  CHECK(w["allowed"] == true);
  CHECK_FALSE(w.contains("patch"));
  CHECK(w["warnings"] == Json::array({"gpulint would change this pod in deny mode: container "
                                      "\"tools\": NVIDIA_VISIBLE_DEVICES=void (it asks for no GPU)"}));
  CHECK(w["auditAnnotations"] == Json{{"would-patch", patch}});
  CHECK(warn.log.decision == "would_patch");
  CHECK(warn.log.unapplied_patch == patch);

  ReviewResult audit = HandleReview(Endpoint::kMutate, body, DefaultSnapshot(), Mode::kAudit);
  Json a = Json::parse(audit.body)["response"];
  CHECK_FALSE(a.contains("patch"));
  CHECK_FALSE(a.contains("warnings"));
  CHECK(a["auditAnnotations"] == Json{{"would-patch", patch}});
  CHECK(audit.log.decision == "would_patch");
}

}  // namespace
}  // namespace gpulint
