// The gpulint-webhook binary as an operator runs it: flags, logs, SIGTERM.
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>

#include "tests/webhook_test_support.h"

namespace gpulint::webhook_test {
namespace {

// The binary running with its stdout and stderr on pipes.
class Child {
 public:
  explicit Child(std::vector<std::string> args) {
    args.insert(args.begin(), GPULINT_WEBHOOK_BINARY);
    int out[2], err[2];
    REQUIRE(pipe(out) == 0);
    REQUIRE(pipe(err) == 0);
    pid_ = fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      dup2(out[1], 1);
      dup2(err[1], 2);
      close(out[0]);
      close(err[0]);
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(out[1]);
    close(err[1]);
    out_ = out[0];
    err_ = err[0];
  }
  ~Child() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      Wait();
    }
    close(out_);
    close(err_);
  }

  // Reads stderr until a line contains `needle` (or the pipe ends).
  bool AwaitStderr(const std::string& needle) {
    while (err_text_.find(needle) == std::string::npos) {
      pollfd p{err_, POLLIN, 0};
      if (poll(&p, 1, 30000) <= 0) return false;
      char buf[4096];
      ssize_t n = read(err_, buf, sizeof(buf));
      if (n <= 0) return false;
      err_text_.append(buf, static_cast<size_t>(n));
    }
    return true;
  }

  // Waits for the exit status, collecting the rest of both streams.
  int Wait() {
    Drain(out_, &out_text_);
    Drain(err_, &err_text_);
    int status = 0;
    waitpid(pid_, &status, 0);
    reaped_ = true;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  void Signal(int sig) { kill(pid_, sig); }

  const std::string& out() const { return out_text_; }
  const std::string& err() const { return err_text_; }

 private:
  static void Drain(int fd, std::string* text) {
    char buf[4096];
    for (ssize_t n; (n = read(fd, buf, sizeof(buf))) > 0;) text->append(buf, static_cast<size_t>(n));
  }
  pid_t pid_ = -1;
  int out_ = -1, err_ = -1;
  bool reaped_ = false;
  std::string out_text_, err_text_;
};

TEST_CASE("the help text teaches and bad flags say what is wrong", "[webhook][binary]") {
  Child help({"--help"});
  CHECK(help.Wait() == 0);
  CHECK_THAT(help.out(), Catch::StartsWith("gpulint-webhook: a Kubernetes admission webhook"));
  CHECK_THAT(help.out(), Catch::Contains("Usage: gpulint-webhook --cert FILE --key FILE [flags]"));
  CHECK_THAT(help.out(), Catch::Contains("curl --cacert cert.pem"));

  // Every message in its words is in webhook_flags_test; here, how main prints
  // them: after "gpulint-webhook: error: ", with exit status 2.
  struct Case {
    std::vector<std::string> args;
    std::string message;
  } cases[] = {
      {{}, "--cert and --key are required: the API server only calls webhooks over HTTPS"},
      {{"--bogus"}, "unknown option '--bogus' (see 'gpulint-webhook --help')"},
      {{"--advertise-vrma"},
       "unknown option '--advertise-vrma'; did you mean '--advertise-vram'? (see "
       "'gpulint-webhook --help')"},
      {{"--cert", "c", "--key", "k", "--nodes", "a.yaml", "--nodes=b.yaml"},
       "option '--nodes' given twice"},
  };
  for (const Case& c : cases) {
    Child child(c.args);
    CHECK(child.Wait() == 2);
    CHECK(child.err() == "gpulint-webhook: error: " + c.message + "\n");
  }
}

TEST_CASE("the binary serves and logs JSON lines and exits 0 on SIGTERM", "[webhook][binary]") {
  TempDir dir;
  TestCa ca("binary CA");
  CertPair pair = ca.Issue("gpulint-webhook");
  WriteFileAtomic(dir / "ca.pem", ca.pem());
  WriteFileAtomic(dir / "tls.crt", pair.cert_pem);
  WriteFileAtomic(dir / "tls.key", pair.key_pem);
  Child child({"--listen", "127.0.0.1:0", "--cert", dir / "tls.crt", "--key", dir / "tls.key",
               "--drain-seconds", "0"});
  REQUIRE(child.AwaitStderr("\"msg\":\"listening\""));
  std::string err = child.err();
  size_t at = err.find("\"port\":");
  REQUIRE(at != std::string::npos);
  int port = std::stoi(err.substr(at + 7));

  auto client = ClientFor(port, dir / "ca.pem");
  auto ready = client->Get("/readyz");
  REQUIRE(ready);
  CHECK(ready->status == 200);
  Json sent = Json::parse(ReadFile(CapturedReviews()[15]));
  auto res = client->Post("/validate", sent.dump(), "application/json");
  REQUIRE(res);
  CHECK(Json::parse(res->body)["response"]["allowed"] == false);

  child.Signal(SIGTERM);
  CHECK(child.Wait() == 0);
  std::vector<Json> lines;
  std::istringstream in(child.err());
  for (std::string line; std::getline(in, line);) lines.push_back(Json::parse(line));
  auto with = [&](const std::string& msg) {
    return std::count_if(lines.begin(), lines.end(), [&](const Json& l) { return l["msg"] == msg; });
  };
  CHECK(with("admission") == 1);
  CHECK(with("signal received") == 1);
  CHECK(with("stopped") == 1);
  CHECK_FALSE(client->Get("/healthz"));
}

TEST_CASE("the binary exits 1 when it cannot listen", "[webhook][binary]") {
  TempDir dir;
  TestCa ca("binary CA");
  CertPair pair = ca.Issue("gpulint-webhook");
  WriteFileAtomic(dir / "tls.crt", pair.cert_pem);
  WriteFileAtomic(dir / "tls.key", pair.key_pem);
  TestServer taken;  // holds a port
  Child child({"--listen", "127.0.0.1:" + std::to_string(taken.port()), "--cert", dir / "tls.crt",
               "--key", dir / "tls.key"});
  CHECK(child.Wait() == 1);
  CHECK_THAT(child.err(), Catch::Contains("\"msg\":\"cannot start\""));
  CHECK_THAT(child.err(), Catch::Contains("cannot listen on 127.0.0.1:" + std::to_string(taken.port())));
}

}  // namespace
}  // namespace gpulint::webhook_test
