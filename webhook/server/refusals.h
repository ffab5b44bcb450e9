// Every request or connection the server refuses to protect itself, logged
// and counted the same way: a body or head over its limit (oversize), a
// client too slow to send or take its bytes (slow_client), a review whose
// tree would pass its budget (over_budget), load shed when the workers or the
// buffers are full (shed), a connection over the limit (connections). Each
// is gpulint_webhook_refusals_total{reason} and a log line "refused" that
// says why, with what the client had sent. A flood costs one line per reason
// per second: the first refusal of a second is logged, the others counted in
// the next line's "suppressed".
#ifndef GPULINT_WEBHOOK_SERVER_REFUSALS_H_
#define GPULINT_WEBHOOK_SERVER_REFUSALS_H_

#include <array>
#include <chrono>
#include <cstdint>
#include <mutex>

#include "webhook/support/log.h"
#include "webhook/support/metrics.h"

namespace gpulint {

enum class Refusal : uint8_t { kOversize, kSlowClient, kOverBudget, kShed, kConnections };
inline constexpr Refusal kRefusals[] = {Refusal::kOversize, Refusal::kSlowClient,
                                        Refusal::kOverBudget, Refusal::kShed,
                                        Refusal::kConnections};
const char* RefusalName(Refusal r);  // "oversize", "slow_client", ...

class Refusals {
 public:
  Refusals(Metrics& metrics, LogSink log) : metrics_(metrics), log_(std::move(log)) {}

  // Counts one refusal, and logs `line` (made by the caller with its
  // details; "reason" is added here) unless one of this reason was logged
  // less than a second ago.
  void Record(Refusal reason, LogLine line);

 private:
  using Clock = std::chrono::steady_clock;
  struct Recent {
    Clock::time_point logged{};
    uint64_t suppressed = 0;
  };

  Metrics& metrics_;
  const LogSink log_;
  std::mutex mu_;
  std::array<Recent, std::size(kRefusals)> recent_;  // guarded by mu_
};

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_SERVER_REFUSALS_H_
