// Who is at the other end of a connection, as its TLS handshake showed: all
// that the HTTP layer and its handler learn of the session (never the SSL
// object itself).
#ifndef GPULINT_WEBHOOK_NET_PEER_INFO_H_
#define GPULINT_WEBHOOK_NET_PEER_INFO_H_

#include <openssl/ssl.h>

#include <string>

namespace gpulint {

struct PeerInfo {
  // The client sent a certificate and it verified against the client CA
  // (with a client CA configured, one that does not verify fails the
  // handshake; without one, none is asked for).
  bool verified = false;
  std::string subject;      // the certificate's subject, one line (RFC 2253)
  std::string common_name;  // its CN, when it has one
  std::string address;      // "10.0.0.7:51234", "[fd00::7]:51234": for the logs
};

// What a finished handshake on `ssl` showed (all but the address).
PeerInfo ReadPeerInfo(SSL* ssl);
// The address of the socket's peer, as PeerInfo::address has it; "" when unknown.
std::string PeerAddress(int fd);

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_NET_PEER_INFO_H_
