#include "webhook/kube/loop_control.h"

#include <algorithm>
#include <utility>

namespace gpulint {

std::chrono::milliseconds Backoff::After(int failures) const {
  auto wait = min;
  for (int i = 1; i < failures && wait < max; ++i) wait *= 2;
  return std::min(wait, max);
}

void LoopControl::Start(std::function<void()> loop) {
  thread_ = std::thread([this, loop = std::move(loop)] {
    loop();
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
  });
}

void LoopControl::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    cv_.notify_all();
  }
  if (!thread_.joinable()) return;
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (client_) client_->Stop();
      cv_.notify_all();
      if (done_) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  thread_.join();
}

bool LoopControl::SleepUntil(Clock::time_point until) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_until(lock, until, [this] { return stopping_.load() || woken_; });
  woken_ = false;
  return !stopping_;
}

void LoopControl::Wake() {
  std::lock_guard<std::mutex> lock(mu_);
  woken_ = true;
  cv_.notify_all();
}

bool LoopControl::Track(HttpsClient* client) {
  std::lock_guard<std::mutex> lock(mu_);
  if (client && stopping_) return false;
  client_ = client;
  return true;
}

}  // namespace gpulint
