// gpulint-webhook's flags (flags.h).
#include "webhook/flags.h"

#include <charconv>
#include <chrono>

#include "common/flags.h"
#include "engine/base/edit_distance.h"
#include "engine/quantity/quantity.h"

namespace gpulint {
namespace {

constexpr const char* kProgram = "gpulint-webhook";

const std::vector<OptionSpec>& Specs() {
  static const std::vector<OptionSpec> kSpecs = {
      {"--listen", "", true},      {"--cert", "", true},           {"--key", "", true},
      {"--client-ca", "", true},   {"--policy", "", true},         {"--nodes", "", true},
      {"--kubeconfig", "", true},  {"--workers", "", true},        {"--drain-seconds", "", true},
      {"--in-cluster", "", false}, {"--advertise-vram", "", false}, {"--register", "", true},
      {"--ca-bundle", "", true},   {"--version", "", false},
      {"--watch-stale-after", "", true},
      {"--allow-existing-violations", "", true, false, "true false"},
      // The limits (docs/webhook.md, "Limits and security").
      {"--max-body-bytes", "", true},     {"--max-buffered-bytes", "", true},
      {"--max-connections", "", true},    {"--review-workers", "", true},
      {"--max-reviews-in-flight", "", true}, {"--parse-budget", "", true},
      {"--read-timeout-seconds", "", true},  {"--idle-timeout-seconds", "", true},
  };
  return kSpecs;
}

// Digits only, as --listen's port: no blanks, no "+" (strtol would take both).
bool ParseInt(const std::string& text, int min, int max, int* out) {
  int v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < min || v > max)
    return false;
  *out = v;
  return true;
}

// A count of bytes as a Kubernetes quantity ("3Mi", "3145728"), whole and
// within [min, max].
bool ParseBytes(const std::string& text, uint64_t min, uint64_t max, uint64_t* out) {
  Quantity q;
  if (!Quantity::Parse(text, &q, nullptr)) return false;
  int64_t v = q.Value();
  if (v < 0 || !(Quantity::FromInt(v) == q)) return false;
  if (static_cast<uint64_t>(v) < min || static_cast<uint64_t>(v) > max) return false;
  *out = static_cast<uint64_t>(v);
  return true;
}

// The limits: each a number in its range, or a usage error that gives the range.
bool ReadLimits(const ParsedArgs& args, ServerOptions* s, std::string* error) {
  struct Count {
    const char* flag;
    int min, max;
    int* out;
  };
  int connections = static_cast<int>(s->max_connections);
  int in_flight = static_cast<int>(s->max_reviews_in_flight);
  int budget = static_cast<int>(s->parse_budget);
  for (const Count& c : {Count{"--max-connections", 1, 1000000, &connections},
                         Count{"--review-workers", 1, 4096, &s->review_workers},
                         Count{"--max-reviews-in-flight", 1, 100000, &in_flight},
                         Count{"--parse-budget", 0, 1000, &budget},
                         Count{"--read-timeout-seconds", 1, 300, &s->read_timeout_seconds},
                         Count{"--idle-timeout-seconds", 1, 3600, &s->keep_alive_seconds}}) {
    if (!args.Has(c.flag)) continue;
    std::string value = args.Get(c.flag);
    if (!ParseInt(value, c.min, c.max, c.out)) {
      *error = std::string(c.flag) + " " + value + ": expected a number from " +
               std::to_string(c.min) + " to " + std::to_string(c.max);
      return false;
    }
  }
  s->max_connections = static_cast<size_t>(connections);
  s->max_reviews_in_flight = static_cast<size_t>(in_flight);
  s->parse_budget = static_cast<size_t>(budget);
  struct Bytes {
    const char* flag;
    uint64_t min;
    size_t* out;
  };
  constexpr uint64_t kMaxBytes = uint64_t{1} << 40;
  for (const Bytes& b : {Bytes{"--max-body-bytes", 1024, &s->max_body_bytes},
                         Bytes{"--max-buffered-bytes", 64 * 1024, &s->max_buffered_bytes}}) {
    if (!args.Has(b.flag)) continue;
    std::string value = args.Get(b.flag);
    uint64_t n = 0;
    if (!ParseBytes(value, b.min, kMaxBytes, &n)) {
      *error = std::string(b.flag) + " " + value + ": expected a whole number of bytes from " +
               std::to_string(b.min) + " to 1Ti, as a quantity (3Mi, 3145728)";
      return false;
    }
    *b.out = static_cast<size_t>(n);
  }
  if (s->max_buffered_bytes < s->max_body_bytes) {
    *error = "--max-buffered-bytes (" + std::to_string(s->max_buffered_bytes) +
             ") is less than --max-body-bytes (" + std::to_string(s->max_body_bytes) +
             "): no body of the largest size could ever be read";
    return false;
  }
  return true;
}

// The numbers and the address: each refused with what it should look like.
bool ReadValues(const ParsedArgs& args, WebhookFlags* f, std::string* error) {
  if (args.Has("--listen")) {
    std::string value = args.Get("--listen");
    if (!ParseListenAddress(value, &f->server.host, &f->server.port)) {
      *error = "--listen " + value + ": expected ADDR:PORT, e.g. 0.0.0.0:8443";
      return false;
    }
  }
  int n = 0;
  if (args.Has("--workers")) {
    std::string value = args.Get("--workers");
    if (!ParseInt(value, 1, 4096, &n)) {
      *error = "--workers " + value + ": expected a number from 1 to 4096";
      return false;
    }
    f->server.workers = n;
  }
  f->server.drain = std::chrono::seconds(5);
  if (args.Has("--drain-seconds")) {
    std::string value = args.Get("--drain-seconds");
    if (!ParseInt(value, 0, 300, &n)) {
      *error = "--drain-seconds " + value + ": expected a number from 0 to 300";
      return false;
    }
    f->server.drain = std::chrono::seconds(n);
  }
  if (args.Has("--watch-stale-after")) {
    std::string value = args.Get("--watch-stale-after");
    std::chrono::milliseconds d{};
    if (!ParseDuration(value, &d) || d < std::chrono::seconds(1)) {
      *error = "--watch-stale-after " + value +
               ": expected a duration of at least 1s, such as 90s, 3m or 1h";
      return false;
    }
    f->server.watch_stale_after = d;
  }
  if (args.Has("--allow-existing-violations")) {
    std::string value = args.Get("--allow-existing-violations");
    if (value != "true" && value != "false") {
      *error = "--allow-existing-violations " + value + ": expected true or false";
      return false;
    }
    f->server.allow_existing_violations = value == "true";
  }
  if (!ReadLimits(args, &f->server, error)) return false;
  f->server.tls.cert = args.Get("--cert");
  f->server.tls.key = args.Get("--key");
  f->server.tls.client_ca = args.Get("--client-ca");
  f->server.policy_file = args.Get("--policy");
  f->server.nodes_file = args.Get("--nodes");
  f->kubeconfig = args.Get("--kubeconfig");
  f->in_cluster = args.Has("--in-cluster");
  f->advertise_vram = args.Has("--advertise-vram");
  f->register_file = args.Get("--register");
  f->ca_bundle = args.Get("--ca-bundle");
  return true;
}

}  // namespace

