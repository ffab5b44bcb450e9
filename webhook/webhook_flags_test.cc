// gpulint-webhook's flags (webhook/flags.h): each read into its field, and
// every refusal in its exact words. The binary's own test (webhook_binary_test)
// checks that main prints them after "gpulint-webhook: error: " with exit 2.
#include "webhook/flags.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <vector>

namespace gpulint {
namespace {

struct Result {
  bool ok = false;
  WebhookFlags flags;
  std::string error;
};

Result Parse(const std::vector<std::string>& args) {
  Result r;
  r.ok = ParseWebhookFlags(args, &r.flags, &r.error);
  return r;
}

TEST_CASE("webhook flags: each value lands in its field, as --flag value or --flag=value",
          "[webhook][flags]") {
  Result r = Parse({"--listen=127.0.0.1:9443", "--cert", "c.pem", "--key=k.pem", "--client-ca",
                    "ca.pem", "--policy=p.yaml", "--nodes", "n.yaml", "--kubeconfig", "kc",
                    "--workers=8", "--drain-seconds", "0", "--advertise-vram",
                    "--watch-stale-after", "90s"});
  INFO(r.error);
  REQUIRE(r.ok);
  const ServerOptions& s = r.flags.server;
  CHECK(s.host == "127.0.0.1");
  CHECK(s.port == 9443);
  CHECK(s.tls.cert == "c.pem");
  CHECK(s.tls.key == "k.pem");
  CHECK(s.tls.client_ca == "ca.pem");
  CHECK(s.policy_file == "p.yaml");
  CHECK(s.nodes_file == "n.yaml");
  CHECK(r.flags.kubeconfig == "kc");
  CHECK(s.workers == 8);
  CHECK(s.drain == std::chrono::seconds(0));
  CHECK(r.flags.advertise_vram);
  CHECK(s.watch_stale_after == std::chrono::seconds(90));
  CHECK_FALSE(r.flags.in_cluster);
  CHECK_FALSE(r.flags.help);
}

TEST_CASE("webhook flags: what is left out keeps its default", "[webhook][flags]") {
  Result r = Parse({"--cert", "c", "--key", "k", "--in-cluster"});
  REQUIRE(r.ok);
  CHECK(r.flags.server.host == "0.0.0.0");
  CHECK(r.flags.server.port == 8443);
  CHECK(r.flags.server.workers == 0);
  CHECK(r.flags.server.drain == std::chrono::seconds(5));
  CHECK(r.flags.server.watch_stale_after == std::chrono::minutes(3));
  CHECK(r.flags.server.policy_file.empty());
  CHECK(r.flags.server.nodes_file.empty());
  CHECK(r.flags.in_cluster);
  CHECK_FALSE(r.flags.advertise_vram);
}

TEST_CASE("webhook flags: the limits, bytes as quantities", "[webhook][flags]") {
  Result r = Parse({"--cert", "c", "--key", "k", "--max-body-bytes=1Mi",
                    "--max-buffered-bytes", "64M", "--max-connections", "100",
                    "--review-workers=3", "--max-reviews-in-flight", "9", "--parse-budget", "0",
                    "--read-timeout-seconds", "4", "--idle-timeout-seconds", "60"});
  INFO(r.error);
  REQUIRE(r.ok);
  const ServerOptions& s = r.flags.server;
  CHECK(s.max_body_bytes == 1048576);
  CHECK(s.max_buffered_bytes == 64000000);
  CHECK(s.max_connections == 100);
  CHECK(s.review_workers == 3);
  CHECK(s.max_reviews_in_flight == 9);
  CHECK(s.parse_budget == 0);
  CHECK(s.read_timeout_seconds == 4);
  CHECK(s.keep_alive_seconds == 60);

  Result d = Parse({"--cert", "c", "--key", "k"});
  REQUIRE(d.ok);
  CHECK(d.flags.server.max_body_bytes == 3145728);
  CHECK(d.flags.server.max_buffered_bytes == 32u << 20);
  CHECK(d.flags.server.max_connections == 1024);
  CHECK(d.flags.server.review_workers == 0);  // one per CPU
  CHECK(d.flags.server.max_reviews_in_flight == 64);
  CHECK(d.flags.server.parse_budget == 12);
  CHECK(d.flags.server.read_timeout_seconds == 10);
  CHECK(d.flags.server.keep_alive_seconds == 30);
  // A plain number of bytes.
  Result plain = Parse({"--cert", "c", "--key", "k", "--max-body-bytes", "4096"});
  REQUIRE(plain.ok);
  CHECK(plain.flags.server.max_body_bytes == 4096);
}

TEST_CASE("webhook flags: --version needs no other flag, as --help", "[webhook][flags]") {
  Result r = Parse({"--version"});
  INFO(r.error);
  REQUIRE(r.ok);
  CHECK(r.flags.version);
  CHECK_FALSE(r.flags.help);
  CHECK_FALSE(Parse({"--cert", "c", "--key", "k"}).flags.version);
}

TEST_CASE("webhook flags: --help wins over everything after it", "[webhook][flags]") {
  for (const char* help : {"--help", "-h"}) {
    Result r = Parse({"--workers", "0", help, "--bogus", "stray"});
    CHECK(r.ok);
    CHECK(r.flags.help);
  }
}

TEST_CASE("webhook flags: usage errors, word for word", "[webhook][flags]") {
  const std::string kPositional = " (gpulint-webhook takes only flags; see 'gpulint-webhook --help')";
  struct Case {
    std::vector<std::string> args;
    std::string error;
  } cases[] = {
      // The common parser, naming the webhook's help.
      {{"--bogus"}, "unknown option '--bogus' (see 'gpulint-webhook --help')"},
      {{"--cert", "c", "--key", "k", "-x"}, "unknown option '-x' (see 'gpulint-webhook --help')"},
      {{"--cert", "c", "--key", "k", "--node", "n.yaml"},
       "unknown option '--node'; did you mean '--nodes'? (see 'gpulint-webhook --help')"},
      {{"--kubconfig=kc", "--cert", "c", "--key", "k"},
       "unknown option '--kubconfig'; did you mean '--kubeconfig'? (see 'gpulint-webhook --help')"},
      {{"--cert", "c", "--key", "k", "-1"}, "unknown option '-1' (see 'gpulint-webhook --help')"},
      {{"--cert", "c", "--key"}, "option '--key' needs a value"},
      {{"--cert", "c", "--key", "k", "--nodes", "a.yaml", "--nodes=b.yaml"},
       "option '--nodes' given twice"},
      {{"--workers=2", "--cert", "c", "--key", "k", "--workers", "2"},
       "option '--workers' given twice"},
      {{"--cert", "c", "--key", "k", "--advertise-vram=true"},
       "option '--advertise-vram' takes no value"},
      // No positionals, wherever they stand, "-" and after "--" included.
      {{"nodes.yaml", "--cert", "c", "--key", "k"}, "unexpected argument 'nodes.yaml'" + kPositional},
      {{"--cert", "c", "--key", "k", "-"}, "unexpected argument '-'" + kPositional},
      {{"--cert", "c", "--key", "k", "--", "--nodes=n.yaml"},
       "unexpected argument '--nodes=n.yaml'" + kPositional},
      // The webhook's own checks of the values.
      {{"--listen", "8443", "--cert", "c", "--key", "k"},
       "--listen 8443: expected ADDR:PORT, e.g. 0.0.0.0:8443"},
      {{"--workers", "4097", "--cert", "c", "--key", "k"},
       "--workers 4097: expected a number from 1 to 4096"},
      {{"--workers", " 8", "--cert", "c", "--key", "k"},
       "--workers  8: expected a number from 1 to 4096"},
      {{"--drain-seconds", "-1", "--cert", "c", "--key", "k"},
       "--drain-seconds -1: expected a number from 0 to 300"},
      {{"--drain-seconds=301", "--cert", "c", "--key", "k"},
       "--drain-seconds 301: expected a number from 0 to 300"},
      {{"--cert", "c", "--key", "k", "--max-body-bytes", "3MB"},
       "--max-body-bytes 3MB: expected a whole number of bytes from 1024 to 1Ti, as a quantity "
       "(3Mi, 3145728)"},
      {{"--cert", "c", "--key", "k", "--max-body-bytes", "1024.5"},
       "--max-body-bytes 1024.5: expected a whole number of bytes from 1024 to 1Ti, as a quantity "
       "(3Mi, 3145728)"},
      {{"--cert", "c", "--key", "k", "--max-body-bytes", "100m"},
       "--max-body-bytes 100m: expected a whole number of bytes from 1024 to 1Ti, as a quantity "
       "(3Mi, 3145728)"},
      {{"--cert", "c", "--key", "k", "--max-buffered-bytes", "1Ki"},
       "--max-buffered-bytes 1Ki: expected a whole number of bytes from 65536 to 1Ti, as a "
       "quantity (3Mi, 3145728)"},
      {{"--cert", "c", "--key", "k", "--max-buffered-bytes", "2Mi"},
       "--max-buffered-bytes (2097152) is less than --max-body-bytes (3145728): no body of the "
       "largest size could ever be read"},
      {{"--cert", "c", "--key", "k", "--max-connections", "0"},
       "--max-connections 0: expected a number from 1 to 1000000"},
      {{"--cert", "c", "--key", "k", "--review-workers", "0"},
       "--review-workers 0: expected a number from 1 to 4096"},
      {{"--cert", "c", "--key", "k", "--max-reviews-in-flight", "-1"},
       "--max-reviews-in-flight -1: expected a number from 1 to 100000"},
      {{"--cert", "c", "--key", "k", "--parse-budget", "1001"},
       "--parse-budget 1001: expected a number from 0 to 1000"},
      {{"--cert", "c", "--key", "k", "--read-timeout-seconds", "0"},
       "--read-timeout-seconds 0: expected a number from 1 to 300"},
      {{"--cert", "c", "--key", "k", "--idle-timeout-seconds", "1h"},
       "--idle-timeout-seconds 1h: expected a number from 1 to 3600"},
      {{"--watch-stale-after", "0", "--cert", "c", "--key", "k"},
       "--watch-stale-after 0: expected a duration of at least 1s, such as 90s, 3m or 1h"},
      {{"--watch-stale-after=5", "--cert", "c", "--key", "k"},
       "--watch-stale-after 5: expected a duration of at least 1s, such as 90s, 3m or 1h"},
      {{"--key", "k"}, "--cert and --key are required: the API server only calls webhooks over HTTPS"},
      {{"--cert", "c", "--key", "k", "--in-cluster", "--kubeconfig", "kc"},
       "--in-cluster and --kubeconfig are exclusive: pick one way to reach the API server"},
      {{"--cert", "c", "--key", "k", "--advertise-vram"},
       "--advertise-vram needs --kubeconfig or --in-cluster: it writes to the nodes the node "
       "watch reads from the API server"},
  };
  for (const Case& c : cases) {
    std::string joined;
    for (const std::string& a : c.args) joined += a + " ";
    INFO(joined);
    Result r = Parse(c.args);
    CHECK_FALSE(r.ok);
    CHECK(r.error == c.error);
  }
}

}  // namespace
}  // namespace gpulint
