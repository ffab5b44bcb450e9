#include "kube/proxy.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

#include "common/base64.h"

namespace gpulint {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

// %XX decoded; false on a malformed escape.
bool PercentDecode(std::string_view in, std::string* out) {
  out->clear();
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      *out += in[i];
      continue;
    }
    if (i + 2 >= in.size() || !std::isxdigit(static_cast<unsigned char>(in[i + 1])) ||
        !std::isxdigit(static_cast<unsigned char>(in[i + 2])))
      return false;
    *out += static_cast<char>(std::strtol(std::string(in.substr(i + 1, 2)).c_str(), nullptr, 16));
    i += 2;
  }
  return true;
}

// An IPv4 or IPv6 address as 16 bytes (IPv4 mapped into IPv6), and whether it is one.
struct Ip {
  unsigned char bytes[16] = {};
  bool v4 = false;
};

bool ParseIp(const std::string& text, Ip* out) {
  unsigned char b[16];
  if (inet_pton(AF_INET, text.c_str(), b) == 1) {
    std::memset(out->bytes, 0, 10);
    out->bytes[10] = out->bytes[11] = 0xff;
    std::memcpy(out->bytes + 12, b, 4);
    out->v4 = true;
    return true;
  }
  if (inet_pton(AF_INET6, text.c_str(), b) == 1) {
    std::memcpy(out->bytes, b, 16);
    out->v4 = false;
    return true;
  }
  return false;
}

bool IsLoopback(const Ip& ip) {
  if (ip.v4) return ip.bytes[12] == 127;
  static const unsigned char kOne[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  return std::memcmp(ip.bytes, kOne, 16) == 0;
}

// "10.0.0.0/8", "fd00::/8": whether `ip` is inside; false when `cidr` is not one.
bool CidrHolds(std::string_view cidr, const Ip& ip, bool* is_cidr) {
  size_t slash = cidr.find('/');
  *is_cidr = false;
  if (slash == std::string_view::npos) return false;
  Ip net;
  std::string bits_text(cidr.substr(slash + 1));
  char* end = nullptr;
  long bits = std::strtol(bits_text.c_str(), &end, 10);
  if (!ParseIp(std::string(cidr.substr(0, slash)), &net) || bits_text.empty() || *end ||
      bits < 0 || bits > (net.v4 ? 32 : 128))
    return false;
  *is_cidr = true;
  if (net.v4 != ip.v4) return false;
  long from = net.v4 ? 96 : 0, total = from + bits;
  for (long i = from; i < total; ++i) {
    int mask = 0x80 >> (i % 8);
    if ((net.bytes[i / 8] & mask) != (ip.bytes[i / 8] & mask)) return false;
  }
  return true;
}

// "host:port", "[v6]:port" -> host and port ("" when none); the entry whole otherwise.
void SplitHostPort(std::string_view entry, std::string* host, std::string* port) {
  *port = "";
  if (!entry.empty() && entry.front() == '[') {
    size_t close = entry.find(']');
    *host = std::string(entry.substr(1, close == std::string_view::npos ? entry.size() : close - 1));
    if (close != std::string_view::npos && close + 1 < entry.size() && entry[close + 1] == ':')
      *port = std::string(entry.substr(close + 2));
    return;
  }
  size_t colon = entry.rfind(':');
  // A bare IPv6 address has more than one colon and no port.
  if (colon == std::string_view::npos || entry.find(':') != colon) {
    *host = std::string(entry);
    return;
  }
  *host = std::string(entry.substr(0, colon));
  *port = std::string(entry.substr(colon + 1));
}

}  // namespace

std::string RedactUrl(std::string_view url) {
  size_t scheme = url.find("://");
  size_t start = scheme == std::string_view::npos ? 0 : scheme + 3;
  size_t end = url.find_first_of("/?#", start);
  std::string_view authority = url.substr(start, end == std::string_view::npos ? end : end - start);
  size_t at = authority.rfind('@');
  if (at == std::string_view::npos) return std::string(url);
  return std::string(url.substr(0, start)) + "***@" + std::string(url.substr(start + at + 1));
}

