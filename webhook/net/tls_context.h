// The server's TLS context: what the listener hands each new connection, made
// again when the certificate files change (tls_server.h takes the new one for
// connections accepted from then on).
#ifndef GPULINT_WEBHOOK_NET_TLS_CONTEXT_H_
#define GPULINT_WEBHOOK_NET_TLS_CONTEXT_H_

#include <openssl/ssl.h>

#include <cstdint>
#include <memory>
#include <string>

namespace gpulint {

using SslCtxPtr = std::shared_ptr<SSL_CTX>;

struct TlsFiles {
  std::string cert;       // PEM chain, leaf first
  std::string key;        // PEM private key
  std::string client_ca;  // optional: PEM bundle that signs client certificates
};

// A server context: TLS 1.2 or later, the certificate chain and its key
// (checked to belong together), and, with a client CA, a request for a client
// certificate that must verify when one is sent (whether one is required is
// up to each endpoint: probes come without one). Returns null with *error on
// failure; *not_after gets the leaf certificate's expiry (unix seconds).
SslCtxPtr MakeServerContext(const TlsFiles& files, std::string* error, int64_t* not_after);

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_NET_TLS_CONTEXT_H_
