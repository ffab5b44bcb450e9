#include "common/subprocess.h"

#include <catch2/catch.hpp>
#include <csignal>
#include <cstdlib>
#include <string>
#include <vector>

namespace gpulint {
namespace {

ToolRun MustRun(const std::vector<std::string>& argv, const ToolLimits& limits = {}) {
  ToolRun run;
  std::string error;
  INFO(argv[0]);
  REQUIRE(RunTool(argv, limits, &run, &error));
  return run;
}

TEST_CASE("RunTool: output, exit status, and no shell", "[subprocess]") {
  ToolRun run = MustRun({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"});
  CHECK(run.out == "out\n");
  CHECK(run.err == "err\n");
  CHECK(run.exit_status == 3);
  CHECK_FALSE(run.ok());
  CHECK(run.FailureText({}) == "exit status 3");
  // Arguments reach the tool as they are: no shell reads them.
  run = MustRun({"/bin/echo", "$HOME", "a b", ";", "*"});
  CHECK(run.out == "$HOME a b ; *\n");
  CHECK(run.ok());
}

TEST_CASE("RunTool: the environment, with what the caller sets over it", "[subprocess]") {
  setenv("GPULINT_TEST_KEPT", "kept", 1);
  setenv("GPULINT_TEST_SET", "before", 1);
  ToolRun run;
  std::string error;
  REQUIRE(RunTool({"/bin/sh", "-c", "echo $GPULINT_TEST_KEPT $GPULINT_TEST_SET $GPULINT_TEST_NEW"},
                  {}, &run, &error, {"GPULINT_TEST_SET=after", "GPULINT_TEST_NEW=a b"}));
  CHECK(run.out == "kept after a b\n");
  unsetenv("GPULINT_TEST_KEPT");
  unsetenv("GPULINT_TEST_SET");
}

TEST_CASE("RunTool: stdin is closed, so a tool that reads it ends", "[subprocess]") {
  ToolRun run = MustRun({"/bin/cat"});
  CHECK(run.ok());
  CHECK(run.out.empty());
}

TEST_CASE("RunTool: a tool past its time limit is killed with what it started", "[subprocess]") {
  ToolLimits limits;
  limits.timeout = std::chrono::milliseconds(200);
  // The child shell's sleep holds stdout open: only killing the group ends it.
  ToolRun run = MustRun({"/bin/sh", "-c", "sleep 30 & sleep 30"}, limits);
  CHECK(run.timed_out);
  CHECK(run.signal == SIGKILL);
  CHECK(run.FailureText(limits) == "no answer in 200 ms");
}

TEST_CASE("RunTool: output is bounded", "[subprocess]") {
  ToolLimits limits;
  limits.max_stdout = 1u << 20;
  limits.max_stderr = 10;
  ToolRun run = MustRun({"/usr/bin/yes"}, limits);
  CHECK(run.too_much_output);
  CHECK(run.out.size() == limits.max_stdout);
  CHECK(run.FailureText(limits) == "more than 1 MiB of output");
  // Too much on stderr is cut, and the tool goes on to its end.
  run = MustRun({"/bin/sh", "-c", "echo 0123456789abcdef >&2; echo done"}, limits);
  CHECK(run.ok());
  CHECK(run.err == "0123456789");
  CHECK(run.out == "done\n");
}

TEST_CASE("RunTool: a tool that cannot start is an error", "[subprocess]") {
  ToolRun run;
  std::string error;
  CHECK_FALSE(RunTool({"/nonexistent/helm"}, {}, &run, &error));
  CHECK(error == "/nonexistent/helm: No such file or directory");
}

TEST_CASE("FindOnPath: the first executable of that name in PATH", "[subprocess]") {
  CHECK(FindOnPath("sh").size() > 3);
  CHECK(FindOnPath("sh").substr(FindOnPath("sh").size() - 3) == "/sh");
  CHECK(FindOnPath("gpulint-no-such-tool").empty());
}

}  // namespace
}  // namespace gpulint
