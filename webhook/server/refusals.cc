#include "webhook/server/refusals.h"

namespace gpulint {

const char* RefusalName(Refusal r) {
  switch (r) {
    case Refusal::kOversize: return "oversize";
    case Refusal::kSlowClient: return "slow_client";
    case Refusal::kOverBudget: return "over_budget";
    case Refusal::kShed: return "shed";
    case Refusal::kConnections: return "connections";
  }
  return "other";
}

void Refusals::Record(Refusal reason, LogLine line) {
  metrics_.CountRefusal(RefusalName(reason));
  uint64_t suppressed = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Recent& recent = recent_[static_cast<size_t>(reason)];
    Clock::time_point now = Clock::now();
    if (recent.logged != Clock::time_point{} && now - recent.logged < std::chrono::seconds(1)) {
      ++recent.suppressed;
      return;
    }
    recent.logged = now;
    suppressed = recent.suppressed;
    recent.suppressed = 0;
  }
  line.Add("reason", RefusalName(reason));
  if (suppressed) line.Add("suppressed", static_cast<int64_t>(suppressed));
  line.Emit(log_);
}

}  // namespace gpulint
