#include "kube/exec_credential.h"

#include <time.h>

#include <cstdio>

#include "common/subprocess.h"
#include "engine/json/json_parser.h"

namespace gpulint {
namespace {

constexpr const char* kV1 = "client.authentication.k8s.io/v1";
constexpr const char* kV1beta1 = "client.authentication.k8s.io/v1beta1";
// A credential this close to its expiry is not used: a list of many pages
// must not run out of it halfway.
constexpr auto kExpiryMargin = std::chrono::minutes(1);

// "2026-11-22T10:00:00Z", "2026-11-22T10:00:00.5+01:00" (RFC 3339).
bool ParseRfc3339(std::string_view text, ExecClock::time_point* out) {
  std::tm tm{};
  int consumed = 0;
  std::string s(text);
  if (sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
             &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &consumed) != 6)
    return false;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  std::string_view rest = text.substr(static_cast<size_t>(consumed));
  if (!rest.empty() && rest[0] == '.') {
    size_t digits = rest.find_first_not_of("0123456789", 1);
    rest.remove_prefix(digits == std::string_view::npos ? rest.size() : digits);
  }
  long offset = 0;
  if (rest == "Z" || rest == "z") {
    offset = 0;
  } else if (rest.size() == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':') {
    int h = 0, m = 0;
    if (sscanf(std::string(rest.substr(1)).c_str(), "%2d:%2d", &h, &m) != 2) return false;
    offset = (rest[0] == '-' ? -1 : 1) * (h * 3600L + m * 60L);
  } else {
    return false;
  }
  time_t t = timegm(&tm);
  if (t == static_cast<time_t>(-1)) return false;
  t -= offset;
  // Past what the clock can hold (year 2262 in nanoseconds): never expires.
  static const time_t kLatest = ExecClock::to_time_t(ExecClock::time_point::max()) - 1;
  *out = t >= kLatest ? ExecClock::time_point::max() : ExecClock::from_time_t(t);
  return true;
}

std::string Quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

}  // namespace

bool ReadExecConfig(const Value& exec, const std::string& dir, const std::string& user,
                    ExecConfig* out, std::string* error) {
  std::string where = "user " + Quote(user) + ": exec";
  out->user = user;
  out->api_version = std::string(exec.StringAt("apiVersion"));
  if (out->api_version != kV1 && out->api_version != kV1beta1) {
    *error = where + ".apiVersion must be " + kV1 + " or " + kV1beta1 +
             (out->api_version.empty() ? std::string(", and is missing")
                                       : ", not " + Quote(out->api_version));
    return false;
  }
  out->command = std::string(exec.StringAt("command"));
  if (out->command.empty()) {
    *error = where + ".command is missing";
    return false;
  }
  if (out->command.find('/') != std::string::npos && out->command[0] != '/')
    out->command = dir + "/" + out->command;
  if (const Value* args = exec.Find("args"); args && args->is_sequence())
    for (const Value& a : args->items()) out->args.push_back(a.text());
  if (const Value* env = exec.Find("env"); env && env->is_sequence()) {
    for (const Value& e : env->items()) {
      std::string_view name = e.StringAt("name");
      if (name.empty() || name.find('=') != std::string_view::npos) {
        *error = where + ".env: each entry needs a name (without '=')";
        return false;
      }
      out->env.push_back(std::string(name) + "=" + std::string(e.StringAt("value")));
    }
  }
  out->install_hint = std::string(exec.StringAt("installHint"));
  // v1 requires the mode; v1beta1 defaults to IfAvailable.
  out->interactive_mode = std::string(exec.StringAt("interactiveMode"));
  if (out->interactive_mode.empty() && out->api_version == kV1beta1)
    out->interactive_mode = "IfAvailable";
  if (out->interactive_mode != "Never" && out->interactive_mode != "IfAvailable" &&
      out->interactive_mode != "Always") {
    *error = where + ".interactiveMode must be Never, IfAvailable or Always" +
             (out->interactive_mode.empty() ? std::string(" (" + std::string(kV1) + " requires it)")
                                            : ", not " + Quote(out->interactive_mode));
    return false;
  }
  if (out->interactive_mode == "Always") {
    *error = where +
             ": the plugin asks to be interactive (interactiveMode: Always), and gpulint "
             "runs it without a terminal; log in with it once by hand, or use a plugin "
             "mode that needs no prompt";
    return false;
  }
  const Value* provide = exec.Find("provideClusterInfo");
  out->provide_cluster_info = provide && provide->text() == "true";
  return true;
}

