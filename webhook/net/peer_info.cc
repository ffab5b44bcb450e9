#include "webhook/net/peer_info.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/bio.h>
#include <openssl/x509.h>
#include <sys/socket.h>

namespace gpulint {

PeerInfo ReadPeerInfo(SSL* ssl) {
  PeerInfo peer;
  X509* cert = ssl ? SSL_get0_peer_certificate(ssl) : nullptr;
  if (!cert) return peer;
  peer.verified = SSL_get_verify_result(ssl) == X509_V_OK;
  X509_NAME* name = X509_get_subject_name(cert);
  if (BIO* bio = BIO_new(BIO_s_mem())) {
    if (X509_NAME_print_ex(bio, name, 0, XN_FLAG_RFC2253) >= 0) {
      char* data = nullptr;
      long n = BIO_get_mem_data(bio, &data);
      if (n > 0) peer.subject.assign(data, static_cast<size_t>(n));
    }
    BIO_free(bio);
  }
  char cn[256];
  int n = X509_NAME_get_text_by_NID(name, NID_commonName, cn, sizeof(cn));
  if (n > 0) peer.common_name.assign(cn, static_cast<size_t>(n));
  return peer;
}

std::string PeerAddress(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return "";
  char text[INET6_ADDRSTRLEN] = "";
  if (addr.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&addr);
    ::inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text));
    return std::string(text) + ":" + std::to_string(ntohs(in->sin_port));
  }
  if (addr.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&addr);
    ::inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof(text));
    return "[" + std::string(text) + "]:" + std::to_string(ntohs(in6->sin6_port));
  }
  return "";
}

}  // namespace gpulint
