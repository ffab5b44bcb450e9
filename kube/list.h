// Listing a resource of the API server page by page (limit and continue), as
// kubectl does, handing each item on as it is read: 150,000 pods never sit in
// memory together, only one page's text and one item's tree.
#ifndef GPULINT_KUBE_LIST_H_
#define GPULINT_KUBE_LIST_H_

#include <cstddef>
#include <functional>
#include <string>

#include "engine/base/value.h"
#include "engine/json/json_parser.h"
#include "kube/kube_client.h"

namespace gpulint {

struct ListOptions {
  int page_size = 500;         // limit=; kubectl's default
  std::string field_selector;  // fieldSelector=, as written
  std::string label_selector;  // labelSelector=, as written
  int read_timeout_seconds = 60;
  size_t max_page_bytes = 256u << 20;
  // Told of the client before each request, and given null once the list is
  // done: a loop that must cut a request short holds it (LoopControl::Track).
  // False: the list stops there.
  std::function<bool(HttpsClient* client)> on_client;
};

// What a list came to. A refusal (`status` 403, 404...) or a failure of the
// transport ends it; items handed on before stay handed on.
struct ListResult {
  bool ok = false;
  int status = 0;       // the HTTP status that ended it; 0: none came
  std::string reason;   // the Status object's reason ("Forbidden"), if one came
  std::string message;  // the Status object's message, else what went wrong
  size_t items = 0;
  size_t pages = 0;
  std::string resource_version;  // the last page's metadata.resourceVersion, to watch from
  // The continue token expired between two pages (HTTP 410), and the list
  // went on with the token the server gave in its answer: the pages after it
  // are of a newer state of the cluster (objects made or removed meanwhile
  // may be missed, none is seen twice).
  bool resumed = false;
};

// GETs `path` (".../pods", without query) page by page and calls `item` for
// each item, in order (items of a list carry no kind: see JsonItemSink). An exec credential the
// server refuses (401) is asked for again once.
ListResult ListPaged(const KubeEndpoint& endpoint, const std::string& path,
                     const ListOptions& options, const JsonItemSink& item);

// One page of a list (its JSON text): its metadata, and its items, each
// handed to `item` as it is read.
struct ListPage {
  std::string next;              // metadata.continue; "" on the last page
  std::string resource_version;  // metadata.resourceVersion
  size_t items = 0;
};
// False with *error when the text is not a list. The pager's parsing, apart
// for tests.
bool ReadListPage(std::string_view text, const JsonItemSink& item, ListPage* page,
                  std::string* error);

}  // namespace gpulint

#endif  // GPULINT_KUBE_LIST_H_
