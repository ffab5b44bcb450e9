// Ratcheting (ReviewOptions::allow_existing_violations): an error the object
// already had does not deny, on UPDATE (its oldObject) and on the CREATE of an
// object one of kube-controller-manager's workload controllers makes for its
// owner.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "engine/engine.h"
#include "tests/default_snapshot.h"
#include "webhook/server/admission.h"

namespace gpulint {
namespace {

using Json = nlohmann::json;

// A pod template asking 1 GPU with `gpu_limit` as its limit (anything but 1:
// gpu-request-limit-mismatch, an error) and `memory` as request and limit.
Json Template(const std::string& gpu_limit, const std::string& memory) {
  Json c = {{"name", "trainer"}, {"image", "nvcr.io/nvidia/pytorch:24.05-py3"}};
  c["resources"]["requests"] = {{"nvidia.com/gpu", "1"}, {"memory", memory}};
  c["resources"]["limits"] = {{"nvidia.com/gpu", gpu_limit}, {"memory", memory}};
  return {{"metadata", {{"labels", {{"app", "train"}}}}},
          {"spec", {{"containers", Json::array({c})}}}};
}

Json Deployment(Json pod_template) {
  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata", {{"name", "train"}, {"namespace", "ml"}}},
          {"spec",
           {{"selector", {{"matchLabels", {{"app", "train"}}}}}, {"template", pod_template}}}};
}

// What `kubectl rollout restart` changes: the template's restartedAt.
Json Restarted(Json deployment) {
  deployment["spec"]["template"]["metadata"]["annotations"]["kubectl.kubernetes.io/restartedAt"] =
      "2026-01-05T10:00:00Z";
  return deployment;
}

std::string Review(const std::string& operation, const Json& object, const Json& old_object,
                   const std::string& user = "alice@example.com") {
  Json request = {{"uid", "3b5c6b8e-1b1f-4b1e-9d2a-5f0c1e7a9c10"},
                  {"kind", {{"group", "apps"}, {"version", "v1"}, {"kind", object["kind"]}}},
                  {"namespace", "ml"},
                  {"name", object["metadata"]["name"]},
                  {"operation", operation},
                  {"userInfo", {{"username", user}}},
                  {"object", object},
                  {"oldObject", old_object}};
  return Json{{"apiVersion", "admission.k8s.io/v1"}, {"kind", "AdmissionReview"},
              {"request", request}}
      .dump();
}

Json ResponseOf(const ReviewResult& r) {
  INFO(r.body);
  REQUIRE(r.http_status == 200);
  return Json::parse(r.body)["response"];
}

ReviewResult Judged(const std::string& body, Mode mode = Mode::kDeny, bool ratchet = true,
                    Endpoint endpoint = Endpoint::kValidate) {
  return HandleReview(endpoint, body, DefaultSnapshot(), mode, ReviewOptions{kDefaultParseBudget, ratchet});
}

// The denial a CREATE of `object` gets: the finding texts, word for word.
std::string DenialOf(const Json& object) {
  Json create = ResponseOf(Judged(Review("CREATE", object, nullptr)));
  REQUIRE(create["allowed"] == false);
  return create["status"]["message"];
}

TEST_CASE("ratcheting: an UPDATE keeping an error its oldObject had is admitted, with a warning",
          "[webhook][admission][ratchet]") {
  Json old = Deployment(Template("2", "16Gi"));
  std::string finding = DenialOf(old);
  CHECK(finding.rfind("gpu-request-limit-mismatch (spec.template.spec.containers[0]", 0) == 0);

  ReviewResult r = Judged(Review("UPDATE", Restarted(old), old));
  Json a = ResponseOf(r);
  CHECK(a["allowed"] == true);
  CHECK_FALSE(a.contains("status"));
  CHECK(a["warnings"] ==
        Json::array({TruncateForWarning("gpulint: already there before this update: " + finding,
                                        kMaxWarningBytes)}));
  CHECK(a["auditAnnotations"] == Json{{"existing", finding}});
  CHECK(r.log.decision == "allowed");
  CHECK(r.log.existing == std::vector<std::string>{finding});
  CHECK(r.log.existing_in == "the object before this update");
  CHECK(r.log.finding_rules == std::vector<std::string>{"gpu-request-limit-mismatch"});

  // Off: each request judged alone, as before ratcheting.
  ReviewResult off = Judged(Review("UPDATE", Restarted(old), old), Mode::kDeny, false);
  Json o = ResponseOf(off);
  CHECK(o["allowed"] == false);
  CHECK(o["status"]["message"] == finding);
  CHECK(off.log.existing.empty());

  // An oldObject that is not an object is no baseline: judged alone.
  Json broken = ResponseOf(Judged(Review("UPDATE", Restarted(old), "gone")));
  CHECK(broken["allowed"] == false);
  CHECK(broken["status"]["message"] == finding);
}

TEST_CASE("ratcheting: an UPDATE bringing a new error is denied, naming only the new one",
          "[webhook][admission][ratchet]") {
  Json old = Deployment(Template("2", "16Gi"));
  std::string kept = DenialOf(old);

  // A new rule: a memory of 500m (milli-bytes), beside the mismatch it had.
  Json added = Deployment(Template("2", "500m"));
  std::string both = DenialOf(added);
  ReviewResult r = Judged(Review("UPDATE", added, old));
  Json a = ResponseOf(r);
  REQUIRE(a["allowed"] == false);
  std::string message = a["status"]["message"];
  CHECK(message.find("gpu-request-limit-mismatch") == std::string::npos);
  CHECK(message.find("500m") != std::string::npos);
  CHECK(both.find(message) != std::string::npos);  // the same words as on CREATE
  CHECK(a["warnings"][0] == TruncateForWarning("gpulint: already there before this update: " + kept,
                                               kMaxWarningBytes));
  CHECK(a["auditAnnotations"] == Json{{"existing", kept}});
  CHECK(r.log.decision == "denied");

  // The same rule at the same path with other words: a bigger GPU limit is a
  // new error, not the one it had.
  Json bigger = Deployment(Template("3", "16Gi"));
  ReviewResult b = Judged(Review("UPDATE", bigger, old));
  Json d = ResponseOf(b);
  REQUIRE(d["allowed"] == false);
  CHECK(d["status"]["message"] == DenialOf(bigger));
  CHECK_FALSE(d.contains("auditAnnotations"));
  CHECK(b.log.existing.empty());
}

TEST_CASE("ratcheting in warn and audit modes: an existing error is no would-be denial",
          "[webhook][admission][ratchet][mode]") {
  Json old = Deployment(Template("2", "16Gi"));
  std::string kept = DenialOf(old);
  Json added = Deployment(Template("2", "500m"));
  std::string body = Review("UPDATE", added, old);
  std::string denied = ResponseOf(Judged(body))["status"]["message"];

  ReviewResult warn = Judged(body, Mode::kWarn);
  Json w = ResponseOf(warn);
  CHECK(w["allowed"] == true);
  // Two new errors (500m as request and as limit), each a would-be denial,
  // then the one it had.
  REQUIRE(w["warnings"].size() == 3);
  for (int i : {0, 1})
    CHECK(w["warnings"][i].get<std::string>().rfind("gpulint would deny: quantity-milli-memory", 0) ==
          0);
  CHECK(w["warnings"][2] == TruncateForWarning("gpulint: already there before this update: " + kept,
                                               kMaxWarningBytes));
  CHECK(w["auditAnnotations"] == Json{{"existing", kept}, {"would-deny", denied}});
  CHECK(warn.log.decision == "would_deny");

  ReviewResult audit = Judged(body, Mode::kAudit);
  Json a = ResponseOf(audit);
  CHECK_FALSE(a.contains("warnings"));
  CHECK(a["auditAnnotations"] == Json{{"existing", kept}, {"would-deny", denied}});

  // Only the existing error: nothing deny mode would refuse.
  ReviewResult restart = Judged(Review("UPDATE", Restarted(old), old), Mode::kAudit);
  CHECK(ResponseOf(restart)["auditAnnotations"] == Json{{"existing", kept}});
  CHECK(restart.log.decision == "allowed");
}

Json ControlledPod(bool controller = true) {
  Json pod = Template("2", "16Gi");
  pod["apiVersion"] = "v1";
  pod["kind"] = "Pod";
  pod["metadata"]["name"] = "train-6d4b9c-x2x7q";
  pod["metadata"]["namespace"] = "ml";
  pod["metadata"]["ownerReferences"] =
      Json::array({{{"apiVersion", "apps/v1"},
                    {"kind", "ReplicaSet"},
                    {"name", "train-6d4b9c"},
                    {"uid", "0b7f3c1e-2d4a-4c55-8f0e-9a1b2c3d4e5f"},
                    {"controller", controller},
                    {"blockOwnerDeletion", true}}});
  return pod;
}

TEST_CASE("ratcheting: a pod a workload controller makes for its owner is admitted",
          "[webhook][admission][ratchet]") {
  Json pod = ControlledPod();
  std::string finding = DenialOf(pod);
  // With --use-service-account-credentials, and without (one identity for all).
  for (std::string user : {"system:serviceaccount:kube-system:replicaset-controller",
                           "system:serviceaccount:kube-system:statefulset-controller",
                           "system:kube-controller-manager"}) {
    INFO(user);
    for (Endpoint e : {Endpoint::kValidate, Endpoint::kAdmit}) {
      ReviewResult r = Judged(Review("CREATE", pod, nullptr, user), Mode::kDeny, true, e);
      Json a = ResponseOf(r);
      CHECK(a["allowed"] == true);
      CHECK(a["warnings"][0] == TruncateForWarning("gpulint: from its owner ReplicaSet "
                                                   "\"train-6d4b9c\", not denied: " + finding,
                                                   kMaxWarningBytes));
      CHECK(a["auditAnnotations"]["existing"] == finding);
      CHECK(r.log.existing_in == "its owner ReplicaSet \"train-6d4b9c\"");
    }
    // Off: judged alone.
    CHECK(ResponseOf(Judged(Review("CREATE", pod, nullptr, user), Mode::kDeny, false))["allowed"] ==
          false);
  }
}

Json Unowned() {
  Json pod = ControlledPod();
  pod["metadata"].erase("ownerReferences");
  return pod;
}

TEST_CASE("ratcheting: the same pod from anyone else, or not controlled, is denied",
          "[webhook][admission][ratchet]") {
  std::string finding = DenialOf(ControlledPod());
  struct Case {
    const char* why;
    Json pod;
    std::string user;
  } cases[] = {
      {"a tenant, with the controller's ownerReference", ControlledPod(), "alice@example.com"},
      {"a tenant's service account", ControlledPod(), "system:serviceaccount:ml:deployer"},
      {"a controller's name outside kube-system", ControlledPod(),
       "system:serviceaccount:ml:replicaset-controller"},
      {"a controller that makes no workload", ControlledPod(),
       "system:serviceaccount:kube-system:generic-garbage-collector"},
      {"the controller, of a pod it does not control", ControlledPod(false),
       "system:serviceaccount:kube-system:replicaset-controller"},
      {"the controller, of a pod with no owner", Unowned(), "system:kube-controller-manager"},
  };
  for (const Case& c : cases) {
    INFO(c.why);
    ReviewResult r = Judged(Review("CREATE", c.pod, nullptr, c.user));
    Json a = ResponseOf(r);
    CHECK(a["allowed"] == false);
    CHECK(a["status"]["message"] == finding);
    CHECK(r.log.existing.empty());
  }
}

}  // namespace
}  // namespace gpulint
