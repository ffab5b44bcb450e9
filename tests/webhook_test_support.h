// Shared by the webhook tests: certificates made with the OpenSSL API, a
// server on an ephemeral loopback port, an HTTPS client that trusts the test
// CA, a raw TLS connection for requests no well-behaved client would send, and
// a stand-in for the API server.
#ifndef GPULINT_TESTS_WEBHOOK_TEST_SUPPORT_H_
#define GPULINT_TESTS_WEBHOOK_TEST_SUPPORT_H_

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/fake_kube_api.h"
#include "tests/golden.h"
#include "kube/kube_client.h"
#include "webhook/server/server.h"

namespace gpulint::webhook_test {

namespace fs = std::filesystem;
using ::gpulint::testing::CertPair;
using ::gpulint::testing::FakeKubeApi;
using ::gpulint::testing::TestCa;
using Json = nlohmann::json;

inline std::string AdmissionDir() { return ::gpulint::testing::SourceDir() + "/testdata/admission"; }

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Writes through a temporary name and a rename, as editors and kubelet do.
inline void WriteFileAtomic(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
  }
  fs::rename(tmp, path);
}

// The sets of captured bodies (testdata/admission/README.md): kube-apiserver
// 1.26's in testdata/admission, 1.36's in testdata/admission/v1.36
// (tests/e2e/capture_reviews.sh), each numbered by what made it.
inline std::vector<std::string> CaptureSets() { return {"", "v1.36"}; }

// The captured bodies of one set, sorted: 01-...json, 02-...json, ...
inline std::vector<std::string> CapturedReviews(const std::string& set = "") {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(AdmissionDir() + (set.empty() ? "" : "/" + set))) {
    std::string name = e.path().filename().string();
    if (name.size() > 3 && std::isdigit(name[0]) && std::isdigit(name[1]) && name[2] == '-' &&
        e.path().extension() == ".json")
      files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Captured review `number` of kube-apiserver 1.26's set (01-...json is 1).
inline std::string Capture(int number) { return ReadFile(CapturedReviews()[number - 1]); }

// A POST request's bytes, as a raw connection sends them: `headers` is whole
// lines, each ending in CRLF; the Content-Length is the body's.
inline std::string Post(const std::string& path, const std::string& headers,
                        const std::string& body) {
  return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "gpulint-webhook-test-XXXXXX").string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Log lines a server wrote, for assertions.
class LogCapture {
 public:
  LogSink Sink() {
    return [this](std::string_view line) {
      std::lock_guard<std::mutex> lock(mu_);
      lines_.emplace_back(line);
    };
  }
  // Parsed lines whose "msg" is `msg`.
  std::vector<Json> Messages(const std::string& msg) const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<Json> out;
    for (const std::string& l : lines_) {
      Json j = Json::parse(l);
      if (j.value("msg", "") == msg) out.push_back(j);
    }
    return out;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> lines_;
};

// Polls `cond` until it holds; the limit only keeps a broken build from hanging.
inline bool Eventually(const std::function<bool()>& cond,
                       std::chrono::seconds limit = std::chrono::seconds(30)) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return cond();
}

inline std::unique_ptr<httplib::SSLClient> ClientFor(int port, const std::string& ca_file) {
  signal(SIGPIPE, SIG_IGN);  // writes to a server that went away must fail, not kill the test
  auto client = std::make_unique<httplib::SSLClient>("127.0.0.1", port);
  client->set_ca_cert_path(ca_file);
  client->enable_server_certificate_verification(true);
  client->set_connection_timeout(10);
  client->set_read_timeout(30);
  client->set_keep_alive(true);
  // A request's head and body go out as two writes: without this, the body
  // waits on the server's delayed ACK (40 ms a request).
  client->set_tcp_nodelay(true);
  return client;
}

// A WebhookServer on 127.0.0.1 with an ephemeral port and a fresh CA; files
// live in dir: ca.pem, tls.crt, tls.key.
class TestServer {
 public:
  explicit TestServer(const std::function<void(ServerOptions&, const TempDir&)>& tweak = {})
      : ca_("gpulint test CA") {
    signal(SIGPIPE, SIG_IGN);
    CertPair pair = ca_.Issue("gpulint-webhook.test.svc");
    WriteFileAtomic(dir_ / "ca.pem", ca_.pem());
    WriteFileAtomic(dir_ / "tls.crt", pair.cert_pem);
    WriteFileAtomic(dir_ / "tls.key", pair.key_pem);
    ServerOptions o;
    o.host = "127.0.0.1";
    o.port = 0;
    o.tls.cert = dir_ / "tls.crt";
    o.tls.key = dir_ / "tls.key";
    o.reload_interval = std::chrono::milliseconds(50);
    o.log = log_.Sink();
    if (tweak) tweak(o, dir_);
    server_ = std::make_unique<WebhookServer>(o);
    std::string error;
    REQUIRE(server_->Start(&error));
    REQUIRE(error.empty());
  }
  ~TestServer() { server_->Shutdown(); }

  WebhookServer& server() { return *server_; }
  int port() const { return server_->port(); }
  const TempDir& dir() const { return dir_; }
  const TestCa& ca() const { return ca_; }
  LogCapture& log() { return log_; }
  std::string ca_file() const { return dir_ / "ca.pem"; }
  std::unique_ptr<httplib::SSLClient> Client() const { return ClientFor(port(), ca_file()); }

