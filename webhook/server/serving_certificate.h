// The server's certificate pair (a mounted Secret) and client CA: loaded, made
// into a TLS context and handed to the listener (connections accepted from
// then on take it), reloaded when a file changes, and watched for expiry. A
// pair that fails to load is logged and counted, and the last good one keeps
// serving.
#ifndef GPULINT_WEBHOOK_SERVER_SERVING_CERTIFICATE_H_
#define GPULINT_WEBHOOK_SERVER_SERVING_CERTIFICATE_H_

#include <atomic>
#include <cstdint>
#include <functional>

#include "webhook/net/tls_context.h"
#include "webhook/support/file_watch.h"
#include "webhook/support/log.h"
#include "webhook/support/metrics.h"

namespace gpulint {

class ServingCertificate {
 public:
  // Where a new TLS context goes (the listener's SetContext).
  using Install = std::function<void(SslCtxPtr)>;
  ServingCertificate(TlsFiles files, Install install, LogSink log, Metrics& metrics);
  ServingCertificate(const ServingCertificate&) = delete;
  ServingCertificate& operator=(const ServingCertificate&) = delete;

  // Loads the pair and the client CA again. Reload and the two below run on
  // one thread at a time (Start's, then the reload thread's).
  void Reload();
  // Reloads when a file changed.
  void ReloadChanged();
  // Logs, once, a certificate past its notAfter.
  void CheckExpiry();

  bool loaded() const { return loaded_; }    // a valid pair has loaded
  bool expired() const { return expired_; }  // the loaded certificate is past its notAfter

 private:
  const TlsFiles files_;
  const Install install_;
  const LogSink log_;
  Metrics& metrics_;
  FileWatch cert_watch_, key_watch_, client_ca_watch_;
  std::atomic<bool> loaded_{false};
  std::atomic<bool> expired_{false};
  int64_t not_after_ = 0;  // the loaded certificate's
  bool expiry_logged_ = false;
};

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_SERVER_SERVING_CERTIFICATE_H_
