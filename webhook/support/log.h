// One JSON object per line on stderr: what log collectors in a cluster parse
// without configuration.
#ifndef GPULINT_WEBHOOK_SUPPORT_LOG_H_
#define GPULINT_WEBHOOK_SUPPORT_LOG_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace gpulint {

// Receives complete lines, newline excluded. Must be thread-safe.
using LogSink = std::function<void(std::string_view line)>;
// Writes each line to stderr with one write(2), so lines never interleave;
// on a thread inside a LogTurn, lines are gathered and written together.
void StderrLogSink(std::string_view line);

// An event-loop thread's turn: the lines StderrLogSink gets on this thread
// are gathered and written, whole, with one write(2) by Flush (which the loop
// calls before it waits for more work) or when 64 KiB have gathered. A
// decision's line so waits at most until its turn ends, and a busy loop makes
// one write per turn instead of one per request.
class LogTurn {
 public:
  LogTurn();
  ~LogTurn();  // flushes
  LogTurn(const LogTurn&) = delete;
  LogTurn& operator=(const LogTurn&) = delete;
  static void Flush();
};

class LogLine {
 public:
  // Starts {"time":"<UTC, RFC 3339 with milliseconds>","level":...,"msg":...
  LogLine(std::string_view level, std::string_view msg);
  LogLine& Add(std::string_view key, std::string_view value);
  LogLine& Add(std::string_view key, const char* value) { return Add(key, std::string_view(value)); }
  LogLine& Add(std::string_view key, int64_t value);
  LogLine& AddBool(std::string_view key, bool value);
  LogLine& AddNumber(std::string_view key, double value, int decimals);
  LogLine& Add(std::string_view key, const std::vector<std::string>& values);
  std::string Done() const { return text_ + "}"; }
  void Emit(const LogSink& sink) const;

 private:
  void Key(std::string_view key);
  std::string text_;
};

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_SUPPORT_LOG_H_
