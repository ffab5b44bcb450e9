// Which proxy the API server client takes, as kubectl (client-go, Go's
// httpproxy) takes it: proxy URLs, NO_PROXY's entries, loopback never proxied.
#include "kube/proxy.h"

#include <catch2/catch.hpp>
#include <string>

namespace gpulint {
namespace {

TEST_CASE("proxy URLs: http only, credentials kept out of messages", "[kube][proxy]") {
  struct Case {
    std::string url, host;
    int port;
    std::string authorization, display, error;
  } cases[] = {
      {"http://proxy.corp:3128", "proxy.corp", 3128, "", "http://proxy.corp:3128", ""},
      {"proxy.corp:3128", "proxy.corp", 3128, "", "http://proxy.corp:3128", ""},  // as Go: http
      {"http://proxy.corp", "proxy.corp", 80, "", "http://proxy.corp:80", ""},
      {"HTTP://[fd00::1]:8080/", "fd00::1", 8080, "", "http://[fd00::1]:8080", ""},
      // Basic credentials, %-decoded first: "al ice:p@ss"
      {"http://al%20ice:p%40ss@proxy:3128", "proxy", 3128, "Basic YWwgaWNlOnBAc3M=",
       "http://proxy:3128", ""},
      {"https://user:secret@proxy:443", "", 0, "", "",
       "HTTPS_PROXY https://***@proxy:443 is an https:// proxy, which gpulint does not speak: give "
       "an http:// proxy (gpulint tunnels to the API server through it with CONNECT)"},
      {"socks5://proxy:1080", "", 0, "", "",
       "HTTPS_PROXY socks5://proxy:1080 is a socks5:// proxy, which gpulint does not speak: give "
       "an http:// proxy (gpulint tunnels to the API server through it with CONNECT)"},
      {"ftp://proxy", "", 0, "", "", "HTTPS_PROXY ftp://proxy: unknown proxy scheme \"ftp\" (use http://)"},
      {"http://u:secret@proxy:99999", "", 0, "", "", "HTTPS_PROXY http://***@proxy:99999 has a bad port"},
      {"http://u:secret@:3128", "", 0, "", "", "HTTPS_PROXY http://***@:3128 has no host"},
  };
  for (const Case& c : cases) {
    INFO(c.url);
    ProxyConfig proxy;
    std::string error;
    bool ok = ParseProxyUrl(c.url, "HTTPS_PROXY", &proxy, &error);
    CHECK(error == c.error);
    CHECK(error.find("secret") == std::string::npos);
    REQUIRE(ok == c.error.empty());
    if (!ok) continue;
    CHECK(proxy.host == c.host);
    CHECK(proxy.port == c.port);
    CHECK(proxy.authorization == c.authorization);
    CHECK(proxy.display == c.display);
  }
}

TEST_CASE("NO_PROXY: Go's rules", "[kube][proxy]") {
  struct Case {
    std::string list, host;
    int port;
    bool bypass;
  } cases[] = {
      {"", "api.example.com", 443, false},
      {"*", "api.example.com", 443, true},
      {"example.com", "example.com", 443, true},
      {"example.com", "api.example.com", 443, true},  // a domain holds its subdomains
      {"example.com", "notexample.com", 443, false},
      {".example.com", "example.com", 443, false},  // a leading dot: below it only
      {".example.com", "api.example.com", 443, true},
      {"*.example.com", "api.example.com", 443, true},
      {" other.org , EXAMPLE.COM ", "api.example.com", 443, true},  // blanks, case
      {"api.example.com:6443", "api.example.com", 6443, true},
      {"api.example.com:6443", "api.example.com", 443, false},
      {"10.0.0.0/8", "10.96.0.1", 443, true},
      {"10.0.0.0/8", "192.168.1.1", 443, false},
      {"10.96.0.1", "10.96.0.1", 443, true},
      {"10.96.0.1:443", "10.96.0.1", 6443, false},
      {"fd00::/8", "fd00::1", 443, true},
      {"[fd00::1]:443", "fd00::1", 443, true},
      {"example.com", "10.0.0.1", 443, false},  // a name never names an address
      {"10.0.0.0/8", "ten.example", 443, false},
  };
  for (const Case& c : cases) {
    INFO(c.list << " / " << c.host << ":" << c.port);
    CHECK(NoProxyMatches(c.list, c.host, c.port) == c.bypass);
  }
}

TEST_CASE("HTTPS_PROXY: used unless NO_PROXY or loopback says otherwise", "[kube][proxy]") {
  ProxyEnvironment env{"http://proxy.corp:3128", "internal.example"};
  ProxyConfig proxy;
  std::string error;
  REQUIRE(ProxyFromEnvironment(env, "api.example.com", 6443, &proxy, &error));
  CHECK(proxy.display == "http://proxy.corp:3128");
  for (const char* direct : {"k8s.internal.example", "localhost", "127.0.0.1", "127.8.9.10", "::1"}) {
    INFO(direct);
    REQUIRE(ProxyFromEnvironment(env, direct, 6443, &proxy, &error));
    CHECK(proxy.empty());
  }
  REQUIRE(ProxyFromEnvironment(ProxyEnvironment{}, "api.example.com", 6443, &proxy, &error));
  CHECK(proxy.empty());
  CHECK_FALSE(ProxyFromEnvironment({"socks5://p:1080", ""}, "api.example.com", 443, &proxy, &error));
  CHECK(error.rfind("HTTPS_PROXY socks5://p:1080 is a socks5:// proxy", 0) == 0);
}

TEST_CASE("RedactUrl hides a URL's user and password only", "[kube][proxy]") {
  CHECK(RedactUrl("https://admin:s3cret@k.example:6443/base") == "https://***@k.example:6443/base");
  CHECK(RedactUrl("https://k.example:6443/a@b") == "https://k.example:6443/a@b");
  CHECK(RedactUrl("proxy:3128") == "proxy:3128");
}

}  // namespace
}  // namespace gpulint
