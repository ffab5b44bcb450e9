// libFuzzer target: the webhook server's HTTP/1.1 framing (http_message.h and
// common/http1.h), which sees every byte a client sends before any check of ours.
//
// Properties, beyond "no crash, no sanitizer report":
//  - FindHeadEnd over the bytes arriving in two parts finds the same end as
//    over all of them at once (its resumed scan misses nothing);
//  - a head that parses has a token method, an HTTP/1.0 or 1.1 version, a
//    target within the limit, and header values without CR, NUL or
//    surrounding blanks; one that does not parse says why, with 400, 414 or 505;
//  - the response written for it has a single end of head, before the body.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "webhook/net/http_message.h"

namespace {

[[noreturn]] void Fail(const char* what, std::string_view input) {
  std::fprintf(stderr, "http_fuzzer: %s\n  input: \"%.*s\"\n", what,
               static_cast<int>(std::min<size_t>(input.size(), 400)), input.data());
  std::abort();
}

void CheckHead(std::string_view head, std::string_view input) {
  gpulint::HttpRequest req;
  std::string why;
  int status = gpulint::ParseHead(head, &req, &why);
  if (status != 0) {
    if (status != 400 && status != 414 && status != 505) Fail("unexpected status", input);
    if (why.empty()) Fail("a refusal without a reason", input);
    return;
  }
  if (req.method.empty() || req.method.find_first_of(" \r\n:") != std::string::npos)
    Fail("method is not a token", input);
  if (req.version != "HTTP/1.1" && req.version != "HTTP/1.0") Fail("bad version accepted", input);
  if (req.target.empty() || req.target.size() > gpulint::kMaxRequestTarget)
    Fail("target out of bounds", input);
  for (const auto& [name, value] : req.headers) {
    if (name.empty() || name.find_first_of(" \t\r\n:") != std::string::npos)
      Fail("header name is not a token", input);
    if (value.find_first_of(std::string_view("\r\0", 2)) != std::string::npos)
      Fail("header value has CR or NUL", input);
    if (!value.empty() && (value.front() == ' ' || value.front() == '\t' ||
                           value.back() == ' ' || value.back() == '\t'))
      Fail("header value not trimmed", input);
  }
  gpulint::HttpResponse res;
  res.SetContent("body\r\n\r\n", "text/plain");
  std::string out;
  gpulint::WriteResponse(req, res, gpulint::KeepAlive{false, 30, 1000}, &out);
  size_t end = out.find("\r\n\r\n");
  size_t body = req.method == "HEAD" ? 0 : res.body.size();
  if (end == std::string::npos || end + 4 + body != out.size()) Fail("response framing", input);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  size_t scanned = 0;
  size_t whole = gpulint::FindHeadEnd(input, &scanned);
  // The same bytes in two parts, split where the input's first byte says.
  size_t split = size ? data[0] % (size + 1) : 0;
  scanned = 0;
  size_t parts = gpulint::FindHeadEnd(input.substr(0, split), &scanned);
  if (!parts) parts = gpulint::FindHeadEnd(input, &scanned);
  if (parts != whole) Fail("FindHeadEnd differs when resumed", input);
  if (whole) CheckHead(input.substr(0, whole), input);
  return 0;
}
