#include "engine/workload/dra.h"

#include <algorithm>

#include "engine/base/objects.h"

namespace gpulint {
namespace {

// allocationMode, count and capacity of a request (v1 `exactly`, a
// firstAvailable alternative, or a v1beta1 request itself).
DeviceRequest ReadExact(const Value& v, std::string name) {
  DeviceRequest r;
  r.name = std::move(name);
  r.device_class = std::string(v.StringAt("deviceClassName"));
  if (v.StringAt("allocationMode") == "All") {
    r.count.reset();
  } else if (const Value* count = v.Find("count"); count && count->is_scalar()) {
    char* end = nullptr;
    std::string text(count->text());
    long long n = std::strtoll(text.c_str(), &end, 10);
    if (end && *end == '\0' && !text.empty() && n > 0) r.count = n;
  }
  if (const Value* selectors = v.Find("selectors"); selectors && selectors->is_sequence())
    for (const Value& s : selectors->items()) {
      const Value* cel = s.Find("cel");
      const Value* expression = cel ? cel->Find("expression") : nullptr;
      if (expression && expression->is_string()) r.selectors.push_back(expression->text());
    }
  const Value* capacity = v.Find("capacity");
  const Value* requests = capacity ? capacity->Find("requests") : nullptr;
  if (requests && requests->is_mapping())
    for (const auto& [resource, quantity] : requests->members())
      if (quantity.is_scalar()) r.capacity.emplace_back(resource, quantity.text());
  return r;
}

std::string_view ClaimKind(const Value& object) {
  if (!object.is_mapping() || ApiGroupOf(object.StringAt("apiVersion")) != "resource.k8s.io")
    return {};
  std::string_view kind = object.StringAt("kind");
  return kind == "ResourceClaim" || kind == "ResourceClaimTemplate" ? kind : std::string_view();
}

}  // namespace

bool IsGpuRequest(const DeviceRequest& request, const std::vector<std::string>& gpu_classes) {
  auto gpu = [&](std::string_view c) {
    return std::find(gpu_classes.begin(), gpu_classes.end(), c) != gpu_classes.end();
  };
  return gpu(request.device_class) ||
         std::any_of(request.other_classes.begin(), request.other_classes.end(), gpu);
}

std::vector<DeviceRequestAt> ClaimRequests(const Value& object, bool* is_claim) {
  std::vector<DeviceRequestAt> out;
  std::string_view kind = ClaimKind(object);
  if (is_claim) *is_claim = !kind.empty();
  const Value* spec = kind.empty() ? nullptr : object.Find("spec");
  std::string path = "spec";
  if (spec && kind == "ResourceClaimTemplate") spec = spec->Find("spec"), path = "spec.spec";
  const Value* devices = spec ? spec->Find("devices") : nullptr;
  const Value* requests = devices ? devices->Find("requests") : nullptr;
  if (!requests || !requests->is_sequence()) return out;
  path += ".devices.requests";
  for (size_t i = 0; i < requests->items().size(); ++i) {
    const Value& item = requests->items()[i];
    if (!item.is_mapping()) continue;
    std::string name(item.StringAt("name"));
    std::string at = path + "[" + std::to_string(i) + "]";
    if (const Value* exactly = item.Find("exactly"); exactly && exactly->is_mapping()) {
      out.push_back({ReadExact(*exactly, name), exactly, at + ".exactly"});
    } else if (const Value* first = item.Find("firstAvailable"); first && first->is_sequence()) {
      DeviceRequestAt r;
      for (size_t j = 0; j < first->items().size(); ++j) {
        const Value& alt = first->items()[j];
        if (!alt.is_mapping()) continue;
        if (r.request.device_class.empty())
          r = {ReadExact(alt, name), &alt, at + ".firstAvailable[" + std::to_string(j) + "]"};
        else
          r.request.other_classes.emplace_back(alt.StringAt("deviceClassName"));
      }
      if (!r.request.device_class.empty()) out.push_back(std::move(r));
    } else {
      out.push_back({ReadExact(item, name), &item, at});  // v1beta1
    }
  }
  return out;
}

bool DeviceClaims::Add(const Value& object) {
  bool is_claim = false;
  std::vector<DeviceRequestAt> found = ClaimRequests(object, &is_claim);
  if (!is_claim) return false;
  std::vector<DeviceRequest> requests;
  for (DeviceRequestAt& r : found) requests.push_back(std::move(r.request));
  ObjectRef ref = RefOf(object);
  Key key{ref.namespace_name, ref.name};
  (object.StringAt("kind") == "ResourceClaim" ? claims_ : templates_)[key] = std::move(requests);
  return true;
}

const std::vector<DeviceRequest>* DeviceClaims::Template(std::string_view ns,
                                                         std::string_view name) const {
  auto it = templates_.find(Key{ns, name});
  return it == templates_.end() ? nullptr : &it->second;
}

const std::vector<DeviceRequest>* DeviceClaims::Claim(std::string_view ns,
                                                      std::string_view name) const {
  auto it = claims_.find(Key{ns, name});
  return it == claims_.end() ? nullptr : &it->second;
}

}  // namespace gpulint
