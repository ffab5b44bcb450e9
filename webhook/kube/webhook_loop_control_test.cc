// The kube layer's loops share one stop and one backoff (webhook/kube/loop_control.h).
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>

#include "webhook/kube/loop_control.h"

namespace gpulint {
namespace {

using std::chrono::milliseconds;

TEST_CASE("backoff doubles from its minimum after each failure in a row, up to its maximum",
          "[webhook][kube]") {
  Backoff backoff{milliseconds(500), milliseconds(30000)};
  CHECK(backoff.After(1) == milliseconds(500));
  CHECK(backoff.After(2) == milliseconds(1000));
  CHECK(backoff.After(3) == milliseconds(2000));
  CHECK(backoff.After(7) == milliseconds(30000));  // 32 s, cut to the maximum
  CHECK(backoff.After(1000) == milliseconds(30000));
  CHECK(Backoff{milliseconds(50), milliseconds(20)}.After(1) == milliseconds(20));
}

TEST_CASE("a loop's sleep ends early when woken, and for good when stopped", "[webhook][kube]") {
  LoopControl control;
  std::atomic<int> turns{0};
  std::atomic<bool> woke{false};
  control.Start([&] {
    // Woken: true at once, long before the hour is up.
    woke = control.SleepFor(std::chrono::hours(1));
    while (control.SleepFor(std::chrono::hours(1))) ++turns;
  });
  control.Wake();
  auto start = std::chrono::steady_clock::now();
  while (!woke && std::chrono::steady_clock::now() - start < std::chrono::seconds(10))
    std::this_thread::sleep_for(milliseconds(5));
  CHECK(woke);
  control.Stop();  // returns: the sleep saw the stop
  CHECK(control.stopping());
  CHECK(turns == 0);
  CHECK_FALSE(control.SleepFor(milliseconds(1)));
  control.Stop();  // idempotent
}

TEST_CASE("no request is tracked, so none is sent, once the loop is stopping", "[webhook][kube]") {
  LoopControl control;
  HttpsClient client("127.0.0.1", 1, SSL_CTX_new(TLS_client_method()), "");
  CHECK(control.Track(&client));
  control.Untrack();
  control.Stop();  // never started: only stops
  CHECK_FALSE(control.Track(&client));
}

}  // namespace
}  // namespace gpulint
