#include "webhook/support/log.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>

#include "engine/base/value.h"

namespace gpulint {

namespace {

thread_local std::string* t_turn = nullptr;  // this thread's LogTurn buffer
constexpr size_t kTurnBytes = 64 * 1024;

void WriteAll(std::string_view text) {
  while (!text.empty()) {
    ssize_t n = ::write(2, text.data(), text.size());
    if (n <= 0) return;
    text.remove_prefix(static_cast<size_t>(n));
  }
}

}  // namespace

void StderrLogSink(std::string_view line) {
  if (t_turn) {
    t_turn->append(line).push_back('\n');
    if (t_turn->size() >= kTurnBytes) LogTurn::Flush();
    return;
  }
  std::string buf(line);
  buf += '\n';
  WriteAll(buf);
}

LogTurn::LogTurn() { t_turn = new std::string(); }

LogTurn::~LogTurn() {
  Flush();
  delete t_turn;
  t_turn = nullptr;
}

void LogTurn::Flush() {
  if (!t_turn || t_turn->empty()) return;
  WriteAll(*t_turn);
  t_turn->clear();
}

LogLine::LogLine(std::string_view level, std::string_view msg) {
  auto now = std::chrono::system_clock::now();
  std::time_t secs = std::chrono::system_clock::to_time_t(now);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char stamp[64];
  std::snprintf(stamp, sizeof(stamp), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  text_ = "{\"time\":\"";
  text_ += stamp;
  text_ += "\"";
  Add("level", level);
  Add("msg", msg);
}

void LogLine::Key(std::string_view key) {
  text_ += ',';
  AppendJsonString(key, &text_);
  text_ += ':';
}

LogLine& LogLine::Add(std::string_view key, std::string_view value) {
  Key(key);
  AppendJsonString(value, &text_);
  return *this;
}

LogLine& LogLine::Add(std::string_view key, int64_t value) {
  Key(key);
  text_ += std::to_string(value);
  return *this;
}

LogLine& LogLine::AddBool(std::string_view key, bool value) {
  Key(key);
  text_ += value ? "true" : "false";
  return *this;
}

LogLine& LogLine::AddNumber(std::string_view key, double value, int decimals) {
  Key(key);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, value);
  text_ += buf;
  return *this;
}

LogLine& LogLine::Add(std::string_view key, const std::vector<std::string>& values) {
  Key(key);
  text_ += '[';
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) text_ += ',';
    AppendJsonString(values[i], &text_);
  }
  text_ += ']';
  return *this;
}

void LogLine::Emit(const LogSink& sink) const {
  if (sink) sink(Done());
}

}  // namespace gpulint
