#include "kube/kube_client.h"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>

#include "common/openssl_errors.h"
#include "kube/proxy.h"

namespace gpulint {
namespace {

constexpr size_t kMaxCredentialFileBytes = 1 << 20;

std::string TrimSpace(std::string s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  size_t e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// A CA bundle as a store; false when it holds no certificate.
X509_STORE* StoreFromPem(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509_STORE* store = X509_STORE_new();
  int added = 0;
  while (X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
    if (X509_STORE_add_cert(store, cert) == 1) ++added;
    X509_free(cert);
  }
  ERR_clear_error();
  BIO_free(bio);
  if (added == 0) {
    X509_STORE_free(store);
    return nullptr;
  }
  return store;
}

bool UseClientPair(SSL_CTX* ctx, const std::string& cert_pem, const std::string& key_pem,
                   std::string* error) {
  BIO* cert_bio = BIO_new_mem_buf(cert_pem.data(), static_cast<int>(cert_pem.size()));
  BIO* key_bio = BIO_new_mem_buf(key_pem.data(), static_cast<int>(key_pem.size()));
  X509* cert = PEM_read_bio_X509(cert_bio, nullptr, nullptr, nullptr);
  EVP_PKEY* key = PEM_read_bio_PrivateKey(key_bio, nullptr, nullptr, nullptr);
  bool ok = cert && key && SSL_CTX_use_certificate(ctx, cert) == 1 &&
            SSL_CTX_use_PrivateKey(ctx, key) == 1 && SSL_CTX_check_private_key(ctx) == 1;
  if (!ok) *error = "the client certificate or key is unusable: " + OpenSslErrors();
  X509_free(cert);
  EVP_PKEY_free(key);
  BIO_free(cert_bio);
  BIO_free(key_bio);
  return ok;
}

}  // namespace

bool ReadCredentialFile(const std::string& path, std::string* out, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = path + ": cannot open";
    return false;
  }
  std::string data(kMaxCredentialFileBytes + 1, '\0');
  in.read(data.data(), static_cast<std::streamsize>(data.size()));
  data.resize(static_cast<size_t>(in.gcount()));
  if (data.size() > kMaxCredentialFileBytes) {
    *error = path + ": larger than 1 MiB, not a credential";
    return false;
  }
  *out = std::move(data);
  return true;
}

bool ParseServerUrl(const std::string& url_in, KubeEndpoint* ep, std::string* error) {
  const std::string scheme = "https://";
  const std::string url = RedactUrl(url_in);  // for messages
  if (url_in.compare(0, scheme.size(), scheme) != 0) {
    *error = "the API server URL " + url + " is not https://";
    return false;
  }
  std::string rest = url_in.substr(scheme.size());
  size_t slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  if (authority.find('@') != std::string::npos) {
    *error = "the API server URL " + url +
             " holds a user name or password, which gpulint does not send: give the credential "
             "as the kubeconfig user's token, client certificate or exec plugin";
    return false;
  }
  ep->base_path = slash == std::string::npos ? "" : rest.substr(slash);
  while (!ep->base_path.empty() && ep->base_path.back() == '/') ep->base_path.pop_back();
  ep->port = 443;
  size_t colon = authority.rfind(':');
  size_t bracket = authority.rfind(']');
  if (colon != std::string::npos && (bracket == std::string::npos || colon > bracket)) {
    std::string port = authority.substr(colon + 1);
    char* end = nullptr;
    long p = std::strtol(port.c_str(), &end, 10);
    if (port.empty() || *end || p <= 0 || p > 65535) {
      *error = "the API server URL " + url + " has a bad port";
      return false;
    }
    ep->port = static_cast<int>(p);
    authority = authority.substr(0, colon);
  }
  if (authority.size() >= 2 && authority.front() == '[')
    authority = authority.substr(1, authority.size() - 2);
  if (authority.empty()) {
    *error = "the API server URL " + url + " has no host";
    return false;
  }
  ep->host = authority;
  return true;
}

bool CheckBearerToken(std::string_view token, const std::string& source, std::string* error) {
  for (unsigned char c : token) {
    if (c == '\t' || (c >= 0x20 && c != 0x7f)) continue;
    *error = source + " holds " +
             (c == '\r' || c == '\n' ? std::string("a line break (CR or LF)")
                                     : std::string("a control character")) +
             ", which no HTTP header may carry: it is refused rather than sent (it would end "
             "the Authorization header and start headers of its own)";
    return false;
  }
  return true;
}

std::unique_ptr<HttpsClient> MakeKubeClient(const KubeEndpoint& ep, std::string* error) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  if (!ctx) {
    *error = "cannot create a TLS context: " + OpenSslErrors();
    return nullptr;
  }
  // Owned by the client from here; freed with it, or below on an error.
  std::unique_ptr<SSL_CTX, void (*)(SSL_CTX*)> owned(ctx, SSL_CTX_free);
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  // A server that closes without TLS's close_notify ends the stream, as
  // kube-apiserver's Go TLS does after a watch.
  SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
  if (!ep.insecure_skip_verify) {
    // Exactly the configured CA, never the system's beside it; the system's
    // only when none is configured.
    if (ep.ca_pem.empty()) {
      SSL_CTX_set_default_verify_paths(ctx);
    } else {
      X509_STORE* store = StoreFromPem(ep.ca_pem);
      if (!store) {
        *error = "the API server CA holds no PEM certificate";
        return nullptr;
      }
      SSL_CTX_set_cert_store(ctx, store);  // takes ownership
    }
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
    X509_VERIFY_PARAM* param = SSL_CTX_get0_param(ctx);
    unsigned char addr[16];
    bool is_ip = inet_pton(AF_INET, ep.host.c_str(), addr) == 1 ||
                 inet_pton(AF_INET6, ep.host.c_str(), addr) == 1;
    if (is_ip)
      X509_VERIFY_PARAM_set1_ip_asc(param, ep.host.c_str());
    else
      X509_VERIFY_PARAM_set1_host(param, ep.host.c_str(), 0);
  }
  std::string token = ep.token;
  std::string source = "the kubeconfig user's token";
  std::string cert_pem = ep.client_cert_pem, key_pem = ep.client_key_pem;
  if (!ep.token_file.empty()) {
    std::string read_error;
    if (ReadCredentialFile(ep.token_file, &token, &read_error)) token = TrimSpace(token);
    source = "the token in " + ep.token_file;
  }
  if (ep.exec) {
    ExecCredential credential;
    if (!ep.exec->Get(&credential, error)) return nullptr;
    token = credential.token;
    cert_pem = credential.client_cert_pem;
    key_pem = credential.client_key_pem;
    source = "the token of the credential plugin " + ep.exec->config().command;
  }
  if (!CheckBearerToken(token, source, error)) return nullptr;
  if (!cert_pem.empty() && !UseClientPair(ctx, cert_pem, key_pem, error)) return nullptr;
  std::string headers = "Accept: application/json\r\n";
  if (!token.empty()) headers += "Authorization: Bearer " + token + "\r\n";
  auto client = std::make_unique<HttpsClient>(ep.host, ep.port, owned.release(), headers);
  client->set_connection_timeout(10);
  client->set_proxy(ep.proxy);
  client->set_request_timeout(ep.request_timeout);
  client->set_deadline(ep.deadline, ep.deadline_label);
  client->set_secret(token);
  return client;
}

