// Reading a cluster into the audit over HTTPS: discovery, the lists, the
// kinds their items leave out, and a refused list said plainly.
#include "lint/cli/audit_source.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "engine/policies.h"
#include "tests/fake_kube_api.h"

namespace gpulint {
namespace {

using testing::FakeKubeApi;

constexpr const char* kForbidden =
    R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":)"
    R"("nodes is forbidden: User \"alice\" cannot list resource \"nodes\" in API group \"\" at )"
    R"(the cluster scope","reason":"Forbidden","details":{"kind":"nodes"},"code":403})";

// A cluster of one Deployment, its ReplicaSet and two pods, whose lists come
// as the API server sends them: items without apiVersion and kind.
class SmallCluster {
 public:
  explicit SmallCluster(bool nodes_forbidden) {
    Serve("/api/v1", R"({"resources":[{"name":"pods","namespaced":true,"kind":"Pod"},
        {"name":"nodes","namespaced":false,"kind":"Node"}]})");
    Serve("/apis", R"({"groups":[{"name":"apps",
        "preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}]})");
    Serve("/apis/apps/v1", R"({"resources":[
        {"name":"deployments","namespaced":true,"kind":"Deployment"},
        {"name":"replicasets","namespaced":true,"kind":"ReplicaSet"}]})");
    std::string tmpl =
        R"("template":{"spec":{"containers":[{"name":"train","image":"nvcr.io/nvidia/pytorch:24.05-py3",)"
        R"("resources":{"limits":{"nvidia.com/gpu":"1"}}}]}})";
    Serve("/api/v1/nodes",
          R"({"kind":"NodeList","metadata":{},"items":[{"metadata":{"name":"gpu-1","labels":{
              "nvidia.com/gpu.count":"1","nvidia.com/gpu.memory":"16384"}},
              "status":{"allocatable":{"memory":"64Gi","nvidia.com/gpu":"1","gpulint.io/vram":"16Gi"}}}]})",
          nodes_forbidden ? 403 : 200, kForbidden);
    Serve(
        "/apis/apps/v1/deployments",
        R"({"metadata":{},"items":[{"metadata":{"name":"train","namespace":"ml","uid":"d-1"},"spec":{)" +
            tmpl + "}}]}");
    Serve(
        "/apis/apps/v1/replicasets",
        R"({"metadata":{},"items":[{"metadata":{"name":"train-1","namespace":"ml","uid":"rs-1",)"
        R"("ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"train","uid":"d-1",)"
        R"("controller":true}]},"spec":{)" +
            tmpl + "}}]}");
    std::string pods;
    for (const char* name : {"train-1-a", "train-1-b"})
      pods +=
          std::string(pods.empty() ? "" : ",") + R"({"metadata":{"name":")" + name +
          R"(","namespace":"ml","ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet",)"
          R"("name":"train-1","uid":"rs-1","controller":true}]},"spec":{"nodeName":"gpu-1",)"
          R"("containers":[{"name":"train","image":"nvcr.io/nvidia/pytorch:24.05-py3","resources":)"
          R"({"limits":{"nvidia.com/gpu":"1"}}}]},"status":{"phase":"Running"}})";
    Serve("/api/v1/pods", R"({"metadata":{},"items":[)" + pods + "]}");
    api_.Listen();
  }
  KubeEndpoint Endpoint() const { return api_.Endpoint(); }

 private:
  void Serve(const std::string& path, const std::string& body, int status = 200,
             const std::string& refusal = "") {
    api_.server().Get(path, [=](const httplib::Request&, httplib::Response& res) {
      res.status = status;
      res.set_content(status == 200 ? body : refusal, "application/json");
    });
  }
  FakeKubeApi api_;
};

