#include "webhook/kube/watch_sync.h"

namespace gpulint {

void WatchSync::Listed() {
  std::lock_guard<std::mutex> lock(mu_);
  ever_synced_ = true;
  synced_at_ = Clock::now();
  last_error_.clear();
}

void WatchSync::WatchOpened() {
  std::lock_guard<std::mutex> lock(mu_);
  ever_synced_ = true;
  watching_ = true;
  synced_at_ = Clock::now();
  last_error_.clear();
}

void WatchSync::WatchEnded() {
  std::lock_guard<std::mutex> lock(mu_);
  if (watching_) synced_at_ = Clock::now();  // current until this moment
  watching_ = false;
}

void WatchSync::Failed(std::string why) {
  std::lock_guard<std::mutex> lock(mu_);
  if (watching_) synced_at_ = Clock::now();
  watching_ = false;
  last_error_ = std::move(why);
}

WatchSync::State WatchSync::At(Clock::time_point now) const {
  std::lock_guard<std::mutex> lock(mu_);
  State s;
  s.ever_synced = ever_synced_;
  s.watching = watching_;
  s.last_error = last_error_;
  if (!watching_ && now > synced_at_)
    s.unsynced = std::chrono::duration_cast<std::chrono::seconds>(now - synced_at_);
  return s;
}

}  // namespace gpulint
