// Bytes of requests the server holds at once, across every connection and
// every review worker: heads and bodies being read, and bodies waiting for a
// worker or being judged (--max-buffered-bytes). Each holder takes what it
// grows by before it grows, and gives it back when it lets go, so the count
// is what is held, whoever holds it. Thread-safe.
#ifndef GPULINT_WEBHOOK_NET_BYTE_BUDGET_H_
#define GPULINT_WEBHOOK_NET_BYTE_BUDGET_H_

#include <atomic>
#include <cstddef>
#include <utility>

namespace gpulint {

class ByteBudget {
 public:
  explicit ByteBudget(size_t limit) : limit_(limit) {}
  ByteBudget(const ByteBudget&) = delete;
  ByteBudget& operator=(const ByteBudget&) = delete;

  // Takes `bytes` when they fit under the limit; false, taking nothing, when not.
  bool TryTake(size_t bytes) {
    size_t used = used_.load(std::memory_order_relaxed);
    do {
      if (bytes > limit_ || used > limit_ - bytes) return false;
    } while (!used_.compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
    return true;
  }
  // Takes `bytes` whatever the limit: for bytes already held elsewhere in the
  // count that move to a new holder (a body handed from its connection to a
  // review worker), which is let go of right after.
  void Take(size_t bytes) { used_.fetch_add(bytes, std::memory_order_relaxed); }
  void Give(size_t bytes) { used_.fetch_sub(bytes, std::memory_order_relaxed); }

  size_t used() const { return used_.load(std::memory_order_relaxed); }
  size_t limit() const { return limit_; }

 private:
  const size_t limit_;
  std::atomic<size_t> used_{0};
};

// Bytes taken from a budget (with Take) and given back when this goes.
class BudgetCharge {
 public:
  BudgetCharge() = default;
  BudgetCharge(ByteBudget* budget, size_t bytes) : budget_(budget), bytes_(bytes) {
    if (budget_) budget_->Take(bytes_);
  }
  BudgetCharge(BudgetCharge&& other) noexcept
      : budget_(std::exchange(other.budget_, nullptr)), bytes_(other.bytes_) {}
  BudgetCharge& operator=(BudgetCharge&& other) noexcept {
    if (this != &other) {
      Release();
      budget_ = std::exchange(other.budget_, nullptr);
      bytes_ = other.bytes_;
    }
    return *this;
  }
  ~BudgetCharge() { Release(); }

  void Release() {
    if (budget_) budget_->Give(bytes_);
    budget_ = nullptr;
  }

 private:
  ByteBudget* budget_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_NET_BYTE_BUDGET_H_
