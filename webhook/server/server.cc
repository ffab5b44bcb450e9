#include "webhook/server/server.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <thread>

#include "common/cpus.h"
#include "common/flags.h"
#include "webhook/net/http1_connection.h"

namespace gpulint {

bool ParseListenAddress(const std::string& text, std::string* host, int* port) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos) return false;
  std::string h = text.substr(0, colon);
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  std::string_view digits = std::string_view(text).substr(colon + 1);
  unsigned p = 0;  // from_chars takes digits only: no sign, no blanks
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), p);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || p > 65535)
    return false;
  *host = h.empty() ? "0.0.0.0" : h;
  *port = static_cast<int>(p);
  return true;
}

namespace {

size_t ThreadsFor(int flag) {
  return flag > 0 ? static_cast<size_t>(flag) : static_cast<size_t>(UsableCpus());
}

}  // namespace

WebhookServer::WebhookServer(ServerOptions options)
    : options_(std::move(options)),
      store_(options_.policy_file, options_.nodes_file, options_.log, metrics_),
      buffers_(options_.max_buffered_bytes),
      refusals_(metrics_, options_.log),
      pool_(ThreadsFor(options_.review_workers), options_.max_reviews_in_flight),
      certificate_(
          options_.tls, [this](SslCtxPtr ctx) { http_->SetContext(std::move(ctx)); }, options_.log,
          metrics_),
      router_(store_, RouterSetup{this, &metrics_, &refusals_, &pool_, &buffers_, options_.log,
                                  ReviewOptions{options_.parse_budget,
                                                options_.allow_existing_violations},
                                  !options_.tls.client_ca.empty()}) {}

WebhookServer::~WebhookServer() { Shutdown(); }

// Ready without a valid policy: the webhook then answers every review with
// an allow and a warning, which is better than leaving the API server with no
// webhook to call (failurePolicy Fail would refuse every pod).
bool WebhookServer::ready() const { return NotReadyReason().empty(); }

bool WebhookServer::can_answer() const { return certificate_.loaded() && !certificate_.expired(); }

std::string WebhookServer::NotReadyReason() const {
  if (stopping_) return "shutting down";
  if (!certificate_.loaded()) return "no valid certificate loaded";
  return "";
}

void WebhookServer::AddWatch(const WatchSync* sync) {
  std::lock_guard<std::mutex> lock(watches_mu_);
  watches_.push_back(sync);
}

// A stale watch leaves the webhook ready: unready, with failurePolicy Fail,
// it would make the API server refuse every pod, where judging against the
// nodes as last read still catches what it caught before.
std::vector<std::string> WebhookServer::ReadinessNotes() const {
  std::vector<std::string> notes;
  auto now = WatchSync::Clock::now();
  std::lock_guard<std::mutex> lock(watches_mu_);
  for (const WatchSync* w : watches_) {
    WatchSync::State s = w->At(now);
    if (s.unsynced < options_.watch_stale_after) continue;
    notes.push_back(w->resource() + " watch stale: not synced for " +
                    FormatDuration(std::chrono::duration_cast<std::chrono::milliseconds>(s.unsynced)) +
                    (s.last_error.empty() ? "" : " (" + s.last_error + ")") +
                    "; judged against what it last read");
  }
  return notes;
}

void WebhookServer::RefreshMetrics() {
  {
    auto now = WatchSync::Clock::now();
    std::lock_guard<std::mutex> lock(watches_mu_);
    for (const WatchSync* w : watches_) {
      WatchSync::State s = w->At(now);
      metrics_.SetWatchSync(w->resource(), static_cast<double>(s.unsynced.count()),
                            s.unsynced >= options_.watch_stale_after);
    }
  }
  metrics_.SetReady(ready());
  metrics_.SetConnections(http_->connections(), http_->handshake_failures());
  metrics_.SetHeld(http_->open_connections(), buffers_.used(), pool_.in_flight());
}

void WebhookServer::ConnectionRefused(size_t limit) {
  refusals_.Record(Refusal::kConnections,
                   LogLine("warn", "refused")
                       .Add("detail", "connections at their limit of " + std::to_string(limit) +
                                          " (--max-connections): a new one is closed at once"));
}

// What a connection was doing when its time ran out says whose fault it is.
void WebhookServer::DeadlinePassed(const TlsConnection& c) {
  auto line = [&c](std::string detail) {
    return LogLine("warn", "refused")
        .Add("client", c.peer().address)
        .Add("detail", std::move(detail))
        .Add("bytes_read", static_cast<int64_t>(c.buffered()));
  };
  auto within = [](int seconds) { return " within " + std::to_string(seconds) + " s"; };
  switch (c.state()) {
    case TlsConnection::State::kHandshake:
      refusals_.Record(Refusal::kSlowClient, line("TLS handshake not done" + within(options_.read_timeout_seconds)));
      break;
    case TlsConnection::State::kRead:
      refusals_.Record(Refusal::kSlowClient, line("request not sent whole" + within(options_.read_timeout_seconds)));
      break;
    case TlsConnection::State::kWrite:
      refusals_.Record(Refusal::kSlowClient, line("answer not taken" + within(options_.write_timeout_seconds)));
      break;
    case TlsConnection::State::kPending:
      refusals_.Record(Refusal::kShed, line("review not judged" + within(options_.write_timeout_seconds) +
                                            ": the review workers are behind"));
      break;
    default: break;
  }
}

