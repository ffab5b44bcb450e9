#include "webhook/net/loop_waker.h"

#include <unistd.h>

#include <cstdint>

namespace gpulint {

void WakeQueue::Push(std::shared_ptr<LoopWaker> waker) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    woken_.push_back(std::move(waker));
  }
  uint64_t one = 1;
  [[maybe_unused]] ssize_t n = ::write(event_fd_, &one, sizeof(one));
}

std::vector<std::shared_ptr<LoopWaker>> WakeQueue::Take() {
  std::vector<std::shared_ptr<LoopWaker>> taken;
  std::lock_guard<std::mutex> lock(mu_);
  taken.swap(woken_);
  return taken;
}

void LoopWaker::Wake() {
  std::lock_guard<std::mutex> lock(mu_);
  // Under the lock: a connection detaches before its loop can go, so the
  // queue is there for as long as this holds it.
  if (queue_) queue_->Push(shared_from_this());
}

void LoopWaker::Detach() {
  std::lock_guard<std::mutex> lock(mu_);
  queue_ = nullptr;
  connection_ = nullptr;
}

}  // namespace gpulint
