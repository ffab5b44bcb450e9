#include "common/cpus.h"

#include <sched.h>

#include <catch2/catch.hpp>

namespace gpulint {
namespace {

TEST_CASE("UsableCpus counts the CPUs this process may run on", "[cpus]") {
  cpu_set_t all;
  REQUIRE(sched_getaffinity(0, sizeof all, &all) == 0);
  CHECK(UsableCpus() == CPU_COUNT(&all));
  // Pinned to one CPU, as `taskset -c N` or a one-CPU cpuset would: one.
  int first = 0;
  while (!CPU_ISSET(first, &all)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  REQUIRE(sched_setaffinity(0, sizeof one, &one) == 0);
  int pinned = UsableCpus();
  REQUIRE(sched_setaffinity(0, sizeof all, &all) == 0);
  CHECK(pinned == 1);
}

}  // namespace
}  // namespace gpulint
