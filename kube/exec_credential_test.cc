// Exec credential plugins, run as kubectl runs them.
#include "kube/exec_credential.h"

#include <sys/stat.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <mutex>
#include <string>
#include <vector>

#include "kube/kubeconfig.h"
#include "tests/fake_kube_api.h"
#include "tests/golden.h"
#include "tests/temp_dir.h"

namespace gpulint {
namespace {

using testing::FakeKubeApi;

constexpr const char* kV1 = "client.authentication.k8s.io/v1";

// An executable shell script `name` in `dir`.
std::string Script(const TempDir& dir, const std::string& name, const std::string& body) {
  std::string path = dir.Write(name, "#!/bin/sh\n" + body);
  chmod(path.c_str(), 0755);
  return path;
}

std::string Credential(const std::string& status) {
  return std::string("{\"apiVersion\":\"") + kV1 +
         "\",\"kind\":\"ExecCredential\",\"status\":" + status + "}";
}

TEST_CASE("an exec plugin's token, its arguments, env and KUBERNETES_EXEC_INFO", "[kube][exec]") {
  FakeKubeApi api;
  std::mutex mu;
  std::vector<std::string> authorizations;
  api.server().Get("/version", [&](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu);
    authorizations.push_back(req.get_header_value("Authorization"));
    res.set_content("{}", "application/json");
  });
  api.Listen();
  TempDir dir;
  // The plugin records what it was given, counts its runs, and prints a token.
  Script(dir, "plugin",
         "echo \"$@\" > \"$(dirname \"$0\")/args\"\n"
         "echo \"$REGION\" > \"$(dirname \"$0\")/env\"\n"
         "echo \"$KUBERNETES_EXEC_INFO\" > \"$(dirname \"$0\")/info\"\n"
         "echo run >> \"$(dirname \"$0\")/runs\"\n"
         "echo '" +
             Credential(R"({"token":"from-plugin"})") + "'\n");
  std::string ca_data;
  {
    KubeEndpoint ep = api.Endpoint();
    ca_data = ep.ca_pem;
  }
  std::string kubeconfig = dir.Write(
      "config",
      "current-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: cloud}\n"
      "clusters:\n- name: k\n  cluster:\n    server: https://127.0.0.1:" +
          std::to_string(api.port()) +
          "\n    certificate-authority: ca.crt\n"
          "    extensions:\n    - name: client.authentication.k8s.io/exec\n"
          "      extension: {audience: gpulint}\n"
          "users:\n- name: cloud\n  user:\n    exec:\n"
          "      apiVersion: " +
          kV1 +
          "\n      command: ./plugin\n"
          "      args: [token, --cluster, k]\n      env: [{name: REGION, value: eu-west-1}]\n"
          "      interactiveMode: Never\n      provideClusterInfo: true\n");
  dir.Write("ca.crt", ca_data);
  KubeEndpoint ep;
  std::string error;
  REQUIRE(KubeconfigEndpoint(kubeconfig, &ep, &error));
  REQUIRE(ep.exec);
  for (int i = 0; i < 2; ++i) {
    auto client = MakeKubeClient(ep, &error);
    INFO(error);
    REQUIRE(client);
    CHECK(Get(*client, "/version", 1024).status == 200);
  }
  CHECK(authorizations == std::vector<std::string>{"Bearer from-plugin", "Bearer from-plugin"});
  // Run once: the credential said no expiry, so it is kept until refused.
  CHECK(testing::ReadFile(dir.Path("runs")) == "run\n");
  CHECK(testing::ReadFile(dir.Path("args")) == "token --cluster k\n");
  CHECK(testing::ReadFile(dir.Path("env")) == "eu-west-1\n");
  std::string info = testing::ReadFile(dir.Path("info"));
  CHECK(info.find(std::string("{\"apiVersion\":\"") + kV1 +
                  "\",\"kind\":\"ExecCredential\",\"spec\":{\"interactive\":false,\"cluster\":"
                  "{\"server\":\"https://127.0.0.1:" +
                  std::to_string(api.port()) + "\",\"certificate-authority-data\":\"") == 0);
  CHECK(info.find("\"config\":{\"audience\":\"gpulint\"}}}}") != std::string::npos);