bool ParseProxyUrl(std::string_view url, const std::string& what, ProxyConfig* out,
                   std::string* error) {
  std::string text(Trim(url));
  size_t scheme_end = text.find("://");
  std::string scheme = scheme_end == std::string::npos ? "http" : Lower(text.substr(0, scheme_end));
  std::string rest = scheme_end == std::string::npos ? text : text.substr(scheme_end + 3);
  std::string shown = scheme + "://" + RedactUrl(rest);
  if (scheme == "https" || scheme == "socks5" || scheme == "socks5h") {
    *error = what + " " + shown + " is a" + (scheme == "https" ? "n https" : " " + scheme) +
             ":// proxy, which gpulint does not speak: give an http:// proxy (gpulint tunnels to "
             "the API server through it with CONNECT)";
    return false;
  }
  if (scheme != "http") {
    *error = what + " " + shown + ": unknown proxy scheme \"" + scheme + "\" (use http://)";
    return false;
  }
  std::string authority = rest.substr(0, rest.find_first_of("/?#"));
  ProxyConfig proxy;
  size_t at = authority.rfind('@');
  if (at != std::string::npos) {
    std::string userinfo = authority.substr(0, at), user, password;
    authority = authority.substr(at + 1);
    size_t colon = userinfo.find(':');
    if (!PercentDecode(userinfo.substr(0, colon), &user) ||
        !PercentDecode(colon == std::string::npos ? "" : userinfo.substr(colon + 1), &password)) {
      *error = what + " " + shown + ": its user or password holds a malformed %-escape";
      return false;
    }
    proxy.authorization = "Basic " + Base64Encode(user + ":" + password);
  }
  std::string port;
  SplitHostPort(authority, &proxy.host, &port);
  proxy.port = 80;
  if (!port.empty()) {
    char* end = nullptr;
    long p = std::strtol(port.c_str(), &end, 10);
    if (*end || p <= 0 || p > 65535) {
      *error = what + " " + shown + " has a bad port";
      return false;
    }
    proxy.port = static_cast<int>(p);
  }
  if (proxy.host.empty()) {
    *error = what + " " + shown + " has no host";
    return false;
  }
  bool v6 = proxy.host.find(':') != std::string::npos;
  proxy.display = "http://" + (v6 ? "[" + proxy.host + "]" : proxy.host) + ":" +
                  std::to_string(proxy.port);
  *out = std::move(proxy);
  return true;
}

bool NoProxyMatches(std::string_view list, const std::string& host_in, int port_number) {
  std::string host = Lower(Trim(host_in));
  std::string port = std::to_string(port_number);
  Ip ip;
  bool is_ip = ParseIp(host, &ip);
  for (size_t start = 0; start <= list.size();) {
    size_t comma = list.find(',', start);
    std::string entry = Lower(Trim(list.substr(start, comma - start)));
    start = comma == std::string_view::npos ? list.size() + 1 : comma + 1;
    if (entry.empty()) continue;
    if (entry == "*") return true;
    bool is_cidr = false;
    if (is_ip && CidrHolds(entry, ip, &is_cidr)) return true;
    if (is_cidr) continue;
    std::string entry_host, entry_port;
    SplitHostPort(entry, &entry_host, &entry_port);
    if (entry_host.empty()) continue;
    bool port_ok = entry_port.empty() || entry_port == port;
    Ip entry_ip;
    if (ParseIp(entry_host, &entry_ip)) {
      if (is_ip && port_ok && std::memcmp(entry_ip.bytes, ip.bytes, 16) == 0) return true;
      continue;
    }
    if (is_ip) continue;  // a domain name never names an address
    if (entry_host.rfind("*.", 0) == 0) entry_host = entry_host.substr(1);
    bool whole = entry_host[0] != '.';
    std::string suffix = whole ? "." + entry_host : entry_host;
    bool below = host.size() > suffix.size() &&
                 host.compare(host.size() - suffix.size(), suffix.size(), suffix) == 0;
    if ((below || (whole && host == entry_host)) && port_ok) return true;
  }
  return false;
}

ProxyEnvironment ProxyEnvironmentOfProcess() {
  auto get = [](const char* upper, const char* lower) {
    const char* v = std::getenv(upper);
    if (!v || !*v) v = std::getenv(lower);
    return std::string(v ? v : "");
  };
  return {get("HTTPS_PROXY", "https_proxy"), get("NO_PROXY", "no_proxy")};
}

bool ProxyFromEnvironment(const ProxyEnvironment& env, const std::string& host, int port,
                          ProxyConfig* out, std::string* error) {
  *out = ProxyConfig{};
  if (Trim(env.https_proxy).empty()) return true;
  Ip ip;
  if (Lower(host) == "localhost" || (ParseIp(host, &ip) && IsLoopback(ip))) return true;
  if (NoProxyMatches(env.no_proxy, host, port)) return true;
  return ParseProxyUrl(env.https_proxy, "HTTPS_PROXY", out, error);
}

}  // namespace gpulint
