// The serving certificate, however it is made, is one the API server accepts
// for the Service it calls, and it is the CA the webhook configurations trust.
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <catch2/catch.hpp>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "tests/chart/chart_support.h"

namespace gpulint::chart_test {
namespace {

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using X509Ptr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using StorePtr = std::unique_ptr<X509_STORE, Deleter<X509_STORE, X509_STORE_free>>;
using StoreCtxPtr = std::unique_ptr<X509_STORE_CTX, Deleter<X509_STORE_CTX, X509_STORE_CTX_free>>;

X509Ptr ParseCert(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509Ptr cert(PEM_read_bio_X509(bio, nullptr, nullptr, nullptr));
  BIO_free(bio);
  return cert;
}

KeyPtr ParseKey(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  KeyPtr key(PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr));
  BIO_free(bio);
  return key;
}

// Verifies `cert` as a TLS server certificate for `host` issued by `ca`, as
// the API server does; "ok" or OpenSSL's reason.
std::string VerifyServing(const std::string& ca_pem, const std::string& cert_pem,
                          const std::string& host) {
  X509Ptr ca = ParseCert(ca_pem), cert = ParseCert(cert_pem);
  if (!ca || !cert) return "not a PEM certificate";
  StorePtr store(X509_STORE_new());
  X509_STORE_add_cert(store.get(), ca.get());
  StoreCtxPtr ctx(X509_STORE_CTX_new());
  X509_STORE_CTX_init(ctx.get(), store.get(), cert.get(), nullptr);
  X509_STORE_CTX_set_purpose(ctx.get(), X509_PURPOSE_SSL_SERVER);
  X509_VERIFY_PARAM_set1_host(X509_STORE_CTX_get0_param(ctx.get()), host.c_str(), host.size());
  if (X509_verify_cert(ctx.get()) == 1) return "ok";
  return X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx.get()));
}

std::vector<std::string> ServiceNames(const std::string& ns) {
  std::string svc = kRelease;
  return {svc, svc + "." + ns, svc + "." + ns + ".svc", svc + "." + ns + ".svc.cluster.local"};
}

TEST_CASE("the chart-made CA signs a certificate for the Service and is in both caBundles",
          "[chart][tls]") {
  for (const std::string ns : {"gpu-system", "ml-platform"}) {
    INFO(ns);
    Rendered r = Render({}, ns);
    REQUIRE(r.helm.status == 0);
    const json* secret = FindObject(r, "Secret", std::string(kRelease) + "-tls");
    REQUIRE(secret != nullptr);
    CHECK(At(*secret, "/type") == "kubernetes.io/tls");
    std::string ca_b64 = Str(At(*secret, "/data/ca.crt"));
    // Helm registering the configurations puts the CA in each webhook; the
    // webhook registering them (the default) reads it from the Secret.
    Rendered helm_registers = Render({"--set", "webhook.selfRegister=false"}, ns);
    REQUIRE(helm_registers.helm.status == 0);
    for (const json& config : Configurations(helm_registers)) {
      INFO(config.at("kind"));
      for (const json& w : At(config, "/webhooks"))
        CHECK(Str(At(w, "/clientConfig/caBundle")) ==
              Str(At(*FindObject(helm_registers, "Secret"), "/data/ca.crt")));
    }
    std::string ca = Base64Decode(ca_b64);
    std::string cert = Base64Decode(Str(At(*secret, "/data/tls.crt")));
    for (const std::string& name : ServiceNames(ns)) {
      INFO(name);
      CHECK(VerifyServing(ca, cert, name) == "ok");
    }
    CHECK(VerifyServing(ca, cert, std::string(kRelease) + ".other.svc") ==
          "hostname mismatch");
    CHECK(VerifyServing(cert, cert, ServiceNames(ns)[2]) != "ok");  // not its own CA

    X509Ptr parsed = ParseCert(cert);
    KeyPtr key = ParseKey(Base64Decode(Str(At(*secret, "/data/tls.key"))));
    REQUIRE(parsed);
    REQUIRE(key);
    CHECK(X509_check_private_key(parsed.get(), key.get()) == 1);
    CHECK(EVP_PKEY_base_id(key.get()) == EVP_PKEY_EC);
    time_t in_a_year = std::time(nullptr) + 365 * 24 * 3600;
    CHECK(X509_cmp_time(X509_get0_notAfter(parsed.get()), &in_a_year) == 1);
  }
}

