#include "webhook/net/tls_context.h"

#include <openssl/err.h>
#include <openssl/x509.h>

#include <ctime>

#include "common/openssl_errors.h"

namespace gpulint {
namespace {

int64_t NotAfter(SSL_CTX* ctx) {
  X509* leaf = SSL_CTX_get0_certificate(ctx);
  std::tm tm{};
  if (!leaf || ASN1_TIME_to_tm(X509_get0_notAfter(leaf), &tm) != 1) return 0;
  return static_cast<int64_t>(timegm(&tm));
}

// ECDHE with AEAD only for TLS 1.2 (what kube-apiserver offers); TLS 1.3 keeps
// OpenSSL's suites, all of which are fine.
constexpr const char* kTls12Ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

}  // namespace

SslCtxPtr MakeServerContext(const TlsFiles& files, std::string* error, int64_t* not_after) {
  ERR_clear_error();
  SslCtxPtr ctx(SSL_CTX_new(TLS_server_method()), SSL_CTX_free);
  SSL_CTX* c = ctx.get();
  if (!c) {
    *error = "cannot create a TLS context: " + OpenSslErrors();
    return nullptr;
  }
  SSL_CTX_set_min_proto_version(c, TLS1_2_VERSION);
  SSL_CTX_set_options(c, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION |
                             SSL_OP_CIPHER_SERVER_PREFERENCE);
  SSL_CTX_set_mode(c, SSL_MODE_RELEASE_BUFFERS);
  // One read() per record rather than one for its header and one for the rest.
  SSL_CTX_set_read_ahead(c, 1);
  SSL_CTX_set_cipher_list(c, kTls12Ciphers);
  static const unsigned char kSessionContext[] = "gpulint-webhook";
  SSL_CTX_set_session_id_context(c, kSessionContext, sizeof(kSessionContext) - 1);
  // The key first: OpenSSL refuses a key that does not match a certificate
  // already loaded with a less helpful message than the check below.
  if (SSL_CTX_use_PrivateKey_file(c, files.key.c_str(), SSL_FILETYPE_PEM) != 1) {
    *error = files.key + ": cannot load the private key: " + OpenSslErrors();
    return nullptr;
  }
  if (SSL_CTX_use_certificate_chain_file(c, files.cert.c_str()) != 1) {
    *error = files.cert + ": cannot load the certificate: " + OpenSslErrors();
    return nullptr;
  }
  if (SSL_CTX_check_private_key(c) != 1) {
    ERR_clear_error();
    *error = files.key + ": the private key does not match the certificate in " + files.cert;
    return nullptr;
  }
  if (!files.client_ca.empty()) {
    STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(files.client_ca.c_str());
    if (!names || SSL_CTX_load_verify_locations(c, files.client_ca.c_str(), nullptr) != 1) {
      if (names) sk_X509_NAME_pop_free(names, X509_NAME_free);
      *error = files.client_ca + ": cannot load the client CA: " + OpenSslErrors();
      return nullptr;
    }
    SSL_CTX_set_client_CA_list(c, names);
    SSL_CTX_set_verify(c, SSL_VERIFY_PEER, nullptr);
  }
  *not_after = NotAfter(c);
  return ctx;
}

}  // namespace gpulint
