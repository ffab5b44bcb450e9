// A stand-in for kube-apiserver in tests: a certificate authority made with
// the OpenSSL API, and an HTTPS server on an ephemeral loopback port whose
// certificate it signs, for the API server client (kube/) and the webhook's
// loops that run against it.
#ifndef GPULINT_TESTS_FAKE_KUBE_API_H_
#define GPULINT_TESTS_FAKE_KUBE_API_H_

#include <httplib.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <thread>

#include "kube/kube_client.h"
#include "tests/temp_dir.h"

namespace gpulint::testing {

struct CertPair {
  std::string cert_pem;
  std::string key_pem;
};

// A certificate authority for one test, with ECDSA P-256 keys.
class TestCa {
 public:
  static constexpr long kMonth = 30L * 24 * 3600;

  explicit TestCa(const std::string& name) {
    key_ = EVP_EC_gen("P-256");
    REQUIRE(key_ != nullptr);
    cert_ = Make(name, key_, nullptr, nullptr, true, {}, kMonth);
  }
  ~TestCa() {
    X509_free(cert_);
    EVP_PKEY_free(key_);
  }
  TestCa(const TestCa&) = delete;
  TestCa& operator=(const TestCa&) = delete;

  std::string pem() const { return CertPem(cert_); }

  // A leaf valid from an hour ago (or a day before it expires) until
  // `expires_in` seconds from now, which may be negative.
  CertPair Issue(const std::string& cn, const std::string& sans = "DNS:localhost,IP:127.0.0.1",
                 long expires_in = kMonth) const {
    EVP_PKEY* key = EVP_EC_gen("P-256");
    REQUIRE(key != nullptr);
    X509* cert = Make(cn, key, cert_, key_, false, sans, expires_in);
    CertPair pair{CertPem(cert), KeyPem(key)};
    X509_free(cert);
    EVP_PKEY_free(key);
    return pair;
  }

 private:
  static void AddExt(X509* cert, X509* issuer, int nid, const std::string& value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
    REQUIRE(ext != nullptr);
    X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
  }

  static X509* Make(const std::string& cn, EVP_PKEY* key, X509* issuer, EVP_PKEY* issuer_key,
                    bool ca, const std::string& sans, long expires_in) {
    static long serial = 1000;
    X509* cert = X509_new();
    X509_set_version(cert, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(cert), ++serial);
    X509_gmtime_adj(X509_getm_notBefore(cert), std::min(-3600L, expires_in - 24 * 3600));
    X509_gmtime_adj(X509_getm_notAfter(cert), expires_in);
    X509_set_pubkey(cert, key);
    X509_NAME* name = X509_get_subject_name(cert);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
    X509_set_issuer_name(cert, issuer ? X509_get_subject_name(issuer) : name);
    X509* signer = issuer ? issuer : cert;
    if (ca) {
      AddExt(cert, signer, NID_basic_constraints, "critical,CA:TRUE");
      AddExt(cert, signer, NID_key_usage, "critical,keyCertSign,cRLSign");
    } else {
      AddExt(cert, signer, NID_basic_constraints, "critical,CA:FALSE");
      AddExt(cert, signer, NID_key_usage, "critical,digitalSignature");
      AddExt(cert, signer, NID_ext_key_usage, "serverAuth,clientAuth");
      if (!sans.empty()) AddExt(cert, signer, NID_subject_alt_name, sans);
    }
    REQUIRE(X509_sign(cert, issuer_key ? issuer_key : key, EVP_sha256()) > 0);
    return cert;
  }

  static std::string CertPem(X509* cert) {
    BIO* bio = BIO_new(BIO_s_mem());
    PEM_write_bio_X509(bio, cert);
    return Drain(bio);
  }
  static std::string KeyPem(EVP_PKEY* key) {
    BIO* bio = BIO_new(BIO_s_mem());
    PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
    return Drain(bio);
  }
  static std::string Drain(BIO* bio) {
    char* data = nullptr;
    long n = BIO_get_mem_data(bio, &data);
    std::string out(data, static_cast<size_t>(n));
    BIO_free(bio);
    return out;
  }

  EVP_PKEY* key_ = nullptr;
  X509* cert_ = nullptr;
};

// An HTTPS stand-in for kube-apiserver on 127.0.0.1, with a certificate from
// a CA of its own: a test routes requests on server(), then calls Listen().
// Stop() then Listen() brings it back on the same port: an API server that
// went away and came back. Streaming handlers must end once stopping() holds.
class FakeKubeApi {
 public:
  explicit FakeKubeApi(const std::string& sans = "DNS:localhost,IP:127.0.0.1")
      : ca_("fake API server CA") {
    signal(SIGPIPE, SIG_IGN);
    CertPair pair = ca_.Issue("kube-apiserver", sans);
    std::string cert = dir_.Write("tls.crt", pair.cert_pem);
    std::string key = dir_.Write("tls.key", pair.key_pem);
    server_ = std::make_unique<httplib::SSLServer>(cert.c_str(), key.c_str());
  }
  ~FakeKubeApi() { Stop(); }
  FakeKubeApi(const FakeKubeApi&) = delete;
  FakeKubeApi& operator=(const FakeKubeApi&) = delete;

  httplib::SSLServer& server() { return *server_; }
  void Listen() {
    if (port_ == 0) {
      port_ = server_->bind_to_any_port("127.0.0.1");
    } else {
      REQUIRE(server_->bind_to_port("127.0.0.1", port_));
    }
    REQUIRE(port_ > 0);
    thread_ = std::thread([this] { server_->listen_after_bind(); });
  }
  void Stop() {
    if (!thread_.joinable()) return;
    stopping_ = true;
    server_->stop();
    thread_.join();
    stopping_ = false;
  }
  bool stopping() const { return stopping_; }

  int port() const { return port_; }
  std::string ca_pem() const { return ca_.pem(); }
  KubeEndpoint Endpoint() const {
    KubeEndpoint ep;
    ep.host = "127.0.0.1";
    ep.port = port_;
    ep.ca_pem = ca_.pem();
    ep.token = "test-token";
    return ep;
  }

 private:
  ::gpulint::TempDir dir_;
  TestCa ca_;
  std::unique_ptr<httplib::SSLServer> server_;
  int port_ = 0;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
};

}  // namespace gpulint::testing

#endif  // GPULINT_TESTS_FAKE_KUBE_API_H_