TEST_CASE("audit source: a cluster read over HTTPS, pods under their Deployment", "[audit][kube]") {
  SmallCluster cluster(false);
  ClusterAudit audit(DefaultPolicy());
  ClusterRead read;
  std::string error;
  REQUIRE(ReadCluster(cluster.Endpoint(), DefaultPolicy(), ListOptions{}, &audit, &read, &error));
  CHECK(read.problems.empty());
  CHECK(read.nodes_listed);
  CHECK(read.pods_listed);
  CHECK(read.kinds_listed == std::vector<std::string>{"Deployment.apps", "ReplicaSet.apps"});
  AuditReport report = audit.Finish();
  REQUIRE(report.nodes.size() == 1);
  CHECK(report.nodes[0].usage.pods == 2);
  REQUIRE(report.workloads.size() == 1);
  const WorkloadReport& w = report.workloads[0];
  CHECK(w.object.api_version == "apps/v1");  // named from discovery: the items carry no kind
  CHECK(w.object.kind == "Deployment");
  CHECK(w.pods == 2);
  CHECK(w.owned == 3);
}

TEST_CASE("audit source: a refused list is said with its verb, resource and group",
          "[audit][kube]") {
  SmallCluster cluster(true);
  ClusterAudit audit(DefaultPolicy());
  ClusterRead read;
  std::string error;
  REQUIRE(ReadCluster(cluster.Endpoint(), DefaultPolicy(), ListOptions{}, &audit, &read, &error));
  CHECK_FALSE(read.nodes_listed);
  CHECK(read.problems ==
        std::vector<std::string>{
            "cannot list nodes (verb list, resource nodes, the core API group, all namespaces): "
            "forbidden; no node is checked for what its pods request, and workloads are judged "
            "against the policy's node classes only (the API server said: nodes is forbidden: "
            "User \"alice\" cannot list resource \"nodes\" in API group \"\" at the cluster "
            "scope)"});
  // The rest is read and reported all the same.
  AuditReport report = audit.Finish();
  CHECK(report.nodes.empty());
  CHECK(report.pods_on_unknown_nodes == 2);
  REQUIRE(report.workloads.size() == 1);
  CHECK(report.workloads[0].object.kind == "Deployment");
}

// A server that never finishes a list (a byte every 50 ms, so no read ever
// times out): the audit's deadline ends it, and says which list it lacks.
TEST_CASE("audit source: the deadline ends a list that never ends", "[audit][kube]") {
  FakeKubeApi api;
  auto serve = [&](const std::string& path, const std::string& body) {
    api.server().Get(path, [body](const httplib::Request&, httplib::Response& res) {
      res.set_content(body, "application/json");
    });
  };
  serve("/api/v1", R"({"resources":[{"name":"pods","namespaced":true,"kind":"Pod"},
      {"name":"nodes","namespaced":false,"kind":"Node"}]})");
  serve("/apis", R"({"groups":[]})");
  serve("/api/v1/nodes", R"({"kind":"NodeList","metadata":{},"items":[]})");
  api.server().Get("/api/v1/pods", [&api](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("application/json", [&api](size_t, httplib::DataSink& sink) {
      sink.write(R"({"metadata":{},"items":[)", 23);
      while (!api.stopping() && sink.write(" ", 1))
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      return false;
    });
  });
  api.Listen();
  KubeEndpoint endpoint = api.Endpoint();
  endpoint.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  endpoint.deadline_label = "gpulint audit --timeout 2s";
  ClusterAudit audit(DefaultPolicy());
  ClusterRead read;
  std::string error;
  auto start = std::chrono::steady_clock::now();
  REQUIRE(ReadCluster(endpoint, DefaultPolicy(), ListOptions{}, &audit, &read, &error));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
  CHECK(read.nodes_listed);
  CHECK_FALSE(read.pods_listed);
  REQUIRE(read.problems.size() == 1);
  INFO(read.problems[0]);
  CHECK(read.problems[0].rfind("cannot list pods", 0) == 0);
  CHECK(read.problems[0].find("the deadline passed (gpulint audit --timeout 2s)") !=
        std::string::npos);
}

}  // namespace
}  // namespace gpulint
