#include "engine/cel/cel_value.h"

#include <charconv>
#include <cmath>

namespace gpulint {
namespace {

// A numeric identifier of semver.org: digits, no leading zero but "0".
bool ParseNumber(std::string_view s, uint64_t* out) {
  if (s.empty() || (s.size() > 1 && s[0] == '0')) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

bool IsDigits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

bool IsIdentifier(std::string_view s) {
  return !s.empty() &&
         s.find_first_not_of("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-") ==
             std::string_view::npos;
}

// Splits `s` at `sep`.
std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

template <typename T>
int Order(T a, T b) {
  return a < b ? -1 : (a > b ? 1 : 0);
}

// Numbers of any two kinds by value, as CEL's cross-type numeric comparison.
bool CompareNumbers(const CelValue& a, const CelValue& b, int* order) {
  using T = CelValue::Type;
  auto numeric = [](const CelValue& v) {
    return v.is(T::kInt) || v.is(T::kUint) || v.is(T::kDouble);
  };
  if (!numeric(a) || !numeric(b)) return false;
  if (a.is(T::kDouble) || b.is(T::kDouble)) {
    auto as_double = [](const CelValue& v) {
      return v.is(T::kDouble) ? v.floating()
             : v.is(T::kInt)  ? static_cast<double>(v.integer())
                              : static_cast<double>(v.unsigned_integer());
    };
    double x = as_double(a), y = as_double(b);
    if (std::isnan(x) || std::isnan(y)) return false;
    *order = Order(x, y);
    return true;
  }
  auto wide = [](const CelValue& v) {
    return v.is(T::kInt) ? static_cast<__int128>(v.integer())
                         : static_cast<__int128>(v.unsigned_integer());
  };
  *order = Order(wide(a), wide(b));
  return true;
}

}  // namespace

bool Semver::Parse(std::string_view text, Semver* out) {
  Semver v;
  std::string_view core = text;
  if (size_t plus = core.find('+'); plus != std::string_view::npos) {
    for (std::string_view id : Split(core.substr(plus + 1), '.'))
      if (!IsIdentifier(id)) return false;
    core = core.substr(0, plus);
  }
  if (size_t dash = core.find('-'); dash != std::string_view::npos) {
    for (std::string_view id : Split(core.substr(dash + 1), '.')) {
      if (!IsIdentifier(id) || (IsDigits(id) && id.size() > 1 && id[0] == '0')) return false;
      v.pre.emplace_back(id);
    }
    core = core.substr(0, dash);
  }
  std::vector<std::string_view> numbers = Split(core, '.');
  if (numbers.size() != 3 || !ParseNumber(numbers[0], &v.major) ||
      !ParseNumber(numbers[1], &v.minor) || !ParseNumber(numbers[2], &v.patch))
    return false;
  *out = std::move(v);
  return true;
}

int Semver::Compare(const Semver& o) const {
  if (major != o.major) return Order(major, o.major);
  if (minor != o.minor) return Order(minor, o.minor);
  if (patch != o.patch) return Order(patch, o.patch);
  // A version without a pre-release ranks above one with.
  if (pre.empty() || o.pre.empty()) return pre.empty() == o.pre.empty() ? 0 : (pre.empty() ? 1 : -1);
  for (size_t i = 0; i < pre.size() && i < o.pre.size(); ++i) {
    const std::string& a = pre[i];
    const std::string& b = o.pre[i];
    if (a == b) continue;
    bool na = IsDigits(a), nb = IsDigits(b);
    if (na && nb) {
      // Numeric identifiers have no leading zeros: the longer is the larger.
      return a.size() != b.size() ? Order(a.size(), b.size()) : Order(a, b);
    }
    if (na != nb) return na ? -1 : 1;  // numbers rank below words
    return Order(a, b);
  }
  return Order(pre.size(), o.pre.size());
}

CelValue CelValue::Bool(bool b) {
  CelValue v(Type::kBool);
  v.b_ = b;
  return v;
}
CelValue CelValue::Int(int64_t i) {
  CelValue v(Type::kInt);
  v.i_ = i;
  return v;
}
CelValue CelValue::Uint(uint64_t u) {
  CelValue v(Type::kUint);
  v.u_ = u;
  return v;
}
CelValue CelValue::Double(double d) {
  CelValue v(Type::kDouble);
  v.d_ = d;
  return v;
}
CelValue CelValue::String(std::string s) { return Text(Type::kString, std::move(s)); }
CelValue CelValue::Error(std::string why) { return Text(Type::kError, std::move(why)); }
CelValue CelValue::Unknown(std::string what) { return Text(Type::kUnknown, std::move(what)); }
CelValue CelValue::Text(Type type, std::string text) {
  CelValue v(type);
  v.s_ = std::move(text);
  return v;
}
CelValue CelValue::List(std::vector<CelValue> items) {
  CelValue v(Type::kList);
  v.list_ = std::make_shared<const std::vector<CelValue>>(std::move(items));
  return v;
}
CelValue CelValue::OfQuantity(const Quantity& q) {
  CelValue v(Type::kQuantity);
  v.q_ = q;
  return v;
}
CelValue CelValue::OfSemver(Semver s) {
  CelValue v(Type::kSemver);
  v.semver_ = std::make_shared<const Semver>(std::move(s));
  return v;
}
// The device and its maps: pointers into what the caller keeps.
CelValue CelValue::Device(const CelDevice* d) {
  CelValue v(Type::kDevice);
  v.device_ = d;
  return v;
}
CelValue CelValue::Attributes(const CelAttributes* a) {
  CelValue v(Type::kAttributes);
  v.attributes_ = a;
  return v;
}
CelValue CelValue::AttributeDomain(const CelAttributeMap* m) {
  CelValue v(Type::kAttributeDomain);
  v.attribute_domain_ = m;
  return v;
}
CelValue CelValue::Capacities(const CelCapacities* c) {
  CelValue v(Type::kCapacities);
  v.capacities_ = c;
  return v;
}
CelValue CelValue::CapacityDomain(const CelCapacityMap* m) {
  CelValue v(Type::kCapacityDomain);
  v.capacity_domain_ = m;
  return v;
}

std::string CelValue::TypeName() const {
  switch (type_) {
    case Type::kNull:
      return "null_type";
    case Type::kBool:
      return "bool";
    case Type::kInt:
      return "int";
    case Type::kUint:
      return "uint";
    case Type::kDouble:
      return "double";
    case Type::kString:
      return "string";
    case Type::kList:
      return "list";
    case Type::kQuantity:
      return "Quantity";
    case Type::kSemver:
      return "Semver";
    case Type::kDevice:
      return "kubernetes.DRADevice";
    case Type::kAttributes:
    case Type::kAttributeDomain:
    case Type::kCapacities:
    case Type::kCapacityDomain:
      return "map";
    case Type::kError:
      return "error";
    case Type::kUnknown:
      return "unknown";
  }
  return "unknown";
}

CelValue CelEquals(const CelValue& a, const CelValue& b) {
  using T = CelValue::Type;
  if (a.failed()) return a;
  if (b.failed()) return b;
  int order = 0;
  if (CompareNumbers(a, b, &order)) return CelValue::Bool(order == 0);
  if (a.type() != b.type()) return CelValue::Bool(false);
  switch (a.type()) {
    case T::kNull:
      return CelValue::Bool(true);
    case T::kBool:
      return CelValue::Bool(a.boolean() == b.boolean());
    case T::kString:
      return CelValue::Bool(a.text() == b.text());
    case T::kQuantity:
      return CelValue::Bool(a.quantity() == b.quantity());
    case T::kSemver:
      return CelValue::Bool(a.semver().Compare(b.semver()) == 0);
    case T::kList: {
      if (a.items().size() != b.items().size()) return CelValue::Bool(false);
      CelValue result = CelValue::Bool(true);
      for (size_t i = 0; i < a.items().size(); ++i) {
        CelValue e = CelEquals(a.items()[i], b.items()[i]);
        if (e.is(T::kBool) && !e.boolean()) return e;  // one unequal pair settles it
        if (e.failed()) result = e;
      }
      return result;
    }
    default:
      // The device's maps are compared to nothing in selectors drivers write.
      return CelValue::Unknown("a comparison of maps");
  }
}

bool CelCompare(const CelValue& a, const CelValue& b, int* order, CelValue* failure) {
  using T = CelValue::Type;
  if (a.failed() || b.failed()) {
    *failure = a.failed() ? a : b;
    return false;
  }
  if (CompareNumbers(a, b, order)) return true;
  if (a.type() == b.type() && a.is(T::kString)) {
    *order = Order(a.text(), b.text());
    return true;
  }
  if (a.type() == b.type() && a.is(T::kBool)) {
    *order = Order(a.boolean(), b.boolean());
    return true;
  }
  *failure = CelValue::Error("no such overload: " + a.TypeName() + " < " + b.TypeName());
  return false;
}

}  // namespace gpulint
