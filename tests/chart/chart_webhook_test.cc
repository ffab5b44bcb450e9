// The rendered chart against the real gpulint-webhook: the Deployment's flags
// parse, and its certificate, key and policy, laid out as the volumes mount
// them, bring the server up ready over TLS that verifies against the caBundle
// for the Service's name.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/chart/chart_support.h"

#ifndef GPULINT_WEBHOOK_BINARY
#error "GPULINT_WEBHOOK_BINARY must name the gpulint-webhook binary"
#endif

namespace gpulint::chart_test {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> ContainerArgs(const Rendered& r) {
  std::vector<std::string> args;
  for (const json& a : At(*FindObject(r, "Deployment"), "/spec/template/spec/containers/0/args"))
    args.push_back(a.get<std::string>());
  return args;
}

// Writes every Secret and ConfigMap volume of the pod under `root`, where the
// container would see it, and returns the container's mount paths.
std::vector<std::string> LayOutVolumes(const Rendered& r, const fs::path& root) {
  const json& pod = At(*FindObject(r, "Deployment"), "/spec/template/spec");
  std::vector<std::string> mounts;
  for (const json& mount : At(pod, "/containers/0/volumeMounts")) {
    std::string path = mount.at("mountPath").get<std::string>();
    mounts.push_back(path);
    fs::create_directories(root / path.substr(1));
    for (const json& volume : At(pod, "/volumes")) {
      if (volume.at("name") != mount.at("name")) continue;
      const json* secret = FindObject(r, "Secret", Str(At(volume, "/secret/secretName")));
      const json* config_map = FindObject(r, "ConfigMap", Str(At(volume, "/configMap/name")));
      if (secret)
        for (const auto& [key, value] : At(*secret, "/data").items())
          std::ofstream(root / path.substr(1) / key) << Base64Decode(value.get<std::string>());
      if (config_map)
        for (const auto& [key, value] : At(*config_map, "/data").items())
          std::ofstream(root / path.substr(1) / key) << value.get<std::string>();
    }
  }
  return mounts;
}

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

// GET `path` over TLS, trusting only `ca_pem` and checking the certificate is
// for `host`. The status line, or "" when no TLS connection could be made.
std::string Get(int port, const std::string& ca_pem, const std::string& host,
                const std::string& path) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  BIO* pem = BIO_new_mem_buf(ca_pem.data(), static_cast<int>(ca_pem.size()));
  X509* ca = PEM_read_bio_X509(pem, nullptr, nullptr, nullptr);
  X509_STORE_add_cert(SSL_CTX_get_cert_store(ctx), ca);
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  BIO* bio = BIO_new_ssl_connect(ctx);
  SSL* ssl = nullptr;
  BIO_get_ssl(bio, &ssl);
  SSL_set_tlsext_host_name(ssl, host.c_str());
  SSL_set1_host(ssl, host.c_str());
  BIO_set_conn_hostname(bio, ("127.0.0.1:" + std::to_string(port)).c_str());
  std::string response;
  if (BIO_do_handshake(bio) == 1) {
    std::string request = "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n";
    BIO_write(bio, request.data(), static_cast<int>(request.size()));
    char buf[4096];
    for (int n; (n = BIO_read(bio, buf, sizeof buf)) > 0;) response.append(buf, n);
  }
  ERR_clear_error();
  BIO_free_all(bio);
  X509_free(ca);
  BIO_free(pem);
  SSL_CTX_free(ctx);
  return response.substr(0, response.find("\r\n"));
}

TEST_CASE("gpulint-webhook accepts every value set's rendered flags", "[chart][webhook]") {
  for (const ValueSet& set : ValueSets()) {
    INFO(set.name);
    Rendered r = Render(set.args, set.ns);
    REQUIRE(r.helm.status == 0);
    // --help returns 0 only once every flag before it has parsed.
    std::vector<std::string> argv = {GPULINT_WEBHOOK_BINARY};
    for (const std::string& a : ContainerArgs(r)) argv.push_back(a);
    argv.push_back("--help");
    Output out = RunCommand(argv);
    INFO(out.err);
    CHECK(out.status == 0);
    argv.insert(argv.end() - 1, "--no-such-flag");
    CHECK(RunCommand(argv).status == 2);
  }
}

TEST_CASE("the rendered certificate, key and policy bring gpulint-webhook up ready",
          "[chart][webhook]") {
  Rendered r = Render({}, "gpu-system");
  REQUIRE(r.helm.status == 0);
  fs::path root = fs::temp_directory_path() / ("gpulint_chart_root." + std::to_string(getpid()));
  std::vector<std::string> mounts = LayOutVolumes(r, root);
  int port = FreePort();
  std::vector<std::string> argv = {GPULINT_WEBHOOK_BINARY};
  for (std::string a : ContainerArgs(r)) {
    // No API server here to watch Nodes from, advertise their VRAM to, or
    // register the webhook configurations with.
    if (a == "--in-cluster" || a == "--advertise-vram" || a.rfind("--register=", 0) == 0 ||
        a.rfind("--ca-bundle=", 0) == 0)
      continue;
    if (a.rfind("--listen=", 0) == 0) a = "--listen=127.0.0.1:" + std::to_string(port);
    if (a.rfind("--drain-seconds=", 0) == 0) a = "--drain-seconds=0";
    for (const std::string& m : mounts)
      if (size_t at = a.find("=" + m + "/"); at != std::string::npos)
        a.insert(at + 1, root.string());
    argv.push_back(a);
  }
  std::string log = (root / "webhook.log").string();
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 2);
    std::vector<char*> args;
    for (std::string& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  REQUIRE(pid > 0);
  std::string ca = Base64Decode(Str(At(*FindObject(r, "Secret"), "/data/ca.crt")));
  std::string host = std::string(kRelease) + ".gpu-system.svc";
  std::string ready;
  // Startup takes a moment; wait for the first answer, not for a set time.
  for (int i = 0; i < 200 && ready.empty() && waitpid(pid, nullptr, WNOHANG) == 0; ++i) {
    ready = Get(port, ca, host, "/readyz");
    if (ready.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  CHECK(ready == "HTTP/1.1 200 OK");
  CHECK(Get(port, ca, host, "/healthz") == "HTTP/1.1 200 OK");
  CHECK(Get(port, ca, std::string(kRelease) + ".elsewhere.svc", "/readyz") == "");
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  std::ifstream in(log);
  INFO(std::string(std::istreambuf_iterator<char>(in), {}));
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  std::error_code ec;
  fs::remove_all(root, ec);
}

}  // namespace
}  // namespace gpulint::chart_test
