// libFuzzer target: HandleReview (request bytes in, response out) on every
// endpoint (/validate, /mutate, /admit), with the built-in policy.
//
// Properties, beyond "no crash, no sanitizer report":
//  - every body gets HTTP 200 or a 4xx, never a 500 (an exception inside);
//  - a 4xx is plain text with a reason;
//  - a 200 is a well-formed AdmissionReview in the request's apiVersion with
//    the request's uid; a denial has a 400/403 code and a message; warnings are
//    capped; /validate never patches, /mutate never denies, and a denial
//    carries no patch;
//  - a patch is base64 of a JSONPatch array that applies to request.object;
//  - the fast JSON parser (RapidJSON) accepts nothing that nlohmann's refuses,
//    and builds the same tree: ParseJson trusts its yes and asks nlohmann on a no.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "engine/engine.h"
#include "engine/json/json_parser.h"
#include "engine/json/json_tree_builder.h"
#include "engine/policy/policy.h"
#include "engine/yaml/loader.h"
#include "webhook/server/admission.h"

namespace {

using json = nlohmann::json;

[[noreturn]] void Fail(std::string_view what, const std::string& detail) {
  std::fprintf(stderr, "admission_fuzzer: %.*s\n  %s\n", static_cast<int>(what.size()),
               what.data(), detail.c_str());
  std::abort();
}

const gpulint::Snapshot& TheSnapshot() {
  static const gpulint::Snapshot snapshot = [] {
    gpulint::Snapshot s;
    const gpulint::Policy& policy = gpulint::DefaultPolicy();
    s.policy = std::shared_ptr<const gpulint::Policy>(&policy, [](const gpulint::Policy*) {});
    s.inventory = std::make_shared<const gpulint::Inventory>(gpulint::BuildInventory(policy, {}));
    return s;
  }();
  return snapshot;
}

bool Base64Decode(std::string_view in, std::string* out) {
  if (in.size() % 4 != 0) return false;
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
  };
  for (size_t i = 0; i < in.size(); i += 4) {
    int pad = (in[i + 3] == '=') + (in[i + 2] == '=');
    if (pad && i + 4 != in.size()) return false;
    uint32_t n = 0;
    for (size_t k = 0; k < 4; ++k) {
      int v = k >= 4 - static_cast<size_t>(pad) ? 0 : value(in[i + k]);
      if (v < 0) return false;
      n = (n << 6) | static_cast<uint32_t>(v);
    }
    *out += static_cast<char>(n >> 16);
    if (pad < 2) *out += static_cast<char>((n >> 8) & 0xFF);
    if (pad < 1) *out += static_cast<char>(n & 0xFF);
  }
  return true;
}

void CheckPatch(const json& response, const gpulint::Value& request, const std::string& body) {
  if (response.at("patchType") != "JSONPatch") Fail("patch without patchType JSONPatch", body);
  std::string text;
  if (!response.at("patch").is_string() ||
      !Base64Decode(response.at("patch").get<std::string>(), &text))
    Fail("patch is not base64", body);
  json ops = json::parse(text, nullptr, false);
  if (!ops.is_array() || ops.empty()) Fail("patch is not a non-empty JSON array", text);
  // The API server applies the patch to the object it sent; if that fails,
  // the request fails. nlohmann's patch() is an independent RFC 6902.
  const gpulint::Value* object = request.Find("request")->Find("object");
  json target = json::parse(gpulint::ToJson(*object), nullptr, false);
  if (target.is_discarded()) Fail("request.object does not survive ToJson", body);
  try {
    (void)target.patch(ops);
  } catch (const std::exception& e) {
    Fail("the patch does not apply to request.object", text + "\n  " + e.what());
  }
}

