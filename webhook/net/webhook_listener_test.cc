// The net layer's pieces below TLS and HTTP: the listener, and what a
// connection tells the HTTP layer of its peer.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <string>

#include "webhook/net/listener.h"
#include "webhook/net/peer_info.h"

namespace gpulint {
namespace {

TEST_CASE("a listener binds any free port, accepts without blocking, and refuses after Shutdown",
          "[webhook][net]") {
  Listener listener;
  std::string error;
  int port = listener.Bind("127.0.0.1", 0, &error);
  REQUIRE(port > 0);
  CHECK(error.empty());
  errno = 0;
  CHECK(listener.Accept() < 0);  // nobody waiting: no wait either
  CHECK((errno == EAGAIN || errno == EWOULDBLOCK));

  int client = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(client, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  int accepted = -1;
  for (int i = 0; i < 100 && accepted < 0; ++i) {
    accepted = listener.Accept();
    if (accepted < 0) ::usleep(10000);
  }
  CHECK(accepted >= 0);
  if (accepted >= 0) ::close(accepted);
  ::close(client);

  Listener second;  // no SO_REUSEPORT: the port is taken
  CHECK(second.Bind("127.0.0.1", port, &error) == -1);
  CHECK(error.find("cannot listen on 127.0.0.1:" + std::to_string(port)) == 0);

  listener.Shutdown();
  CHECK(listener.Accept() < 0);
  listener.Close();
  CHECK_FALSE(listener.open());
}

TEST_CASE("no TLS session, no verified peer", "[webhook][net]") {
  PeerInfo peer = ReadPeerInfo(nullptr);
  CHECK_FALSE(peer.verified);
  CHECK(peer.subject.empty());
  CHECK(peer.common_name.empty());
}

}  // namespace
}  // namespace gpulint
