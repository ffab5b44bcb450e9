// Running an external tool (helm, kubectl) safely: no shell, argv as given,
// stdin closed, output bounded, a time limit, the exit status checked.
#ifndef GPULINT_COMMON_SUBPROCESS_H_
#define GPULINT_COMMON_SUBPROCESS_H_

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gpulint {

struct ToolLimits {
  std::chrono::milliseconds timeout{120000};
  size_t max_stdout = 256u << 20;  // beyond it the tool is stopped
  size_t max_stderr = 64u << 10;   // beyond it stderr is cut, the tool goes on
};

struct ToolRun {
  int exit_status = -1;  // when it exited; -1 when a signal ended it
  int signal = 0;        // the signal that ended it, if one did
  bool timed_out = false;
  bool too_much_output = false;
  std::string out;
  std::string err;
  // Exited with status 0, in time and within the output limit.
  bool ok() const { return exit_status == 0 && !timed_out && !too_much_output; }
  // Why it failed, in words: "exit status 1", "no answer in 120 s", ...
  std::string FailureText(const ToolLimits& limits) const;
};

// The executable called `name` in $PATH's directories, or "" when there is none.
std::string FindOnPath(std::string_view name);

// Runs argv[0] (a path) with `argv`, in its own process group with stdin on
// /dev/null, in this process's environment with `env` ("NAME=value") set over
// it. A tool still running at the time limit, or printing more than
// max_stdout, is killed with its process group. Returns false, with *error,
// only when the tool could not be started.
bool RunTool(const std::vector<std::string>& argv, const ToolLimits& limits, ToolRun* run,
             std::string* error, const std::vector<std::string>& env = {});

}  // namespace gpulint

#endif  // GPULINT_COMMON_SUBPROCESS_H_