bool ParseWebhookFlags(const std::vector<std::string>& args, WebhookFlags* f,
                       std::string* error) {
  ParsedArgs parsed;
  if (!ParseArgs(args, kProgram, Specs(), false, ClosestWord, &parsed, error)) return false;
  f->help = parsed.help;
  f->version = parsed.Has("--version");
  if (f->help || f->version) return true;
  if (!parsed.positional.empty()) {
    *error = "unexpected argument '" + parsed.positional.front() +
             "' (gpulint-webhook takes only flags; see 'gpulint-webhook --help')";
    return false;
  }
  if (!ReadValues(parsed, f, error)) return false;
  if (f->server.tls.cert.empty() || f->server.tls.key.empty()) {
    *error = "--cert and --key are required: the API server only calls webhooks over HTTPS";
    return false;
  }
  if (f->in_cluster && !f->kubeconfig.empty()) {
    *error = "--in-cluster and --kubeconfig are exclusive: pick one way to reach the API server";
    return false;
  }
  if (!f->register_file.empty() && !f->in_cluster && f->kubeconfig.empty()) {
    *error = "--register needs --kubeconfig or --in-cluster: it applies the webhook "
             "configurations to the API server";
    return false;
  }
  if (f->register_file.empty() != f->ca_bundle.empty()) {
    *error = "--register and --ca-bundle go together: the configurations it registers need the "
             "CA that signed --cert";
    return false;
  }
  if (f->advertise_vram && !f->in_cluster && f->kubeconfig.empty()) {
    *error =
        "--advertise-vram needs --kubeconfig or --in-cluster: it writes to the nodes the "
        "node watch reads from the API server";
    return false;
  }
  return true;
}

}  // namespace gpulint
