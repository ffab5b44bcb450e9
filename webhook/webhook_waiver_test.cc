// No silent opt-out: every ignore annotation that meets a finding in a review
// is logged, counted and recorded in the audit log, and deny mode refuses the
// errors the policy does not let annotations waive (exemptions.waiveErrors).
// Over real HTTPS, against the real server.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/webhook_test_support.h"

namespace gpulint::webhook_test {
namespace {

using Json = nlohmann::json;

// A Pod in `ns` asking for half a GPU (gpu-fractional, an error) with no
// memory limit (memory-limit-missing, a warning), both annotated away.
std::string WaivedPod(const std::string& ns) {
  Json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata",
       {{"name", "p"},
        {"namespace", ns},
        {"annotations",
         {{"ignore.gpulint.io/gpu-fractional", "time-sliced, trust me"},
          {"ignore.gpulint.io/memory-limit-missing.c", "a probe"}}}}},
      {"spec",
       {{"containers",
         Json::array({{{"name", "c"},
                       {"image", "busybox"},
                       {"resources", {{"limits", {{"nvidia.com/gpu", "0.5"}}}}}}})}}}};
  Json request = {{"uid", "u-" + ns},
                  {"kind", {{"group", ""}, {"version", "v1"}, {"kind", "Pod"}}},
                  {"namespace", ns},
                  {"operation", "CREATE"},
                  {"object", pod}};
  return Json{{"apiVersion", "admission.k8s.io/v1"}, {"kind", "AdmissionReview"},
              {"request", request}}
      .dump();
}

TEST_CASE("deny mode refuses what an annotation may not waive, and says so everywhere",
          "[webhook][waiver]") {
  TestServer s([](ServerOptions& o, const TempDir& dir) {
    WriteFileAtomic(dir / "policy.yaml",
                    "apiVersion: gpulint.io/v1alpha1\nkind: Policy\nspec:\n"
                    "  exemptions: {waiveErrors: {namespaces: [research]}}\n");
    o.policy_file = dir / "policy.yaml";
  });

  // A tenant's namespace: the error stays and denies; the warning's waiver holds.
  Json tenant = s.Review("validate", WaivedPod("team-a"))["response"];
  CHECK(tenant["allowed"] == false);
  std::string message = tenant["status"]["message"];
  CHECK(message.find("gpu-fractional") == 0);
  CHECK(message.find("(ignore.gpulint.io/gpu-fractional waives no error in namespace \"team-a\": "
                     "the policy's exemptions.waiveErrors does not list it)") != std::string::npos);
  CHECK(tenant["auditAnnotations"]["waiver-refused"] ==
        "ignore.gpulint.io/gpu-fractional: \"time-sliced, trust me\" (1 error)");
  CHECK(tenant["auditAnnotations"]["waived"] ==
        "ignore.gpulint.io/memory-limit-missing.c: \"a probe\" (1 warning)");

  // Where the policy grants waivers: allowed, and still on the record.
  Json granted = s.Review("validate", WaivedPod("research"))["response"];
  CHECK(granted["allowed"] == true);
  CHECK(granted["auditAnnotations"]["waived"] ==
        "ignore.gpulint.io/gpu-fractional: \"time-sliced, trust me\" (1 error); "
        "ignore.gpulint.io/memory-limit-missing.c: \"a probe\" (1 warning)");
  CHECK_FALSE(granted["auditAnnotations"].contains("waiver-refused"));

  // Warn mode shows what deny would do: the refused waiver is a would-deny.
  Json warned = s.Review("validate/warn", WaivedPod("team-a"))["response"];
  CHECK(warned["allowed"] == true);
  CHECK(warned["auditAnnotations"].contains("would-deny"));
  CHECK(warned["auditAnnotations"].contains("waiver-refused"));

  // The decision log line of each, and the counter.
  std::vector<Json> lines = s.log().Messages("admission");
  REQUIRE(lines.size() == 3);
  CHECK(lines[0]["decision"] == "denied");
  CHECK(lines[0]["waivers_refused"] ==
        Json::array({"ignore.gpulint.io/gpu-fractional: \"time-sliced, trust me\""}));
  CHECK(lines[0]["waived"] == Json::array({"ignore.gpulint.io/memory-limit-missing.c: \"a probe\""}));
  CHECK(lines[1]["decision"] == "allowed");
  CHECK(lines[1]["waived"].size() == 2);
  CHECK_FALSE(lines[1].contains("waivers_refused"));
  CHECK(Metric(s.server(),
               "gpulint_webhook_waivers_total{rule=\"gpu-fractional\",honoured=\"false\"}") == "2");
  CHECK(Metric(s.server(),
               "gpulint_webhook_waivers_total{rule=\"gpu-fractional\",honoured=\"true\"}") == "1");
  CHECK(Metric(s.server(), "gpulint_webhook_waivers_total{rule=\"memory-limit-missing\","
                           "honoured=\"true\"}") == "3");
}

}  // namespace
}  // namespace gpulint::webhook_test