bool ParseExecCredential(std::string_view text, const std::string& api_version, ExecCredential* out,
                         std::string* error) {
  Value root;
  Error parse_error;
  if (!ParseJson(text, 64, &root, &parse_error)) {
    // Where, not what: the parser's message quotes the text near the error,
    // which may be part of a credential.
    *error = "its output is not an ExecCredential: not JSON at line " +
             std::to_string(parse_error.mark.line) + ", column " +
             std::to_string(parse_error.mark.column) +
             " (the output is not shown: it may hold a credential)";
    return false;
  }
  if (root.StringAt("kind") != "ExecCredential" || root.StringAt("apiVersion") != api_version) {
    *error = "its output is not an ExecCredential of " + api_version + " (apiVersion " +
             Quote(root.StringAt("apiVersion")) + ", kind " + Quote(root.StringAt("kind")) + ")";
    return false;
  }
  const Value* status = root.Find("status");
  if (!status || !status->is_mapping()) {
    *error = "its ExecCredential has no status";
    return false;
  }
  out->token = std::string(status->StringAt("token"));
  out->client_cert_pem = std::string(status->StringAt("clientCertificateData"));
  out->client_key_pem = std::string(status->StringAt("clientKeyData"));
  if (out->client_cert_pem.empty() != out->client_key_pem.empty()) {
    *error =
        "its ExecCredential has a client certificate without its key, or a key without its "
        "certificate";
    return false;
  }
  if (out->token.empty() && out->client_cert_pem.empty()) {
    *error = "its ExecCredential holds neither a token nor a client certificate";
    return false;
  }
  out->expires = ExecClock::time_point::max();
  std::string_view expiry = status->StringAt("expirationTimestamp");
  if (!expiry.empty() && !ParseRfc3339(expiry, &out->expires)) {
    *error = "its ExecCredential's expirationTimestamp " + Quote(expiry) + " is not RFC 3339";
    return false;
  }
  return true;
}

bool ExecCredentials::Get(ExecCredential* out, std::string* error) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!held_ || credential_.expires - kExpiryMargin <= ExecClock::now()) {
    ExecCredential fresh;
    if (!Run(&fresh, error)) return false;
    credential_ = std::move(fresh);
    held_ = true;
  }
  *out = credential_;
  return true;
}

void ExecCredentials::Invalidate() {
  std::lock_guard<std::mutex> lock(mu_);
  held_ = false;
}

bool ExecCredentials::Run(ExecCredential* out, std::string* error) {
  const ExecConfig& c = config_;
  std::string what = "the credential plugin " + Quote(c.command) + " of user " + Quote(c.user);
  std::string path = c.command.find('/') == std::string::npos ? FindOnPath(c.command) : c.command;
  if (path.empty()) {
    *error = what + " is not on PATH" + (c.install_hint.empty() ? "" : ": " + c.install_hint);
    return false;
  }
  std::string info = "{\"apiVersion\":\"" + c.api_version +
                     "\",\"kind\":\"ExecCredential\",\"spec\":{\"interactive\":false";
  if (c.provide_cluster_info) info += ",\"cluster\":" + c.cluster_json;
  info += "}}";
  std::vector<std::string> env = c.env;
  env.push_back("KUBERNETES_EXEC_INFO=" + info);
  std::vector<std::string> argv = {path};
  argv.insert(argv.end(), c.args.begin(), c.args.end());
  ToolLimits limits;
  limits.timeout = std::chrono::seconds(60);
  limits.max_stdout = 1 << 20;
  ToolRun run;
  if (!RunTool(argv, limits, &run, error, env)) {
    *error = what + " did not start: " + *error +
             (c.install_hint.empty() ? "" : " (" + c.install_hint + ")");
    return false;
  }
  if (!run.ok()) {
    std::string err = run.err;
    while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
    *error = what + " failed (" + run.FailureText(limits) + ")" + (err.empty() ? "" : ": " + err);
    return false;
  }
  if (!ParseExecCredential(run.out, c.api_version, out, error)) {
    *error = what + ": " + *error;
    return false;
  }
  return true;
}

}  // namespace gpulint
