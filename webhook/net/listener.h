// The listening socket, the part of a server below TLS and HTTP: binding
// (one address of those host resolves to, no SO_REUSEPORT), accepting
// non-blocking connections, and refusing new ones at the stop.
#ifndef GPULINT_WEBHOOK_NET_LISTENER_H_
#define GPULINT_WEBHOOK_NET_LISTENER_H_

#include <string>

namespace gpulint {

class Listener {
 public:
  Listener() = default;
  ~Listener() { Close(); }
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  // Listens on host:port (port 0: any free one). Returns the port, or -1
  // with *error.
  int Bind(const std::string& host, int port, std::string* error);
  // A new non-blocking connection, or -1 with errno (EAGAIN: none waiting).
  int Accept() const;
  // New connections are refused from now on, not left in the backlog.
  void Shutdown();
  void Close();

  int fd() const { return fd_; }
  bool open() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_NET_LISTENER_H_
