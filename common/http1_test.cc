// HTTP/1.1 syntax shared by the server and the client (common/http1.h), on
// plain strings.
#include "common/http1.h"

#include <catch2/catch.hpp>
#include <string>

namespace gpulint {
namespace {

TEST_CASE("header names are found without case, values in the order they came", "[http]") {
  HttpHeaders h;
  h.Add("Content-Type", "application/json");
  h.Add("x-two", "a");
  h.Add("X-Two", "b");
  CHECK(h.Get("content-type") == "application/json");
  CHECK(h.Get("CONTENT-TYPE") == "application/json");
  CHECK(h.Count("X-TWO") == 2);
  CHECK(h.Get("x-two", 0) == "a");
  CHECK(h.Get("x-two", 1) == "b");
  CHECK(h.Get("x-two", 2).empty());
  CHECK_FALSE(h.Has("Content-Typ"));
  CHECK(h.Get("missing").empty());
  // Set replaces every field of that name, whatever its case, and goes last.
  h.Set("X-TWO", "c");
  CHECK(h.Count("x-two") == 1);
  CHECK(h.Get("x-two") == "c");
  REQUIRE(h.size() == 2);
  CHECK(h.begin()->first == "Content-Type");
  CHECK((h.begin() + 1)->first == "X-TWO");
}

TEST_CASE("field lines are read to the empty line that ends them", "[http]") {
  std::string head = "HTTP/1.1 200 OK\r\nA: 1\r\nb:\t two \r\n\r\nbody";
  size_t pos = head.find('\n') + 1;
  HttpHeaders h;
  std::string why;
  REQUIRE(ParseFieldLines(head, &pos, &h, &why));
  CHECK(h.size() == 2);
  CHECK(h.Get("a") == "1");
  CHECK(h.Get("B") == "two");
  CHECK(head.substr(pos) == "body");
}

size_t HeadEnd(std::string_view text) {
  size_t scanned = 0;
  return FindHeadEnd(text, &scanned);
}

TEST_CASE("the head ends at the first empty line, CRLF or bare LF", "[http]") {
  CHECK(HeadEnd("GET / HTTP/1.1\r\nHost: x\r\n\r\nbody") == 27);
  CHECK(HeadEnd("GET / HTTP/1.1\nHost: x\n\nbody") == 24);
  CHECK(HeadEnd("GET / HTTP/1.1\r\nHost: x\n\r\n") == 26);
  CHECK(HeadEnd("GET / HTTP/1.1\r\nHost: x\r\n") == 0);
  CHECK(HeadEnd("GET / HTTP/1.1\r\nHost: x\r\n\r") == 0);
  // Blank lines before the request line (left over after a body) are skipped.
  CHECK(HeadEnd("\r\n\r\n") == 0);
  CHECK(HeadEnd("\r\nGET / HTTP/1.1\r\n\r\n") == 20);
}

TEST_CASE("a head arriving a byte at a time is found where it ends", "[http]") {
  std::string text = "POST /validate HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}";
  size_t scanned = 0;
  size_t found = 0;
  for (size_t n = 1; n <= text.size() && !found; ++n) {
    found = FindHeadEnd(std::string_view(text).substr(0, n), &scanned);
    if (!found) CHECK(scanned <= n);
  }
  CHECK(found == text.size() - 2);
}

TEST_CASE("Content-Length is digits only", "[http]") {
  uint64_t n = 7;
  CHECK(ParseContentLength("0", &n));
  CHECK(n == 0);
  CHECK(ParseContentLength("6400", &n));
  CHECK(n == 6400);
  CHECK(ParseContentLength("9999999999999999999", &n));
  CHECK(n == 9999999999999999999u);
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "0x10", "1e3", "99999999999999999999"})
    CHECK_FALSE(ParseContentLength(bad, &n));
}

TEST_CASE("a token is found in a comma-separated list, without case", "[http]") {
  CHECK(HasToken("close", "close"));
  CHECK(HasToken("Keep-Alive, Close", "close"));
  CHECK(HasToken("gzip ,\tchunked", "chunked"));
  CHECK_FALSE(HasToken("", "close"));
  CHECK_FALSE(HasToken("closed", "close"));
  CHECK_FALSE(HasToken("not-chunked", "chunked"));
  CHECK_FALSE(HasToken("keep-alive,", "close"));
}

}  // namespace
}  // namespace gpulint
