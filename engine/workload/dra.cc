#include "engine/workload/dra.h"

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
  const Value* capacity = v.Find("capacity");
  const Value* requests = capacity ? capacity->Find("requests") : nullptr;
  if (requests && requests->is_mapping())
    for (const auto& [resource, quantity] : requests->members())
      if (quantity.is_scalar()) r.capacity.emplace_back(resource, quantity.text());
  return r;
}

std::vector<DeviceRequest> ReadRequests(const Value* devices) {
  std::vector<DeviceRequest> out;
  const Value* requests = devices ? devices->Find("requests") : nullptr;
  if (!requests || !requests->is_sequence()) return out;
  for (const Value& item : requests->items()) {
    if (!item.is_mapping()) continue;
    std::string name(item.StringAt("name"));
    if (const Value* exactly = item.Find("exactly"); exactly && exactly->is_mapping()) {
      out.push_back(ReadExact(*exactly, name));
    } else if (const Value* first = item.Find("firstAvailable"); first && first->is_sequence()) {
      DeviceRequest r;
      for (const Value& alt : first->items()) {
        if (!alt.is_mapping()) continue;
        if (r.device_class.empty())
          r = ReadExact(alt, name);
        else
          r.other_classes.emplace_back(alt.StringAt("deviceClassName"));
      }
      if (!r.device_class.empty()) out.push_back(std::move(r));
    } else {
      out.push_back(ReadExact(item, name));  // v1beta1
    }
  }
  return out;
}

}  // namespace

bool DeviceClaims::Add(const Value& object) {
  if (!object.is_mapping() || ApiGroupOf(object.StringAt("apiVersion")) != "resource.k8s.io")
    return false;
  std::string_view kind = object.StringAt("kind");
  const Value* spec = object.Find("spec");
  if (!spec || !spec->is_mapping()) return false;
  ObjectRef ref = RefOf(object);
  Key key{ref.namespace_name, ref.name};
  if (kind == "ResourceClaimTemplate") {
    const Value* claim_spec = spec->Find("spec");
    templates_[key] = ReadRequests(claim_spec ? claim_spec->Find("devices") : nullptr);
    return true;
  }
  if (kind == "ResourceClaim") {
    claims_[key] = ReadRequests(spec->Find("devices"));
    return true;
  }
  return false;
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
