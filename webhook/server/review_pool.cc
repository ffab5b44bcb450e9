#include "webhook/server/review_pool.h"

#include <algorithm>
#include <utility>

namespace gpulint {

ReviewPool::ReviewPool(size_t threads, size_t max_in_flight)
    : max_in_flight_(std::max({max_in_flight, threads, size_t{1}})) {
  for (size_t i = 0; i < std::max<size_t>(1, threads); ++i)
    workers_.emplace_back([this] { Work(); });
}

ReviewPool::~ReviewPool() { Stop(); }

bool ReviewPool::TrySubmit(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ || queue_.size() + running_ >= max_in_flight_) return false;
    queue_.push_back(std::move(job));
  }
  ready_.notify_one();
  return true;
}

void ReviewPool::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (std::thread& t : workers_)
    if (t.joinable()) t.join();
}

size_t ReviewPool::in_flight() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size() + running_;
}

void ReviewPool::Work() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left to run
      job = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
    }
    job();
    job = nullptr;  // what it held (a body, a tree) goes before the next waits
    std::lock_guard<std::mutex> lock(mu_);
    --running_;
  }
}

}  // namespace gpulint
