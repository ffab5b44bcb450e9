// The HTTP proxy between the API server client and the API server, chosen as
// kubectl chooses it: a cluster's `proxy-url` in the kubeconfig, else
// HTTPS_PROXY (or https_proxy) unless NO_PROXY (or no_proxy) names the
// server, read with Go's rules (golang.org/x/net/http/httpproxy), which
// client-go uses: the server's address is never proxied when it is localhost
// or a loopback address. The client reaches the server through the proxy with
// CONNECT (https_client.h) and speaks TLS to the server itself, so the proxy
// sees no request and no credential of the server's.
//
// Only http:// proxies are spoken to. An https:// or socks5:// proxy is
// refused with an error that says so, never skipped: a client that went
// around a proxy it was told to use would reach a different network, or
// none.
#ifndef GPULINT_KUBE_PROXY_H_
#define GPULINT_KUBE_PROXY_H_

#include <string>
#include <string_view>

namespace gpulint {

struct ProxyConfig {
  std::string host;  // without brackets
  int port = 0;
  // "Basic <base64>" from the URL's user and password, or "".
  std::string authorization;
  // The URL without its user and password, for messages: http://proxy.corp:3128.
  std::string display;
  bool empty() const { return host.empty(); }
};

// Reads a proxy URL: http://[user[:password]@]host[:port] (port 80 when left
// out); a value without a scheme is taken as http://, as Go takes it. `what`
// names where it came from ("proxy-url of cluster \"prod\"", "HTTPS_PROXY")
// for the error. The error never quotes the user or the password.
bool ParseProxyUrl(std::string_view url, const std::string& what, ProxyConfig* out,
                   std::string* error);

// Whether NO_PROXY's `list` keeps `host`:`port` from the proxy: "*"; an IP
// address or a CIDR range holding the host's address; a domain name that is
// the host or a domain above it ("example.com" holds api.example.com, and
// ".example.com" only names below it); each optionally with ":port".
bool NoProxyMatches(std::string_view list, const std::string& host, int port);

// The proxy environment of a process, as values, so tests can hand in their own.
struct ProxyEnvironment {
  std::string https_proxy;  // HTTPS_PROXY, else https_proxy
  std::string no_proxy;     // NO_PROXY, else no_proxy
};
ProxyEnvironment ProxyEnvironmentOfProcess();

// The proxy for https://host:port from `env`: none when HTTPS_PROXY is unset,
// the host is localhost or a loopback address, or NO_PROXY names it. False
// with *error when HTTPS_PROXY is set and unusable.
bool ProxyFromEnvironment(const ProxyEnvironment& env, const std::string& host, int port,
                          ProxyConfig* out, std::string* error);

// `url` with any user and password replaced by "***", for messages.
std::string RedactUrl(std::string_view url);

}  // namespace gpulint

#endif  // GPULINT_KUBE_PROXY_H_