void CheckReview(gpulint::Endpoint endpoint, std::string_view input,
                 const gpulint::ReviewResult& r) {
  const char* name = gpulint::EndpointName(endpoint);
  if (r.http_status >= 400 && r.http_status < 500) {
    if (r.body.empty() || r.content_type.rfind("text/plain", 0) != 0)
      Fail("a 4xx without a plain-text reason", r.content_type + " " + r.body);
    return;
  }
  if (r.http_status != 200)
    Fail("HTTP status neither 200 nor 4xx", std::to_string(r.http_status) + " " + r.body);
  // The handler answered, so its own parser took the body.
  gpulint::Value request;
  gpulint::Error error;
  if (!gpulint::ParseJson(input, gpulint::kMaxReviewDepth, &request, &error))
    Fail("answered a body ParseJson refuses", error.ToString());
  json review = json::parse(r.body, nullptr, false);
  if (!review.is_object() || !review.contains("response") || !review["response"].is_object())
    Fail("the response is no AdmissionReview", r.body);
  const json& resp = review["response"];
  if (review.value("apiVersion", "") != request.StringAt("apiVersion") ||
      review.value("kind", "") != "AdmissionReview")
    Fail("the response's apiVersion or kind is wrong", r.body);
  if (!resp.contains("uid") || resp["uid"] != std::string(request.Find("request")->StringAt("uid")))
    Fail("the response does not carry the request's uid", r.body);
  if (!resp.contains("allowed") || !resp["allowed"].is_boolean()) Fail("no allowed", r.body);
  bool allowed = resp["allowed"].get<bool>();
  if (!allowed) {
    if (endpoint == gpulint::Endpoint::kMutate) Fail("/mutate denied", r.body);
    const json& status = resp.at("status");
    int code = status.value("code", 0);
    if ((code != 400 && code != 403) || status.value("message", "").empty())
      Fail("a denial without a 400/403 code and a message", r.body);
  }
  if (resp.contains("warnings")) {
    const json& w = resp["warnings"];
    if (!w.is_array() || w.size() > gpulint::kMaxWarnings) Fail("too many warnings", r.body);
    for (const json& one : w)
      if (!one.is_string() || one.get<std::string>().size() > gpulint::kMaxWarningBytes)
        Fail("a warning that is too long", r.body);
  }
  if (resp.contains("patch")) {
    if (endpoint == gpulint::Endpoint::kValidate) Fail("/validate sent a patch", r.body);
    if (!allowed) Fail("a denial with a patch", r.body);
    CheckPatch(resp, request, std::string(name) + ": " + r.body);
  }
}

}  // namespace

// A tree with every scalar's type spelled out (ToJson writes 1 the same for an
// int and a float).
std::string Typed(const gpulint::Value& v) {
  std::string out = gpulint::TypeName(v.type());
  if (v.is_sequence()) {
    out += "[";
    for (const gpulint::Value& item : v.items()) out += Typed(item) + ",";
    return out + "]";
  }
  if (v.is_mapping()) {
    out += "{";
    for (const gpulint::Value::Member& m : v.members()) {
      gpulint::AppendJsonString(m.first, &out);
      out += ":" + Typed(m.second) + ",";
    }
    return out + "}";
  }
  return out + "(" + v.text() + ")";
}

void CheckJsonParsers(std::string_view body) {
  gpulint::Value fast;
  if (!gpulint::ParseJsonFast(body, 64, &fast)) return;
  gpulint::Value reference;
  gpulint::Error error;
  if (!gpulint::ParseJsonNlohmann(body, 64, &reference, &error))
    Fail("the fast JSON parser accepts what nlohmann refuses", error.ToString());
  if (Typed(fast) != Typed(reference))
    Fail("the JSON parsers build different trees", Typed(fast) + "\n  " + Typed(reference));
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body(reinterpret_cast<const char*>(data), size);
  CheckJsonParsers(body);
  for (gpulint::Endpoint endpoint : gpulint::kEndpoints) {
    gpulint::ReviewResult r = gpulint::HandleReview(endpoint, body, TheSnapshot());
    try {
      CheckReview(endpoint, body, r);
    } catch (const json::exception& e) {
      Fail("a response field has the wrong type", std::string(e.what()) + "\n  " + r.body);
    }
  }
  return 0;
}