  // POSTs a review body and parses the answer, which must be an HTTP 200 JSON review.
  Json Review(const std::string& endpoint, const std::string& body) {
    auto client = Client();
    auto res = client->Post(("/" + endpoint).c_str(), body, "application/json");
    REQUIRE(res);
    INFO(res->body);
    REQUIRE(res->status == 200);
    REQUIRE(res->get_header_value("Content-Type") == "application/json");
    return Json::parse(res->body);
  }

 private:
  TempDir dir_;
  TestCa ca_;
  LogCapture log_;
  std::unique_ptr<WebhookServer> server_;
};

// A TLS connection driven byte by byte, for requests httplib's client will not
// send (lying Content-Length, endless headers) and to hold one connection
// across a certificate rotation.
class RawTls {
 public:
  RawTls(int port, const std::string& ca_file) {
    signal(SIGPIPE, SIG_IGN);
    sock_ = ::socket(AF_INET, SOCK_STREAM, 0);
    timeval tv{30, 0};  // only so that a broken server cannot hang the test
    setsockopt(sock_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(sock_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(sock_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) return;
    ctx_ = SSL_CTX_new(TLS_client_method());
    SSL_CTX_load_verify_locations(ctx_, ca_file.c_str(), nullptr);
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
    ssl_ = SSL_new(ctx_);
    SSL_set_fd(ssl_, sock_);
    ok_ = SSL_connect(ssl_) == 1;
    ERR_clear_error();
  }
  ~RawTls() {
    if (ssl_) SSL_free(ssl_);
    if (ctx_) SSL_CTX_free(ctx_);
    if (sock_ >= 0) ::close(sock_);
  }
  bool ok() const { return ok_; }
  int fd() const { return sock_; }

  bool Send(std::string_view data) {
    while (!data.empty()) {
      int n = SSL_write(ssl_, data.data(), static_cast<int>(std::min<size_t>(data.size(), 1 << 20)));
      if (n <= 0) {
        ERR_clear_error();
        return false;
      }
      data.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

  // One response: headers, then Content-Length bytes of body (none for an
  // interim 1xx, or when `to_head`, an answer to HEAD). Empty when the
  // connection ends first.
  std::string ReadResponse(bool to_head = false) {
    std::string data;
    size_t header_end = std::string::npos;
    size_t want = std::string::npos;
    char buf[4096];
    while (data.size() < want) {
      int n = SSL_read(ssl_, buf, sizeof(buf));
      if (n <= 0) {
        ERR_clear_error();
        return header_end == std::string::npos ? std::string() : data;
      }
      data.append(buf, static_cast<size_t>(n));
      if (header_end == std::string::npos && (header_end = data.find("\r\n\r\n")) != std::string::npos) {
        size_t cl = data.find("Content-Length: ");
        // Without a length the body runs to the end of the connection.
        want = cl < header_end ? header_end + 4 + std::stoul(data.substr(cl + 16))
                               : std::string::npos - 1;
        if (to_head || data.rfind("HTTP/1.1 1", 0) == 0) want = header_end + 4;
      }
    }
    return data;
  }

  // True when the server has closed the connection (EOF or reset).
  bool ClosedByPeer() {
    char c;
    int n = SSL_read(ssl_, &c, 1);
    ERR_clear_error();
    return n <= 0;
  }

  // The subject CN of the certificate this connection was set up with.
  std::string PeerName() const {
    X509* cert = SSL_get1_peer_certificate(ssl_);
    if (!cert) return {};
    char cn[256] = {};
    X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, cn, sizeof(cn));
    X509_free(cert);
    return cn;
  }

 private:
  int sock_ = -1;
  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
  bool ok_ = false;
};

inline int StatusOf(const std::string& response) {
  if (response.rfind("HTTP/1.1 ", 0) != 0) return 0;
  return std::stoi(response.substr(9, 3));
}

inline std::string BodyOf(const std::string& response) {
  size_t end = response.find("\r\n\r\n");
  return end == std::string::npos ? std::string() : response.substr(end + 4);
}

// RFC 4648 base64, decoded with OpenSSL rather than our own code.
inline std::string DecodeBase64(const std::string& in) {
  std::string out(in.size() / 4 * 3 + 3, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(in.data()), static_cast<int>(in.size()));
  REQUIRE(n >= 0);
  size_t pad = in.size() >= 2 && in[in.size() - 1] == '=' ? (in[in.size() - 2] == '=' ? 2 : 1) : 0;
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

// The value of one series in `metrics`' text, or "" when it is not there.
inline std::string Metric(const Metrics& metrics, const std::string& series) {
  std::istringstream in(metrics.Render());
  for (std::string line; std::getline(in, line);)
    if (line.rfind(series + " ", 0) == 0) return line.substr(series.size() + 1);
  return {};
}

inline std::string Metric(WebhookServer& server, const std::string& series) {
  return Metric(server.metrics(), series);
}

}  // namespace gpulint::webhook_test

#endif  // GPULINT_TESTS_WEBHOOK_TEST_SUPPORT_H_
