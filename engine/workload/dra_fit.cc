#include "engine/workload/dra_fit.h"

#include <algorithm>
#include <set>

namespace gpulint {
namespace {

// A shared device's request policy rounds an amount up to one it hands out;
// nullopt when none is large enough.
std::optional<Quantity> RoundUp(const Quantity& asked, const CapacityPolicy& p) {
  if (!p.valid_values.empty()) {
    for (const Quantity& v : p.valid_values)
      if (v >= asked) return v;
    return std::nullopt;
  }
  if (!p.min) return asked;
  Quantity q = asked < *p.min ? *p.min : asked;
  if (p.step && p.step->sign() > 0) {
    int128 over = (q - *p.min).nano();
    int128 step = p.step->nano();
    int128 steps = (over + step - 1) / step;
    q = Quantity::FromNano(p.min->nano() + steps * step, p.min->format());
  }
  if (p.max && q > *p.max) return std::nullopt;
  return q;
}

CelVerdict Verdict(CelVerdict::Answer answer, std::string why = {}) {
  CelVerdict v;
  v.answer = answer;
  v.why = std::move(why);
  return v;
}

std::string DeviceName(const PublishedDevice& d) {
  return "device \"" + d.info->name + "\" of " + DevicePlace(d);
}

// How many of `devices` qualify for `demand`, surely and maybe.
struct Tally {
  std::vector<const PublishedDevice*> yes, maybe;
  bool shared = false;  // a qualifying device may be allocated more than once
  std::string why;      // the first maybe's
};

Tally Count(const DeviceDemand& demand, const std::vector<const PublishedDevice*>& devices) {
  Tally t;
  for (const PublishedDevice* d : devices) {
    CelVerdict v = Qualifies(*d, demand);
    if (v.no()) continue;
    if (d->info->shared) {
      t.shared = true;
      if (t.why.empty())
        t.why = DeviceName(*d) + " is shared (allowMultipleAllocations): gpulint does not count "
                "how many claims it can serve";
    }
    if (v.yes()) {
      t.yes.push_back(d);
    } else {
      t.maybe.push_back(d);
      if (t.why.empty() || t.why.find("is shared") != std::string::npos)
        t.why = DeviceName(*d) + ": " + v.why;
    }
  }
  return t;
}

std::string Devices(size_t n) { return std::to_string(n) + (n == 1 ? " device" : " devices"); }

}  // namespace

CelVerdict Qualifies(const PublishedDevice& d, const DeviceDemand& demand) {
  using A = CelVerdict::Answer;
  if (demand.class_index < 0 || static_cast<size_t>(demand.class_index) >= d.classes.size())
    return Verdict(A::kCannotTell, "DeviceClass " + demand.device_class + " is not in the inventory");
  const CelVerdict& by_class = d.classes[static_cast<size_t>(demand.class_index)];
  if (by_class.no()) return by_class;
  CelVerdict result = by_class;
  for (const auto& [name, asked] : demand.capacity) {
    std::string qualified = QualifiedName(name, d.driver);
    size_t slash = qualified.find('/');
    auto domain = d.info->capacity.find(std::string_view(qualified).substr(0, slash));
    if (domain == d.info->capacity.end()) return Verdict(A::kNo);
    auto have = domain->second.find(std::string_view(qualified).substr(slash + 1));
    if (have == domain->second.end()) return Verdict(A::kNo);
    std::optional<Quantity> needed = asked;
    auto policy = d.info->policies.find(qualified);
    if (d.info->shared && policy != d.info->policies.end()) needed = RoundUp(asked, policy->second);
    if (!needed || *needed > have->second) return Verdict(A::kNo);
  }
  CelDevice device = d.Cel();
  for (const CelSelector& s : demand.selectors) {
    CelVerdict v = s.Matches(device);
    if (v.no()) return v;
    if (v.cannot_tell() && !result.cannot_tell())
      result = Verdict(A::kCannotTell, "selector \"" + s.expression() + "\" of " + demand.what +
                                           ": " + v.why);
  }
  if (d.info->tainted && !result.cannot_tell())
    result = Verdict(A::kCannotTell, "it has a NoSchedule taint, which a claim may tolerate");
  return result;
}

bool LeftToDra(std::string_view resource, const NodeClass& shape, const Inventory& inventory) {
  if (!inventory.dra) return false;
  if (!IsExtendedResource(resource) && !resource.starts_with(kDeviceClassResourcePrefix))
    return false;
  // A device plugin serves it only where it lists some: kube-scheduler 1.36
  // leaves a resource listed as 0 to DRA too (a kubelet keeps the resource of
  // a device plugin that went away in allocatable, at 0, as when a node moves
  // from NVIDIA's device plugin to its DRA driver).
  auto listed = shape.allocatable.find(std::string(resource));
  if (listed != shape.allocatable.end() && listed->second.sign() > 0) return false;
  return inventory.dra->ClassForResource(resource) >= 0;
}

std::vector<DeviceDemand> DeviceDemandsOf(const PodInfo& pod, const NodeClass& shape,
                                          const Inventory& inventory) {
  std::vector<DeviceDemand> demands;
  if (!inventory.dra) return demands;
  const DraInventory& dra = *inventory.dra;
  for (const PodInfo::Claim& claim : pod.claims) {
    for (const DeviceRequest& r : claim.requests) {
      if (!r.count || !r.other_classes.empty()) continue;
      DeviceDemand d;
      d.what = "claim \"" + claim.name + "\" (request \"" + r.name + "\")";
      d.device_class = r.device_class;
      d.class_index = dra.ClassIndex(r.device_class);
      d.count = *r.count;
      bool readable = true;
      for (const auto& [name, text] : r.capacity) {
        Quantity q;
        readable = readable && Quantity::Parse(text, &q, nullptr);
        d.capacity.emplace_back(name, q);
      }
      if (!readable) continue;  // the API server refuses such a claim
      for (const std::string& s : r.selectors) d.selectors.emplace_back(s);
      demands.push_back(std::move(d));
    }
  }
  for (const std::string& resource : pod.ResourceNames()) {
    if (!LeftToDra(resource, shape, inventory)) continue;
    Quantity asked = pod.FitRequest(resource);
    if (asked.sign() <= 0) continue;
    DeviceDemand d;
    d.what = resource;
    d.class_index = dra.ClassForResource(resource);
    d.device_class = dra.classes()[static_cast<size_t>(d.class_index)].name;
    d.count = asked.Value();
    demands.push_back(std::move(d));
  }
  return demands;
}

DeviceFit FitDevices(const std::vector<DeviceDemand>& demands, const NodeDevices* node) {
  static const std::vector<const PublishedDevice*> kNone;
  const std::vector<const PublishedDevice*>& devices = node ? node->devices : kNone;
  DeviceFit fit;
  std::set<const PublishedDevice*> sure, possible;
  int64_t total = 0;
  bool shared = false;
  std::string why;
  for (const DeviceDemand& d : demands) {
    Tally t = Count(d, devices);
    size_t have = t.yes.size();
    size_t could = have + t.maybe.size();
    if (static_cast<int64_t>(could) < d.count && !t.shared) {
      fit.answer = DeviceFit::Answer::kNo;
      fit.why = d.what + " " + std::to_string(d.count) + " > " + Devices(could) +
                " of DeviceClass " + d.device_class;
      if (!d.capacity.empty() || !d.selectors.empty()) fit.why += " that qualify";
      return fit;
    }
    if (static_cast<int64_t>(have) < d.count && why.empty()) why = t.why;
    sure.insert(t.yes.begin(), t.yes.end());
    possible.insert(t.yes.begin(), t.yes.end());
    possible.insert(t.maybe.begin(), t.maybe.end());
    total += d.count;
    shared = shared || t.shared;
  }
  // Together: a device (unless shared) serves one of them.
  if (demands.size() > 1 && !shared && static_cast<int64_t>(possible.size()) < total) {
    fit.answer = DeviceFit::Answer::kNo;
    fit.why = "together they ask " + Devices(static_cast<size_t>(total)) + " > " +
              Devices(possible.size()) + " that qualify";
    return fit;
  }
  if (!why.empty() || (demands.size() > 1 && static_cast<int64_t>(sure.size()) < total)) {
    fit.answer = DeviceFit::Answer::kCannotTell;
    fit.why = why.empty() ? "devices that may qualify for more than one request" : why;
  }
  return fit;
}

std::string DevicePlace(const PublishedDevice& d) {
  const DeviceNodes& where = d.info->nodes;
  if (!where.node_name.empty()) return "node \"" + where.node_name + "\"";
  return "pool \"" + d.pool + "\"";
}

RequestOnDevices JudgeRequestOnDevices(const DeviceRequest& request, const Inventory& inventory) {
  using A = RequestOnDevices::Answer;
  RequestOnDevices out;
  if (!inventory.dra) return out;
  const DraInventory& dra = *inventory.dra;
  DeviceDemand demand;
  demand.what = "request \"" + request.name + "\"";
  demand.device_class = request.device_class;
  demand.class_index = dra.ClassIndex(request.device_class);
  if (demand.class_index < 0) return out;
  for (const auto& [name, text] : request.capacity) {
    Quantity q;
    if (!Quantity::Parse(text, &q, nullptr)) return out;  // the API server refuses it
    demand.capacity.emplace_back(name, q);
  }
  for (const std::string& s : request.selectors) demand.selectors.emplace_back(s);
  std::vector<const PublishedDevice*> selected;  // by the class, surely
  for (const PublishedDevice* device : dra.devices()) {
    const PublishedDevice& d = *device;
    const CelVerdict& by_class = d.classes[static_cast<size_t>(demand.class_index)];
    if (by_class.no()) continue;
    if (by_class.yes()) selected.push_back(&d);
    CelVerdict v = Qualifies(d, demand);
    if (v.yes()) {
      out.answer = A::kFits;
      return out;
    }
    if (v.cannot_tell() && out.answer != A::kCannotTell) {
      out.answer = A::kCannotTell;
      out.why = DeviceName(d) + ": " + v.why;
    }
  }
  if (out.answer == A::kCannotTell || selected.empty()) return out;
  out.answer = A::kNo;
  for (const auto& [name, asked] : demand.capacity) {
    const PublishedDevice* largest = nullptr;
    Quantity most;
    for (const PublishedDevice* d : selected) {
      std::string qualified = QualifiedName(name, d->driver);
      size_t slash = qualified.find('/');
      auto domain = d->info->capacity.find(std::string_view(qualified).substr(0, slash));
      if (domain == d->info->capacity.end()) continue;
      auto have = domain->second.find(std::string_view(qualified).substr(slash + 1));
      if (have == domain->second.end() || (largest && have->second <= most)) continue;
      largest = d;
      most = have->second;
    }
    if (largest && most >= asked) continue;  // some device has enough of this one
    out.capacity = name;
    out.asked = asked;
    out.most = most;
    out.largest = largest;
    break;
  }
  return out;
}

DeviceFit FitDevicesOnGroup(const std::vector<DeviceDemand>& demands, const NodeGroup& group) {
  bool own = std::any_of(demands.begin(), demands.end(),
                         [](const DeviceDemand& d) { return !d.selectors.empty(); });
  if (!own || group.members.size() <= 1) return FitDevices(demands, group.shape.devices.get());
  // Selectors may read what tells alike nodes apart (a device's uuid). Every
  // member answers; one that is no candidate of the pod may answer for the
  // group, which can only admit.
  DeviceFit result;
  bool first = true;
  for (const auto& m : group.members) {
    DeviceFit f = FitDevices(demands, m->devices.get());
    if (f.answer == DeviceFit::Answer::kFits) return f;
    if (first || (f.answer == DeviceFit::Answer::kCannotTell &&
                  result.answer == DeviceFit::Answer::kNo))
      result = std::move(f);
    first = false;
  }
  return result;
}

}  // namespace gpulint
