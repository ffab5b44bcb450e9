// Discovery: which resource serves a kind, for the groups asked about.
#include "kube/discovery.h"

#include <catch2/catch.hpp>
#include <string>

#include "tests/fake_kube_api.h"

namespace gpulint {
namespace {

using testing::FakeKubeApi;

void Serve(FakeKubeApi& api, const std::string& path, const std::string& body, int status = 200) {
  api.server().Get(path, [body, status](const httplib::Request&, httplib::Response& res) {
    res.status = status;
    res.set_content(body, "application/json");
  });
}

TEST_CASE("discovery: the preferred version of each group asked for", "[kube][discovery]") {
  FakeKubeApi api;
  Serve(api, "/api/v1",
        R"({"kind":"APIResourceList","groupVersion":"v1","resources":[)"
        R"({"name":"pods","namespaced":true,"kind":"Pod","verbs":["list"]},)"
        R"({"name":"pods/status","namespaced":true,"kind":"Pod"},)"
        R"({"name":"nodes","namespaced":false,"kind":"Node"}]})");
  Serve(
      api, "/apis",
      R"({"kind":"APIGroupList","groups":[)"
      R"({"name":"apps","preferredVersion":{"groupVersion":"apps/v1","version":"v1"}},)"
      R"({"name":"kubeflow.org","preferredVersion":{"groupVersion":"kubeflow.org/v2","version":"v2"}},)"
      R"({"name":"metrics.k8s.io","preferredVersion":{"groupVersion":"metrics.k8s.io/v1beta1","version":"v1beta1"}},)"
      R"({"name":"storage.k8s.io","preferredVersion":{"groupVersion":"storage.k8s.io/v1","version":"v1"}}]})");
  Serve(api, "/apis/apps/v1",
        R"({"resources":[{"name":"deployments","namespaced":true,"kind":"Deployment"}]})");
  Serve(api, "/apis/kubeflow.org/v2",
        R"({"resources":[{"name":"pytorchjobs","namespaced":true,"kind":"PyTorchJob"}]})");
  Serve(api, "/apis/metrics.k8s.io/v1beta1", "service unavailable", 503);
  api.Listen();

  Discovery d;
  std::string error;
  REQUIRE(
      Discover(api.Endpoint(), {"apps", "kubeflow.org", "metrics.k8s.io", "ray.io"}, &d, &error));
  REQUIRE(d.Find("", "Pod"));
  CHECK(d.Find("", "Pod")->Path() == "/api/v1/pods");
  CHECK(d.Find("", "Node")->namespaced == false);
  CHECK(d.Find("apps", "Deployment")->Path() == "/apis/apps/v1/deployments");
  CHECK(d.Find("apps", "Deployment")->ApiVersion() == "apps/v1");
  CHECK(d.Find("*", "PyTorchJob")->Path() == "/apis/kubeflow.org/v2/pytorchjobs");
  // One namespace's collection; a cluster-scoped resource has none.
  CHECK(d.Find("apps", "Deployment")->Path("ml") == "/apis/apps/v1/namespaces/ml/deployments");
  CHECK(d.Find("", "Pod")->Path("ml") == "/api/v1/namespaces/ml/pods");
  CHECK(d.Find("", "Node")->Path("ml") == "/api/v1/nodes");
  CHECK(d.Find("kubeflow.org", "Deployment") == nullptr);
  CHECK(d.Find("ray.io", "RayJob") == nullptr);  // not served: nothing to list
  CHECK(d.resources.size() == 4);                // storage.k8s.io was not asked for
  CHECK(d.problems == std::vector<std::string>{
                          "GET /apis/metrics.k8s.io/v1beta1: HTTP 503: service unavailable"});
}

TEST_CASE("discovery: a server that answers nothing is an error", "[kube][discovery]") {
  FakeKubeApi api;
  Serve(api, "/api/v1", R"({"kind":"Status","code":401})", 401);
  api.Listen();
  Discovery d;
  std::string error;
  CHECK_FALSE(Discover(api.Endpoint(), {"*"}, &d, &error));
  CHECK(error == R"(GET /api/v1: HTTP 401: {"kind":"Status","code":401})");
}

}  // namespace
}  // namespace gpulint
