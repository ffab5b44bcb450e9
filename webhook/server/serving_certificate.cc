#include "webhook/server/serving_certificate.h"

#include <ctime>
#include <string>
#include <utility>

namespace gpulint {
namespace {

std::string TimeText(int64_t unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

ServingCertificate::ServingCertificate(TlsFiles files, Install install, LogSink log,
                                       Metrics& metrics)
    : files_(std::move(files)),
      install_(std::move(install)),
      log_(std::move(log)),
      metrics_(metrics),
      cert_watch_(files_.cert),
      key_watch_(files_.key),
      client_ca_watch_(files_.client_ca) {}

void ServingCertificate::Reload() {
  cert_watch_.Mark();
  key_watch_.Mark();
  client_ca_watch_.Mark();
  std::string error;
  int64_t not_after = 0;
  SslCtxPtr ctx = MakeServerContext(files_, &error, &not_after);
  if (!ctx) {
    metrics_.CountReload("certificate", false);
    LogLine("error", "certificate refused, the last good one keeps serving")
        .Add("cert", files_.cert)
        .Add("key", files_.key)
        .Add("error", error)
        .Emit(log_);
    return;
  }
  install_(std::move(ctx));
  loaded_ = true;
  metrics_.SetCertificateExpiry(not_after);
  metrics_.CountReload("certificate", true);
  LogLine("info", "certificate loaded")
      .Add("cert", files_.cert)
      .Add("not_after", TimeText(not_after))
      .Emit(log_);
  not_after_ = not_after;
  expiry_logged_ = false;
  CheckExpiry();
}

// An expired certificate still serves (nothing better is at hand, and a
// client may not check dates), but kube-apiserver refuses it and every review
// then fails: say so once, loaded expired or expiring while loaded.
void ServingCertificate::CheckExpiry() {
  expired_ = not_after_ != 0 && std::time(nullptr) >= not_after_;
  if (expiry_logged_ || !expired_) return;
  expiry_logged_ = true;
  LogLine("error", "certificate expired")
      .Add("cert", files_.cert)
      .Add("not_after", TimeText(not_after_))
      .Emit(log_);
}

void ServingCertificate::ReloadChanged() {
  if (cert_watch_.Changed() || key_watch_.Changed() || client_ca_watch_.Changed()) Reload();
}

}  // namespace gpulint