  ep.exec->Invalidate();  // as after a 401
  REQUIRE(MakeKubeClient(ep, &error));
  CHECK(testing::ReadFile(dir.Path("runs")) == "run\nrun\n");
}

// How many times a plugin printing `status` runs for two Gets in a row.
int RunsForTwoGets(const std::string& status) {
  TempDir dir;
  ExecConfig config;
  config.api_version = kV1;
  config.user = "u";
  config.command = Script(
      dir, "plugin", "echo run >> \"$(dirname \"$0\")/runs\"\necho '" + Credential(status) + "'\n");
  ExecCredentials credentials(config);
  ExecCredential c;
  std::string error;
  REQUIRE(credentials.Get(&c, &error));
  REQUIRE(credentials.Get(&c, &error));
  std::string runs = testing::ReadFile(dir.Path("runs"));
  return static_cast<int>(std::count(runs.begin(), runs.end(), '\n'));
}

TEST_CASE("an exec credential is kept until a minute before it expires", "[kube][exec]") {
  // Past the clock's range: never expires.
  CHECK(RunsForTwoGets(R"({"token":"t","expirationTimestamp":"2999-01-01T00:00:00Z"})") == 1);
  CHECK(RunsForTwoGets(R"({"token":"t","expirationTimestamp":"2020-01-01T00:00:30+00:00"})") == 2);
}

TEST_CASE("an exec plugin that fails, or is missing, says so", "[kube][exec]") {
  TempDir dir;
  ExecConfig config;
  config.api_version = kV1;
  config.user = "eks";
  config.command = Script(dir, "broken", "echo 'Unable to locate credentials' >&2\nexit 255\n");
  ExecCredential c;
  std::string error;
  CHECK_FALSE(ExecCredentials(config).Get(&c, &error));
  CHECK(error == "the credential plugin \"" + config.command +
                     "\" of user \"eks\" failed (exit status 255): Unable to locate credentials");

  config.command = "gpulint-no-such-plugin";
  config.install_hint = "install the AWS CLI: https://aws.amazon.com/cli/";
  CHECK_FALSE(ExecCredentials(config).Get(&c, &error));
  CHECK(error ==
        "the credential plugin \"gpulint-no-such-plugin\" of user \"eks\" is not on PATH: install "
        "the AWS CLI: https://aws.amazon.com/cli/");
}

TEST_CASE("ExecCredential: what a plugin must print", "[kube][exec]") {
  struct Case {
    std::string text, error;
  } cases[] = {
      {"not json",
       "its output is not an ExecCredential: not JSON at line 1, column 2 (the output is not "
       "shown: it may hold a credential)"},
      // Cut short after the token began: the parser's own message would quote it.
      {R"({"kind":"ExecCredential","status":{"token":"eyJhbGciOiJSUzI1NiJ9.c2VjcmV0)",
       "its output is not an ExecCredential: not JSON at line 1, column 74 (the output is not "
       "shown: it may hold a credential)"},
      {R"({"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential"})",
       "its output is not an ExecCredential of client.authentication.k8s.io/v1 (apiVersion "
       "\"client.authentication.k8s.io/v1beta1\", kind \"ExecCredential\")"},
      {Credential("{}"), "its ExecCredential holds neither a token nor a client certificate"},
      {Credential(R"({"clientCertificateData":"PEM"})"),
       "its ExecCredential has a client certificate without its key, or a key without its "
       "certificate"},
      {Credential(R"({"token":"t","expirationTimestamp":"tomorrow"})"),
       "its ExecCredential's expirationTimestamp \"tomorrow\" is not RFC 3339"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    ExecCredential out;
    std::string error;
    CHECK_FALSE(ParseExecCredential(c.text, kV1, &out, &error));
    CHECK(error == c.error);
    CHECK(error.find("eyJ") == std::string::npos);
  }
  ExecCredential out;
  std::string error;
  REQUIRE(ParseExecCredential(
      Credential(
          R"({"clientCertificateData":"CERT","clientKeyData":"KEY","expirationTimestamp":"2030-01-02T03:04:05.123Z"})"),
      kV1, &out, &error));
  CHECK(out.client_cert_pem == "CERT");
  CHECK(out.client_key_pem == "KEY");
  CHECK(ExecClock::to_time_t(out.expires) == 1893553445);
}

}  // namespace
}  // namespace gpulint
