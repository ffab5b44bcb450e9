// Reading DeviceClasses and ResourceSlices. Fields gpulint does not use
// (configs, counters, binding conditions, fields of later versions) are left
// alone; what it uses must have the type the API gives it.
#include "engine/cluster/dra_objects.h"

#include <algorithm>

#include "engine/base/decoder.h"
#include "engine/base/objects.h"
#include "engine/base/path.h"

namespace gpulint {
namespace {

std::string SourceOf(const std::string& file, const Mark& mark) {
  if (mark.line == 0) return file;
  return file + ":" + std::to_string(mark.line) + ":" + std::to_string(mark.column);
}

bool ReadName(StrictDecoder& d, const Value& object, std::string_view kind, std::string* out) {
  const Value* metadata = object.Find("metadata");
  const Value* name = metadata ? metadata->Find("name") : nullptr;
  if (!name)
    return d.Fail(metadata ? *metadata : object, "metadata.name",
                  "a " + std::string(kind) + " needs a name");
  return d.ReadNonEmptyString(*name, "metadata.name", out);
}

// The domain and the name of a qualified name; a name without a domain is
// under `driver`'s.
std::pair<std::string, std::string> SplitName(std::string_view name, std::string_view driver) {
  size_t slash = name.find('/');
  if (slash == std::string_view::npos) return {std::string(driver), std::string(name)};
  return {std::string(name.substr(0, slash)), std::string(name.substr(slash + 1))};
}

// One attribute: exactly one of bool, int, string, version.
bool ReadAttribute(StrictDecoder& d, const Value& v, const std::string& path, CelValue* out,
                   std::string* problem) {
  if (!d.ExpectMapping(v, path)) return false;
  for (const auto& [kind, value] : v.members()) {
    std::string at = AppendKey(path, kind);
    if (kind == "bool") {
      bool b = false;
      if (!d.ReadBool(value, at, &b)) return false;
      *out = CelValue::Bool(b);
    } else if (kind == "int") {
      int64_t i = 0;
      if (!d.ReadInt(value, at, INT64_MIN, INT64_MAX, &i)) return false;
      *out = CelValue::Int(i);
    } else if (kind == "string" || kind == "version") {
      std::string s;
      if (!d.ReadString(value, at, &s)) return false;
      Semver version;
      if (kind == "string") {
        *out = CelValue::String(std::move(s));
      } else if (Semver::Parse(s, &version)) {
        *out = CelValue::OfSemver(std::move(version));
      } else {
        // The scheduler cannot evaluate any selector on such a device.
        *problem = "attribute " + path + ": \"" + s + "\" is no semantic version";
        *out = CelValue::Error(*problem);
      }
    } else {
      continue;  // a kind of a later version
    }
    return true;
  }
  return d.Fail(v, path, "expected one of bool, int, string or version");
}

bool ReadPolicy(StrictDecoder& d, const Value& v, const std::string& path, CapacityPolicy* out) {
  if (!d.ExpectMapping(v, path)) return false;
  auto quantity = [&](const Value* at, std::string_view field, std::optional<Quantity>* q) {
    if (!at) return true;
    q->emplace();
    return d.ReadQuantity(*at, AppendKey(path, field), &**q);
  };
  const Value* range = v.Find("validRange");
  std::string range_path = AppendKey(path, "validRange");
  if (!quantity(v.Find("default"), "default", &out->default_request)) return false;
  if (range) {
    if (!d.ExpectMapping(*range, range_path)) return false;
    auto in_range = [&](std::string_view field, std::optional<Quantity>* q) {
      const Value* at = range->Find(field);
      if (!at) return true;
      q->emplace();
      return d.ReadQuantity(*at, AppendKey(range_path, field), &**q);
    };
    if (!in_range("min", &out->min) || !in_range("max", &out->max) ||
        !in_range("step", &out->step))
      return false;
  }
  if (const Value* values = v.Find("validValues")) {
    std::string at = AppendKey(path, "validValues");
    if (!d.ExpectSequence(*values, at)) return false;
    for (size_t i = 0; i < values->items().size(); ++i) {
      Quantity q;
      if (!d.ReadQuantity(values->items()[i], at + "[" + std::to_string(i) + "]", &q)) return false;
      out->valid_values.push_back(q);
    }
    std::sort(out->valid_values.begin(), out->valid_values.end());
  }
  return true;
}

bool ReadNodes(StrictDecoder& d, const Value& v, const std::string& path, DeviceNodes* out) {
  if (const Value* name = v.Find("nodeName"))
    if (!name->is_null() && !d.ReadString(*name, AppendKey(path, "nodeName"), &out->node_name))
      return false;
  if (const Value* all = v.Find("allNodes"))
    if (!all->is_null() && !d.ReadBool(*all, AppendKey(path, "allNodes"), &out->all_nodes))
      return false;
  if (const Value* selector = v.Find("nodeSelector"); selector && !selector->is_null()) {
    if (!d.ExpectMapping(*selector, AppendKey(path, "nodeSelector"))) return false;
    out->node_selector = std::make_shared<const Value>(*selector);
  }
  return true;
}

bool ReadDevice(StrictDecoder& d, const Value& v, const std::string& path,
                const std::string& driver, DeviceInfo* out) {
  if (!d.ExpectMapping(v, path)) return false;
  const Value* name = v.Find("name");
  if (!name) return d.Fail(v, path + ".name", "a device needs a name");
  if (!d.ReadNonEmptyString(*name, path + ".name", &out->name)) return false;
  // v1beta1 nests what v1 and v1beta2 write in the device itself.
  const Value* basic = v.Find("basic");
  const Value& body = basic && basic->is_mapping() ? *basic : v;
  std::string body_path = basic && basic->is_mapping() ? path + ".basic" : path;
  if (const Value* attributes = body.Find("attributes")) {
    std::string at = body_path + ".attributes";
    if (!d.ExpectMapping(*attributes, at)) return false;
    for (const auto& [key, attr] : attributes->members()) {
      auto [domain, id] = SplitName(key, driver);
      if (!ReadAttribute(d, attr, AppendKey(at, key), &out->attributes[domain][id], &out->problem))
        return false;
    }
  }
  if (const Value* capacity = body.Find("capacity")) {
    std::string at = body_path + ".capacity";
    if (!d.ExpectMapping(*capacity, at)) return false;
    for (const auto& [key, cap] : capacity->members()) {
      std::string cap_path = AppendKey(at, key);
      auto [domain, id] = SplitName(key, driver);
      // v1alpha3 wrote the quantity itself; later versions a {value} mapping.
      const Value* value = cap.is_mapping() ? cap.Find("value") : &cap;
      if (!value) return d.Fail(cap, cap_path + ".value", "a capacity needs a value");
      if (!d.ReadQuantity(*value, cap.is_mapping() ? cap_path + ".value" : cap_path,
                          &out->capacity[domain][id]))
        return false;
      if (const Value* policy = cap.is_mapping() ? cap.Find("requestPolicy") : nullptr) {
        if (!ReadPolicy(d, *policy, cap_path + ".requestPolicy",
                        &out->policies[domain + "/" + id]))
          return false;
      }
    }
  }
  if (const Value* shared = body.Find("allowMultipleAllocations"))
    if (!shared->is_null() &&
        !d.ReadBool(*shared, body_path + ".allowMultipleAllocations", &out->shared))
      return false;
  if (const Value* taints = body.Find("taints"); taints && taints->is_sequence())
    for (const Value& t : taints->items()) {
      std::string_view effect = t.StringAt("effect");
      out->tainted = out->tainted || effect == "NoSchedule" || effect == "NoExecute";
    }
  return ReadNodes(d, body, body_path, &out->nodes);
}

}  // namespace

std::string QualifiedName(std::string_view name, std::string_view driver) {
  auto [domain, id] = SplitName(name, driver);
  return domain + "/" + id;
}

std::string_view DraKindOf(const Value& object) {
  if (!object.is_mapping() || ApiGroupOf(object.StringAt("apiVersion")) != "resource.k8s.io")
    return {};
  std::string_view kind = object.StringAt("kind");
  return kind == "DeviceClass" || kind == "ResourceSlice" ? kind : std::string_view();
}

bool ReadDeviceClass(const Value& object, const std::string& file, DeviceClassInfo* out,
                     Error* error) {
  StrictDecoder d(file, error);
  DeviceClassInfo c;
  if (!ReadName(d, object, "DeviceClass", &c.name)) return false;
  c.source = SourceOf(file, object.mark());
  if (const Value* metadata = object.Find("metadata"))
    c.created = std::string(metadata->StringAt("creationTimestamp"));
  const Value* spec = object.Find("spec");
  if (spec && !d.ExpectMapping(*spec, "spec")) return false;
  if (const Value* selectors = spec ? spec->Find("selectors") : nullptr) {
    if (!d.ExpectSequence(*selectors, "spec.selectors")) return false;
    for (size_t i = 0; i < selectors->items().size(); ++i) {
      const Value& s = selectors->items()[i];
      std::string at = "spec.selectors[" + std::to_string(i) + "]";
      const Value* cel = s.Find("cel");
      const Value* expression = cel ? cel->Find("expression") : nullptr;
      std::string text;
      if (!expression) return d.Fail(s, at + ".cel.expression", "a selector needs an expression");
      if (!d.ReadString(*expression, at + ".cel.expression", &text)) return false;
      c.selectors.emplace_back(std::move(text));
    }
  }
  if (const Value* name = spec ? spec->Find("extendedResourceName") : nullptr)
    if (!name->is_null() &&
        !d.ReadString(*name, "spec.extendedResourceName", &c.extended_resource_name))
      return false;
  *out = std::move(c);
  return true;
}

bool ReadResourceSlice(const Value& object, const std::string& file, ResourceSliceInfo* out,
                       Error* error) {
  StrictDecoder d(file, error);
  ResourceSliceInfo s;
  if (!ReadName(d, object, "ResourceSlice", &s.name)) return false;
  s.source = SourceOf(file, object.mark());
  const Value* spec = object.Find("spec");
  if (!spec) return d.Fail(object, "spec", "a ResourceSlice needs a spec");
  if (!d.ExpectMapping(*spec, "spec")) return false;
  const Value* driver = spec->Find("driver");
  if (!driver) return d.Fail(*spec, "spec.driver", "a ResourceSlice needs a driver");
  if (!d.ReadNonEmptyString(*driver, "spec.driver", &s.driver)) return false;
  if (const Value* pool = spec->Find("pool")) {
    if (!d.ExpectMapping(*pool, "spec.pool")) return false;
    if (const Value* name = pool->Find("name"); name && !d.ReadString(*name, "spec.pool.name", &s.pool))
      return false;
    if (const Value* g = pool->Find("generation");
        g && !d.ReadInt(*g, "spec.pool.generation", 0, INT64_MAX, &s.generation))
      return false;
    if (const Value* n = pool->Find("resourceSliceCount");
        n && !d.ReadInt(*n, "spec.pool.resourceSliceCount", 1, INT64_MAX, &s.slice_count))
      return false;
  }
  if (!ReadNodes(d, *spec, "spec", &s.nodes)) return false;
  if (const Value* per = spec->Find("perDeviceNodeSelection"))
    if (!per->is_null() && !d.ReadBool(*per, "spec.perDeviceNodeSelection", &s.per_device_nodes))
      return false;
  if (const Value* devices = spec->Find("devices")) {
    if (!d.ExpectSequence(*devices, "spec.devices")) return false;
    for (size_t i = 0; i < devices->items().size(); ++i) {
      DeviceInfo device;
      if (!ReadDevice(d, devices->items()[i], "spec.devices[" + std::to_string(i) + "]", s.driver,
                      &device))
        return false;
      if (!s.per_device_nodes) device.nodes = s.nodes;
      s.devices.push_back(std::move(device));
    }
  }
  *out = std::move(s);
  return true;
}

bool ReadDraObject(const Value& object, const std::string& file, DraObjects* out, Error* error) {
  std::string_view kind = DraKindOf(object);
  if (kind == "DeviceClass") {
    DeviceClassInfo c;
    if (!ReadDeviceClass(object, file, &c, error)) return false;
    out->classes.push_back(std::move(c));
    return true;
  }
  ResourceSliceInfo s;
  if (!ReadResourceSlice(object, file, &s, error)) return false;
  out->slices.push_back(std::make_shared<const ResourceSliceInfo>(std::move(s)));
  return true;
}

}  // namespace gpulint
