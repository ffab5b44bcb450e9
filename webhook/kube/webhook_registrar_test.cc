// Self-registration: the configurations are applied whole while the webhook
// can answer, emptied while it cannot, and applied again after a failure, a
// change of the file or of the CA. Against an HTTPS stand-in for the API
// server that records each request.
#include <catch2/catch.hpp>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/webhook_test_support.h"
#include "webhook/kube/registrar.h"
#include "webhook/server/admission.h"
#include "common/base64.h"

namespace gpulint {
namespace {

using Json = nlohmann::json;
using webhook_test::Eventually;
using webhook_test::FakeKubeApi;
using webhook_test::LogCapture;
using webhook_test::TempDir;
using webhook_test::WriteFileAtomic;

constexpr const char* kConfigurations = R"(apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: gpulint-webhook, labels: {app: gpulint}}
webhooks:
- name: validate.gpulint.io
  clientConfig: {service: {name: gpulint-webhook, namespace: gpulint, path: /validate/deny}}
  rules: [{apiGroups: [""], apiVersions: [v1], resources: [pods], operations: [CREATE]}]
  sideEffects: None
  admissionReviewVersions: [v1]
- name: audit.validate.gpulint.io
  clientConfig: {service: {name: gpulint-webhook, namespace: gpulint, path: /validate/audit}, caBundle: old}
  sideEffects: None
  admissionReviewVersions: [v1]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: gpulint-webhook}
webhooks:
- name: mutate.gpulint.io
  clientConfig: {service: {name: gpulint-webhook, namespace: gpulint, path: /mutate/deny}}
  sideEffects: None
  admissionReviewVersions: [v1]
)";

TEST_CASE("registrations: whole with the CA while answering, without webhooks while not",
          "[webhook][registrar]") {
  std::vector<Registration> plan;
  std::string error;
  REQUIRE(PlanRegistrations(kConfigurations, "webhooks.yaml", "CA PEM", true, &plan, &error));
  REQUIRE(plan.size() == 2);
  CHECK(plan[0].path ==
        "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/gpulint-webhook");
  CHECK(plan[1].path ==
        "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/gpulint-webhook");
  Json validating = Json::parse(plan[0].body);
  // Only the name of the metadata: the labels are helm's.
  CHECK(validating["metadata"] == Json{{"name", "gpulint-webhook"}});
  REQUIRE(validating["webhooks"].size() == 2);
  for (const Json& w : validating["webhooks"])
    CHECK(w["clientConfig"]["caBundle"] == Base64Encode("CA PEM"));
  CHECK(validating["webhooks"][0]["rules"][0]["resources"] == Json{"pods"});

  REQUIRE(PlanRegistrations(kConfigurations, "webhooks.yaml", "CA PEM", false, &plan, &error));
  REQUIRE(plan.size() == 2);
  CHECK(Json::parse(plan[1].body) ==
        Json::parse(R"({"apiVersion": "admissionregistration.k8s.io/v1",
                        "kind": "MutatingWebhookConfiguration",
                        "metadata": {"name": "gpulint-webhook"}, "webhooks": []})"));

  struct Bad {
    std::string text, error;
  };
  for (const Bad& bad : std::vector<Bad>{
           {"", "webhooks.yaml: holds no webhook configuration"},
           {"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
            "webhooks.yaml: expected admissionregistration.k8s.io/v1 Validating- and "
            "MutatingWebhookConfigurations with names, found ConfigMap"},
           {"apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\n",
            "webhooks.yaml: expected admissionregistration.k8s.io/v1 Validating- and "
            "MutatingWebhookConfigurations with names, found ValidatingWebhookConfiguration"},
           {"a: [\n",
            "webhooks.yaml:2:1: did not find expected node content before the end of the document"},
       }) {
    INFO(bad.text);
    CHECK_FALSE(PlanRegistrations(bad.text, "webhooks.yaml", "CA", true, &plan, &error));
    CHECK(error == bad.error);
  }
}

