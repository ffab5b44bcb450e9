// The review pool (webhook/server/review_pool.h) and the refusals' log and
// counts (refusals.h), apart from any socket.
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tests/webhook_test_support.h"
#include "webhook/server/refusals.h"
#include "webhook/server/review_pool.h"

namespace gpulint::webhook_test {
namespace {

// A gate the jobs wait at until the test opens it.
class Gate {
 public:
  void Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    ++waiting_;
    changed_.notify_all();
    changed_.wait(lock, [this] { return open_; });
  }
  void AwaitWaiting(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [&] { return waiting_ >= n; });
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  int waiting_ = 0;
  bool open_ = false;
};

TEST_CASE("review pool: jobs past max_in_flight are refused at once, not queued",
          "[webhook][pool]") {
  ReviewPool pool(2, 3);
  Gate gate;
  std::atomic<int> ran{0};
  auto job = [&] {
    gate.Wait();
    ++ran;
  };
  CHECK(pool.TrySubmit(job));
  CHECK(pool.TrySubmit(job));
  gate.AwaitWaiting(2);  // both workers busy
  CHECK(pool.TrySubmit(job));  // queued: three in flight
  CHECK(pool.in_flight() == 3);
  CHECK_FALSE(pool.TrySubmit(job));
  CHECK(pool.in_flight() == 3);
  gate.Open();
  CHECK(Eventually([&] { return pool.in_flight() == 0; }));
  CHECK(ran == 3);
  CHECK(pool.TrySubmit(job));
  pool.Stop();  // runs what is queued, then joins
  CHECK(ran == 4);
  CHECK_FALSE(pool.TrySubmit(job));
}

TEST_CASE("review pool: its bounds are at least its threads, and one", "[webhook][pool]") {
  ReviewPool none(0, 0);
  CHECK(none.threads() == 1);
  CHECK(none.max_in_flight() == 1);
  ReviewPool more(4, 2);
  CHECK(more.max_in_flight() == 4);
}

TEST_CASE("refusals: each is counted, and a flood is one line a second per reason",
          "[webhook][refusals]") {
  Metrics metrics;
  LogCapture log;
  Refusals refusals(metrics, log.Sink());
  for (int i = 0; i < 3; ++i)
    refusals.Record(Refusal::kSlowClient, LogLine("warn", "refused").Add("detail", "slow"));
  refusals.Record(Refusal::kShed, LogLine("warn", "refused").Add("detail", "busy"));
  CHECK(Metric(metrics, "gpulint_webhook_refusals_total{reason=\"slow_client\"}") == "3");
  CHECK(Metric(metrics, "gpulint_webhook_refusals_total{reason=\"shed\"}") == "1");
  // Every reason is there from the start, at 0.
  CHECK(Metric(metrics, "gpulint_webhook_refusals_total{reason=\"oversize\"}") == "0");
  CHECK(Metric(metrics, "gpulint_webhook_refusals_total{reason=\"over_budget\"}") == "0");
  CHECK(Metric(metrics, "gpulint_webhook_refusals_total{reason=\"connections\"}") == "0");
  std::vector<Json> lines = log.Messages("refused");
  REQUIRE(lines.size() == 2);
  CHECK(lines[0]["reason"] == "slow_client");
  CHECK_FALSE(lines[0].contains("suppressed"));
  CHECK(lines[1]["reason"] == "shed");
  // A second later the next one is logged, with how many were not.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  refusals.Record(Refusal::kSlowClient, LogLine("warn", "refused").Add("detail", "slow"));
  lines = log.Messages("refused");
  REQUIRE(lines.size() == 3);
  CHECK(lines[2]["reason"] == "slow_client");
  CHECK(lines[2]["suppressed"] == 2);
  CHECK(lines[2]["detail"] == "slow");
}

}  // namespace
}  // namespace gpulint::webhook_test
