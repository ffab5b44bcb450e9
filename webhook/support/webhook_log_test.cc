// The log's stderr sink: whole lines, one write(2) each, or gathered over an
// event loop's turn and written together.
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

#include "webhook/support/log.h"

namespace gpulint {
namespace {

// Stderr goes to a pipe while this lives; Take() returns what was written.
class CapturedStderr {
 public:
  CapturedStderr() {
    REQUIRE(::pipe2(fds_, O_NONBLOCK | O_CLOEXEC) == 0);
    REQUIRE(::fcntl(fds_[1], F_SETPIPE_SZ, 1 << 20) >= (1 << 20));  // room for a whole turn
    saved_ = ::dup(2);
    REQUIRE(::dup2(fds_[1], 2) == 2);
  }
  ~CapturedStderr() {
    ::dup2(saved_, 2);
    ::close(saved_);
    ::close(fds_[0]);
    ::close(fds_[1]);
  }
  std::string Take() {
    std::string out;
    char buf[4096];
    for (ssize_t n; (n = ::read(fds_[0], buf, sizeof(buf))) > 0;) out.append(buf, static_cast<size_t>(n));
    return out;
  }

 private:
  int fds_[2] = {-1, -1};
  int saved_ = -1;
};

TEST_CASE("StderrLogSink writes each line at once outside a turn", "[webhook][log]") {
  CapturedStderr err;
  StderrLogSink(R"({"msg":"one"})");
  CHECK(err.Take() == "{\"msg\":\"one\"}\n");
}

TEST_CASE("within a turn, lines wait for its end and go out whole, in order", "[webhook][log]") {
  CapturedStderr err;
  {
    LogTurn turn;
    StderrLogSink("a");
    StderrLogSink("b");
    CHECK(err.Take().empty());
    LogTurn::Flush();
    CHECK(err.Take() == "a\nb\n");
    StderrLogSink("c");
    CHECK(err.Take().empty());
  }  // the turn's end flushes too
  CHECK(err.Take() == "c\n");
  StderrLogSink("d");  // and after it, lines go out at once again
  CHECK(err.Take() == "d\n");
}

TEST_CASE("a turn that gathers 64 KiB writes it without waiting for its end", "[webhook][log]") {
  CapturedStderr err;
  LogTurn turn;
  std::string line(1000, 'x');
  for (int i = 0; i < 65; ++i) StderrLogSink(line);
  CHECK(err.Take().empty());  // 65,065 bytes: under 64 KiB
  StderrLogSink(line);
  std::string out = err.Take();
  CHECK(out.size() == 66 * 1001);
  CHECK(out.substr(0, 1001) == line + "\n");
}

}  // namespace
}  // namespace gpulint