bool WebhookServer::Start(std::string* error) {
  TlsServerLimits net;
  net.timeouts.handshake = std::chrono::seconds(options_.read_timeout_seconds);
  net.timeouts.request = std::chrono::seconds(options_.read_timeout_seconds);
  net.timeouts.write = std::chrono::seconds(options_.write_timeout_seconds);
  net.timeouts.answer = std::chrono::seconds(options_.write_timeout_seconds);
  net.timeouts.idle = std::chrono::seconds(options_.keep_alive_seconds);
  net.max_connections = options_.max_connections;
  net.buffers = &buffers_;
  Http1Limits limits;
  limits.max_body_bytes = options_.max_body_bytes;
  limits.keep_alive_timeout = std::chrono::seconds(options_.keep_alive_seconds);
  limits.keep_alive_requests = std::max<size_t>(1, options_.keep_alive_requests);
  HttpHandler& handler = router_;
  NetObserver* observer = this;
  http_ = std::make_unique<TlsServer>(
      net,
      [&handler, limits](const PeerInfo* peer, ConnectionWakerPtr waker) {
        return std::make_unique<Http1Connection>(limits, handler, peer, std::move(waker));
      },
      observer);

  store_.ReloadPolicy();
  certificate_.Reload();
  store_.ReloadNodesFile();
  store_.Publish();

  size_t threads = ThreadsFor(options_.workers);
  port_ = http_->Bind(options_.host, options_.port, threads, error);
  if (port_ < 0) {
    std::lock_guard<std::mutex> lock(stop_mu_);
    stopped_ = true;
    return false;
  }
  listen_thread_ = std::thread([this] {
    http_->Serve();
    std::lock_guard<std::mutex> lock(stop_mu_);
    stopped_ = true;
    stop_cv_.notify_all();
  });
  reload_thread_ = std::thread([this] { ReloadLoop(); });
  LogLine("info", "listening")
      .Add("address", options_.host)
      .Add("port", int64_t{port_})
      .Add("threads", static_cast<int64_t>(threads))
      .Add("review_workers", static_cast<int64_t>(pool_.threads()))
      .AddBool("ready", ready())
      .Emit(options_.log);
  return true;
}

void WebhookServer::Shutdown() {
  if (!stopping_.exchange(true)) {
    metrics_.SetReady(false);
    if (http_) {
      LogLine("info", "shutting down")
          .Add("drain_ms", static_cast<int64_t>(options_.drain.count()))
          .Emit(options_.log);
      std::this_thread::sleep_for(options_.drain);
      http_->Stop();
    }
    std::lock_guard<std::mutex> lock(stop_mu_);
    stop_cv_.notify_all();
  }
  std::lock_guard<std::mutex> join_lock(join_mu_);
  if (listen_thread_.joinable()) listen_thread_.join();
  if (reload_thread_.joinable()) reload_thread_.join();
  // Every connection waiting on a review has been answered (or cut) by now.
  pool_.Stop();
  if (http_ && !stop_logged_) {
    stop_logged_ = true;
    LogLine("info", "stopped").Emit(options_.log);
  }
}

void WebhookServer::Wait() {
  std::unique_lock<std::mutex> lock(stop_mu_);
  stop_cv_.wait(lock, [this] { return stopped_ || !http_; });
}

// When the process runs out of descriptors, the accepting loop pauses and
// retries quietly (tls_event_loop.cc) and new connections wait in the listen
// backlog (or time out) without a word: say so, once per episode, with the
// limit.
void WebhookServer::CheckOpenFiles() {
  int probe = ::fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 0);
  bool exhausted = probe < 0 && errno == EMFILE;
  if (probe >= 0) ::close(probe);
  if (exhausted == out_of_files_) return;
  out_of_files_ = exhausted;
  rlimit limit{};
  ::getrlimit(RLIMIT_NOFILE, &limit);
  LogLine(exhausted ? "error" : "info",
          exhausted ? "out of file descriptors: new connections wait until some close"
                    : "file descriptors available again")
      .Add("limit", static_cast<int64_t>(limit.rlim_cur))
      .Emit(options_.log);
}

void WebhookServer::ReloadLoop() {
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(stop_mu_);
      stop_cv_.wait_for(lock, options_.reload_interval, [this] { return stopping_.load(); });
      if (stopping_) return;
    }
    bool changed = store_.ReloadChanged();
    certificate_.ReloadChanged();
    certificate_.CheckExpiry();
    CheckOpenFiles();
    if (changed) store_.Publish();
    metrics_.SetReady(ready());
  }
}

}  // namespace gpulint