// The API server's side: every server-side apply it was sent.
class RecordingApi {
 public:
  RecordingApi() {
    api_.server().Patch(
        R"(/apis/admissionregistration\.k8s\.io/v1/(\w+)/([\w-]+))",
        [this](const httplib::Request& req, httplib::Response& res) {
          std::lock_guard<std::mutex> lock(mu_);
          requests_.push_back({req.matches[1], req.get_header_value("Content-Type"),
                               req.get_param_value("fieldManager"), req.get_param_value("force"),
                               Json::parse(req.body)});
          res.status = failures_ > 0 ? 503 : 200;
          if (failures_ > 0) --failures_;
          res.set_content("{}", "application/json");
        });
    api_.Listen();
  }
  struct Request {
    std::string resource, content_type, field_manager, force;
    Json body;
  };
  std::vector<Request> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }
  void Fail(int times) {
    std::lock_guard<std::mutex> lock(mu_);
    failures_ = times;
  }
  FakeKubeApi& api() { return api_; }

 private:
  FakeKubeApi api_;
  std::mutex mu_;
  std::vector<Request> requests_;
  int failures_ = 0;
};

Registrar::Options Fast() {
  Registrar::Options o;
  o.poll = std::chrono::milliseconds(10);
  o.min_backoff = std::chrono::milliseconds(10);
  o.max_backoff = std::chrono::milliseconds(40);
  return o;
}

TEST_CASE("the registrar follows whether the webhook can answer", "[webhook][registrar]") {
  RecordingApi api;
  TempDir dir;
  WriteFileAtomic(dir / "webhooks.yaml", kConfigurations);
  WriteFileAtomic(dir / "ca.crt", "CA ONE");
  std::atomic<bool> answering{false};
  LogCapture log;
  Metrics metrics;
  Registrar registrar(
      api.api().Endpoint(), dir / "webhooks.yaml", dir / "ca.crt", [&] { return answering.load(); },
      log.Sink(), &metrics, Fast());
  registrar.Start();

  // No certificate yet: whatever was registered is withdrawn.
  REQUIRE(Eventually([&] { return api.requests().size() == 2; }));
  for (const RecordingApi::Request& r : api.requests()) {
    CHECK(r.content_type == "application/apply-patch+yaml");
    CHECK(r.field_manager == "gpulint-webhook");
    CHECK(r.force == "true");
    CHECK(r.body["webhooks"] == Json::array());
  }
  // The gauge is set once both answers are in, after the API saw the requests.
  CHECK(Eventually(
      [&] { return webhook_test::Metric(metrics, "gpulint_webhook_registered") == "0"; }));

  // It can answer: both registered whole, with the CA.
  answering = true;
  REQUIRE(Eventually([&] { return api.requests().size() == 4; }));
  CHECK(api.requests()[2].resource == "validatingwebhookconfigurations");
  CHECK(api.requests()[2].body["webhooks"][0]["clientConfig"]["caBundle"] ==
        Base64Encode("CA ONE"));
  CHECK(api.requests()[3].resource == "mutatingwebhookconfigurations");
  REQUIRE(Eventually(
      [&] { return webhook_test::Metric(metrics, "gpulint_webhook_registered") == "1"; }));
  CHECK(log.Messages("webhook configurations registered").size() == 1);

  // Nothing changes: nothing is sent.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(api.requests().size() == 4);

  // A new CA is applied again; a failure is retried.
  api.Fail(1);
  WriteFileAtomic(dir / "ca.crt", "CA TWO");
  REQUIRE(Eventually([&] { return api.requests().size() >= 7; }));
  CHECK(api.requests().back().body["webhooks"][0]["clientConfig"]["caBundle"] ==
        Base64Encode("CA TWO"));
  CHECK(log.Messages("cannot register the webhook configurations").size() == 1);
  CHECK(webhook_test::Metric(
            metrics, "gpulint_webhook_registration_applies_total{result=\"failed\"}") == "1");

  // The certificate expired: withdrawn again.
  answering = false;
  REQUIRE(Eventually([&] {
    auto r = api.requests();
    return r.size() >= 9 && r.back().body["webhooks"] == Json::array();
  }));
  registrar.Stop();
}

}  // namespace
}  // namespace gpulint