std::string UrlEscape(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string KubeResponse::Describe() const {
  return status ? "HTTP " + std::to_string(status) + ": " + body : error;
}

namespace {

constexpr size_t kMaxStatusBody = 512;

// The request's answer, its body kept up to `max_body` bytes (`*cut` when it
// held more). Reading stops after `max_read` bytes: a body that never ends
// costs no more than that.
KubeResponse Request(HttpsClient& client, std::string_view method, const std::string& path,
                     std::string_view body, std::string_view content_type, size_t max_body,
                     size_t max_read, bool* cut) {
  KubeResponse out;
  size_t read = 0;
  bool too_long = false;
  HttpResult r =
      client.Send(method, path, body, content_type, nullptr, [&](const char* data, size_t n) {
        size_t room = max_body - std::min(max_body, out.body.size());
        out.body.append(data, std::min(room, n));
        if (n > room) *cut = true;
        read += n;
        too_long = read > max_read;
        return !too_long;
      });
  out.status = r.status;
  out.error = client.Scrub(r.error);
  out.body = client.Scrub(std::move(out.body));
  if (too_long)
    out.error = "the answer to " + std::string(method) + " " + path + " is larger than " +
                std::to_string(max_read) + " bytes";
  if (!out.error.empty()) out.status = 0;  // cut short: no whole answer
  return out;
}

}  // namespace

KubeResponse Patch(HttpsClient& client, const std::string& path, const std::string& body,
                   const char* content_type) {
  bool cut = false;
  return Request(client, "PATCH", path, body, content_type, kMaxStatusBody, kMaxAnswerBytes, &cut);
}

KubeResponse Get(HttpsClient& client, const std::string& path, size_t max_body) {
  bool cut = false;
  KubeResponse out = Request(client, "GET", path, {}, {}, max_body, max_body, &cut);
  if (cut) {
    out.status = 0;
    out.body.clear();
    out.error =
        "the answer to GET " + path + " is larger than " + std::to_string(max_body) + " bytes";
  }
  return out;
}

KubeResponse Delete(HttpsClient& client, const std::string& path) {
  bool cut = false;
  return Request(client, "DELETE", path, {}, {}, kMaxStatusBody, kMaxAnswerBytes, &cut);
}

}  // namespace gpulint
