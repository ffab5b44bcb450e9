#include "kube/discovery.h"

#include <algorithm>

#include "engine/base/value.h"
#include "engine/json/json_parser.h"

namespace gpulint {
namespace {

constexpr size_t kMaxDocumentBytes = 16u << 20;
constexpr size_t kMaxJsonDepth = 64;

// GET `path` as JSON; false with *error saying why not.
bool GetDocument(HttpsClient& client, const KubeEndpoint& endpoint, const std::string& path,
                 Value* out, std::string* error) {
  KubeResponse res = Get(client, endpoint.base_path + path, kMaxDocumentBytes);
  if (res.status != 200) {
    *error = "GET " + path + ": " +
             (res.status ? "HTTP " + std::to_string(res.status) + ": " + res.body.substr(0, 200)
                         : res.error);
    return false;
  }
  Error parse_error;
  if (!ParseJson(res.body, kMaxJsonDepth, out, &parse_error)) {
    *error = "GET " + path + ": not JSON: " + parse_error.ToString();
    return false;
  }
  return true;
}

// The resources of an APIResourceList (subresources such as pods/status left out).
void AddResources(const Value& list, const std::string& group, const std::string& version,
                  std::vector<ApiResource>* out) {
  const Value* resources = list.Find("resources");
  if (!resources || !resources->is_sequence()) return;
  for (const Value& r : resources->items()) {
    std::string name(r.StringAt("name"));
    if (name.empty() || name.find('/') != std::string::npos) continue;
    const Value* namespaced = r.Find("namespaced");
    out->push_back({group, version, name, std::string(r.StringAt("kind")),
                    namespaced && namespaced->text() == "true"});
  }
}

}  // namespace

std::string ApiResource::Path(const std::string& ns) const {
  std::string scope = ns.empty() || !namespaced ? "" : "namespaces/" + ns + "/";
  return (group.empty() ? "/api/" : "/apis/" + group + "/") + version + "/" + scope + resource;
}

const ApiResource* Discovery::Find(const std::string& group, const std::string& kind) const {
  for (const ApiResource& r : resources)
    if (r.kind == kind && (group == "*" || r.group == group)) return &r;
  return nullptr;
}

bool Discover(const KubeEndpoint& endpoint, const std::vector<std::string>& groups, Discovery* out,
              std::string* error) {
  auto client = MakeKubeClient(endpoint, error);
  if (!client) return false;
  client->set_read_timeout(30);
  Value core;
  if (!GetDocument(*client, endpoint, "/api/v1", &core, error)) return false;
  AddResources(core, "", "v1", &out->resources);
  Value list;
  std::string problem;
  if (!GetDocument(*client, endpoint, "/apis", &list, &problem)) {
    out->problems.push_back(problem);
    return true;
  }
  bool all = std::find(groups.begin(), groups.end(), "*") != groups.end();
  const Value* served = list.Find("groups");
  if (!served || !served->is_sequence()) return true;
  for (const Value& g : served->items()) {
    std::string name(g.StringAt("name"));
    if (!all && std::find(groups.begin(), groups.end(), name) == groups.end()) continue;
    const Value* preferred = g.Find("preferredVersion");
    std::string group_version = preferred ? std::string(preferred->StringAt("groupVersion")) : "";
    std::string version = preferred ? std::string(preferred->StringAt("version")) : "";
    if (group_version.empty() || version.empty()) continue;
    Value doc;
    if (!GetDocument(*client, endpoint, "/apis/" + group_version, &doc, &problem)) {
      out->problems.push_back(problem);
      continue;
    }
    AddResources(doc, name, version, &out->resources);
  }
  return true;
}

}  // namespace gpulint
