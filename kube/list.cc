#include "kube/list.h"

#include <utility>

#include "engine/json/json_parser.h"

namespace gpulint {
namespace {

// Objects from the API server nest about 15 deep (a CRD's schema more).
constexpr size_t kMaxJsonDepth = 128;

// The Status object of a refusal: its reason, message and, on a 410 of an
// expired continue token, the token to go on with.
struct Status {
  std::string reason, message, next;
};

Status ReadStatus(const std::string& body) {
  Status s;
  Value root;
  Error error;
  if (!ParseJson(body, kMaxJsonDepth, &root, &error) || root.StringAt("kind") != "Status") {
    s.message = body.substr(0, 512);
    return s;
  }
  s.reason = std::string(root.StringAt("reason"));
  s.message = std::string(root.StringAt("message"));
  if (const Value* meta = root.Find("metadata")) s.next = std::string(meta->StringAt("continue"));
  return s;
}

std::string PagePath(const KubeEndpoint& endpoint, const std::string& path,
                     const ListOptions& options, const std::string& next) {
  std::string out = endpoint.base_path + path + "?limit=" + std::to_string(options.page_size);
  if (!options.field_selector.empty()) out += "&fieldSelector=" + UrlEscape(options.field_selector);
  if (!options.label_selector.empty()) out += "&labelSelector=" + UrlEscape(options.label_selector);
  if (!next.empty()) out += "&continue=" + UrlEscape(next);
  return out;
}

}  // namespace

bool ReadListPage(std::string_view text, const JsonItemSink& item, ListPage* page,
                  std::string* error) {
  Value root;
  Error parse_error;
  size_t count = 0;
  bool parsed = ParseJsonList(text, kMaxJsonDepth, &root, &parse_error, [&](Value& v) {
    ++count;
    item(v);
  });
  page->items = count;
  if (!parsed) {
    *error = "the list is not JSON: " + parse_error.ToString();
    return false;
  }
  const Value* list = root.Find("items");
  if (!root.is_mapping() || !list || !list->is_sequence()) {
    *error = "the answer is not a list (no items)";
    return false;
  }
  const Value* meta = root.Find("metadata");
  page->next = meta ? std::string(meta->StringAt("continue")) : std::string();
  page->resource_version = meta ? std::string(meta->StringAt("resourceVersion")) : std::string();
  return true;
}

ListResult ListPaged(const KubeEndpoint& endpoint, const std::string& path,
                     const ListOptions& options, const JsonItemSink& item) {
  ListResult result;
  std::unique_ptr<HttpsClient> client;
  // The client is let go of before it is destroyed, whatever the return.
  struct Untrack {
    const ListOptions& options;
    ~Untrack() {
      if (options.on_client) options.on_client(nullptr);
    }
  } untrack{options};
  std::string next;
  bool asked_again = false;
  while (true) {
    if (!client) {
      client = MakeKubeClient(endpoint, &result.message);
      if (!client) return result;
      client->set_read_timeout(options.read_timeout_seconds);
    }
    if (options.on_client && !options.on_client(client.get())) {
      result.message = "stopped";
      return result;
    }
    std::string body;
    bool too_big = false;
    HttpResult res =
        client->Get(PagePath(endpoint, path, options, next), [&](const char* data, size_t n) {
          too_big = body.size() + n > options.max_page_bytes;
          if (!too_big) body.append(data, n);
          return !too_big;
        });
    if (too_big) {
      size_t max = options.max_page_bytes;
      result.message =
          "a page of " + path + " is larger than " +
          (max >= (1u << 20) ? std::to_string(max >> 20) + " MiB" : std::to_string(max) + " bytes");
      return result;
    }
    if (!res.error.empty()) {
      result.message = res.error;
      return result;
    }
    if (res.status == 401 && endpoint.exec && !asked_again) {
      // The plugin's token was revoked or expired early: ask it once more.
      endpoint.exec->Invalidate();
      asked_again = true;
      if (options.on_client) options.on_client(nullptr);
      client.reset();
      continue;
    }
    if (res.status != 200) {
      Status status = ReadStatus(client->Scrub(body));
      if (res.status == 410 && !next.empty() && !status.next.empty()) {
        next = std::move(status.next);
        result.resumed = true;
        continue;
      }
      result.status = res.status;
      result.reason = std::move(status.reason);
      result.message = std::move(status.message);
      return result;
    }
    ListPage page;
    bool read = ReadListPage(body, item, &page, &result.message);
    result.items += page.items;
    if (!read) return result;
    ++result.pages;
    result.resource_version = page.resource_version;
    next = page.next;
    if (next.empty()) break;
  }
  result.ok = true;
  result.status = 200;
  return result;
}

}  // namespace gpulint