TEST_CASE("with cert-manager a Certificate names the Service and its CA is injected",
          "[chart][tls]") {
  for (const ValueSet& set : ValueSets()) {
    if (!set.cert_manager) continue;
    INFO(set.name);
    Rendered r = Render(set.args, set.ns);
    REQUIRE(r.helm.status == 0);
    CHECK(FindObjects(r, "Secret").empty());
    const json* serving = FindObject(r, "Certificate", std::string(kRelease) + "-serving");
    REQUIRE(serving != nullptr);
    CHECK(At(*serving, "/spec/secretName") == std::string(kRelease) + "-tls");
    CHECK(At(*serving, "/spec/dnsNames") == json(ServiceNames(set.ns)));
    // cert-manager's injector fills in the caBundles helm registers; with
    // selfRegister the webhook does, from the Secret's ca.crt.
    for (const json& config : Configurations(r)) {
      INFO(config.at("kind"));
      CHECK(At(config, "/metadata/annotations/cert-manager.io~1inject-ca-from") ==
            (set.self_register ? json() : json(set.ns + "/" + kRelease + "-serving")));
    }
    const json& issuer_ref = At(*serving, "/spec/issuerRef");
    if (Str(At(issuer_ref, "/kind")) == "ClusterIssuer") {
      CHECK(issuer_ref == json{{"name", "corp-ca"}, {"kind", "ClusterIssuer"}});
      CHECK(FindObjects(r, "Issuer").empty());
      continue;
    }
    // The chart's own chain: self-signed root -> CA Certificate -> CA Issuer.
    const json* issuer = FindObject(r, "Issuer", Str(At(issuer_ref, "/name")));
    REQUIRE(issuer != nullptr);
    const json* ca = FindObject(r, "Certificate", std::string(kRelease) + "-ca");
    REQUIRE(ca != nullptr);
    CHECK(At(*ca, "/spec/isCA") == true);
    CHECK(At(*issuer, "/spec/ca/secretName") == At(*ca, "/spec/secretName"));
    CHECK(FindObject(r, "Issuer", Str(At(*ca, "/spec/issuerRef/name"))) != nullptr);
  }
}

TEST_CASE("the ServiceMonitor scrapes /metrics over HTTPS verified against the serving CA",
          "[chart][tls]") {
  CHECK(FindObjects(Render({}, "gpu-system"), "ServiceMonitor").empty());
  Rendered r = Render({"--set", "serviceMonitor.enabled=true"}, "gpu-system");
  REQUIRE(r.helm.status == 0);
  const json* monitor = FindObject(r, "ServiceMonitor");
  const json* service = FindObject(r, "Service");
  const json* secret = FindObject(r, "Secret");
  REQUIRE(monitor != nullptr);
  REQUIRE(service != nullptr);
  REQUIRE(secret != nullptr);
  const json& endpoint = At(*monitor, "/spec/endpoints/0");
  CHECK(At(endpoint, "/port") == At(*service, "/spec/ports/0/name"));
  CHECK(At(endpoint, "/path") == "/metrics");
  CHECK(At(endpoint, "/scheme") == "https");
  CHECK(At(endpoint, "/tlsConfig/ca/secret") ==
        json{{"name", At(*secret, "/metadata/name")}, {"key", "ca.crt"}});
  CHECK(Selects(At(*monitor, "/spec/selector/matchLabels"), At(*service, "/metadata/labels")));
  CHECK(At(*monitor, "/spec/namespaceSelector/matchNames") == json{"gpu-system"});
  CHECK(VerifyServing(Base64Decode(Str(At(*secret, "/data/ca.crt"))),
                      Base64Decode(Str(At(*secret, "/data/tls.crt"))),
                      Str(At(endpoint, "/tlsConfig/serverName"))) == "ok");
}

}  // namespace
}  // namespace gpulint::chart_test
