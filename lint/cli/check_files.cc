#include "lint/cli/check_files.h"

#include <condition_variable>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>

namespace gpulint {

// Files are taken in order by jobs - 1 workers and by this thread, which
// also replays each result as soon as it and all before it are done: it
// checks a file itself rather than sleep while the next result is not in.
// (A sleeping replayer woken once per file was 7,500 futex calls and a
// third more CPU on 2,000 small files.) At most kWindow results per job
// wait, so memory stays bounded by a few files' findings.
void CheckInParallel(size_t n, int jobs, const std::function<void(size_t, FileResult*)>& check,
                     const std::function<void(size_t, FileResult&)>& replay) {
  constexpr size_t kWindow = 16;
  const size_t window = kWindow * static_cast<size_t>(jobs);
  std::vector<std::optional<FileResult>> results(n);
  std::mutex mu;
  std::condition_variable done_cv, space_cv;
  size_t next = 0, replayed = 0;
  size_t awaited = n;  // the result the replayer sleeps for, if it does
  int asleep = 0;      // workers waiting for the window to move
  auto may_take = [&] { return next < n && next < replayed + window; };
  // Results a worker made and this thread replayed, for a worker to free.
  // Freed here, their memory went to this thread's allocator cache and the
  // worker's next files were built in memory last written on another core:
  // two jobs spent 6 to 8% more CPU time (perf stat, best of 10).
  std::vector<FileResult> replayed_results;
  // Checks file `next` with the lock held on entry and on return.
  auto check_next = [&](std::unique_lock<std::mutex>& lock, bool by_worker) {
    size_t i = next++;
    std::vector<FileResult> to_free;
    if (by_worker) to_free.swap(replayed_results);
    lock.unlock();
    to_free.clear();
    FileResult result;
    result.by_worker = by_worker;
    check(i, &result);
    lock.lock();
    results[i] = std::move(result);
    if (i == awaited) done_cv.notify_one();
  };
  auto work = [&] {
    std::unique_lock<std::mutex> lock(mu);
    while (true) {
      if (!may_take() && next < n) {
        ++asleep;
        space_cv.wait(lock, [&] { return next == n || may_take(); });
        --asleep;
      }
      if (next == n) return;
      check_next(lock, true);
    }
  };
  std::vector<std::thread> workers;
  for (int j = 1; j < jobs; ++j) {
    try {
      workers.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // out of threads: the ones there are will do
    }
  }
  std::unique_lock<std::mutex> lock(mu);
  for (size_t i = 0; i < n;) {
    if (results[i].has_value()) {
      FileResult result = std::move(*results[i]);
      results[i].reset();
      replayed = ++i;
      bool wake = asleep > 0;
      lock.unlock();
      if (wake) space_cv.notify_all();
      replay(i - 1, result);
      lock.lock();
      if (result.by_worker) replayed_results.push_back(std::move(result));
    } else if (may_take()) {
      check_next(lock, false);
    } else {
      awaited = i;
      done_cv.wait(lock, [&] { return results[i].has_value(); });
      awaited = n;
    }
  }
  lock.unlock();
  for (std::thread& t : workers) t.join();
}

}  // namespace gpulint
