// The values of the CEL that gpulint evaluates (engine/cel/cel.h): what a DRA
// device selector can meet. Kubernetes' DRA environment gives a selector one
// variable, `device`, whose attributes are bools, ints, strings and semantic
// versions and whose capacities are quantities; literals add uints, doubles,
// lists and null. Two more kinds say that no value came: kError, where CEL
// itself fails ("no such key: uuid"), and kUnknown, where gpulint does not
// evaluate what CEL would (a function it does not know). Either makes a
// selector's answer "cannot tell", never a match or a miss.
#ifndef GPULINT_ENGINE_CEL_CEL_VALUE_H_
#define GPULINT_ENGINE_CEL_CEL_VALUE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/quantity/quantity.h"

namespace gpulint {

// A semantic version (semver.org 2.0), as Kubernetes' CEL semver() and a
// device's version attributes read it: MAJOR.MINOR.PATCH, an optional
// pre-release after "-" and build metadata after "+" (which no comparison
// reads). Numbers have no leading zeros.
struct Semver {
  uint64_t major = 0, minor = 0, patch = 0;
  std::vector<std::string> pre;  // pre-release identifiers
  static bool Parse(std::string_view text, Semver* out);
  // -1, 0 or 1, by semver.org's precedence.
  int Compare(const Semver& o) const;
};

class CelValue;
struct CelDevice;  // cel.h
// A device's attributes or capacities, by domain ("gpu.nvidia.com") and then
// by name ("productName"), as the DRA environment hands them to CEL: an
// attribute published without a domain is under its driver's.
using CelAttributeMap = std::map<std::string, CelValue, std::less<>>;
using CelAttributes = std::map<std::string, CelAttributeMap, std::less<>>;
using CelCapacityMap = std::map<std::string, Quantity, std::less<>>;
using CelCapacities = std::map<std::string, CelCapacityMap, std::less<>>;

class CelValue {
 public:
  enum class Type {
    kNull,
    kBool,
    kInt,
    kUint,
    kDouble,
    kString,
    kList,
    kQuantity,
    kSemver,
    kDevice,  // the variable `device`
    // `device.attributes`, `device.capacity` and one domain of either: maps
    // that stay the device's, read where an expression reads them.
    kAttributes,
    kAttributeDomain,
    kCapacities,
    kCapacityDomain,
    kError,    // CEL fails here; text() says why
    kUnknown,  // gpulint does not evaluate this; text() says what
  };

  CelValue() = default;
  static CelValue Bool(bool b);
  static CelValue Int(int64_t i);
  static CelValue Uint(uint64_t u);
  static CelValue Double(double d);
  static CelValue String(std::string s);
  static CelValue List(std::vector<CelValue> items);
  static CelValue OfQuantity(const Quantity& q);
  static CelValue OfSemver(Semver v);
  static CelValue Device(const CelDevice* d);
  static CelValue Attributes(const CelAttributes* a);
  static CelValue AttributeDomain(const CelAttributeMap* m);
  static CelValue Capacities(const CelCapacities* c);
  static CelValue CapacityDomain(const CelCapacityMap* m);
  static CelValue Error(std::string why);
  static CelValue Unknown(std::string what);

  Type type() const { return type_; }
  bool is(Type t) const { return type_ == t; }
  // An error or an unknown: no value came.
  bool failed() const { return type_ == Type::kError || type_ == Type::kUnknown; }

  bool boolean() const { return b_; }
  int64_t integer() const { return i_; }
  uint64_t unsigned_integer() const { return u_; }
  double floating() const { return d_; }
  const std::string& text() const { return s_; }  // a string, or why a value failed
  const std::vector<CelValue>& items() const { return *list_; }
  const Quantity& quantity() const { return q_; }
  const Semver& semver() const { return *semver_; }
  const CelDevice* device() const { return device_; }
  const CelAttributes* attributes() const { return attributes_; }
  const CelAttributeMap* attribute_domain() const { return attribute_domain_; }
  const CelCapacities* capacities() const { return capacities_; }
  const CelCapacityMap* capacity_domain() const { return capacity_domain_; }

  // CEL's type name, for messages: "int", "string", "Quantity", "map"...
  std::string TypeName() const;

 private:
  explicit CelValue(Type type) : type_(type) {}
  static CelValue Text(Type type, std::string text);

  Type type_ = Type::kNull;
  bool b_ = false;
  int64_t i_ = 0;
  uint64_t u_ = 0;
  double d_ = 0;
  std::string s_;
  std::shared_ptr<const std::vector<CelValue>> list_;
  Quantity q_;
  std::shared_ptr<const Semver> semver_;
  const CelDevice* device_ = nullptr;
  const CelAttributes* attributes_ = nullptr;
  const CelAttributeMap* attribute_domain_ = nullptr;
  const CelCapacities* capacities_ = nullptr;
  const CelCapacityMap* capacity_domain_ = nullptr;
};

// CEL's equality (heterogeneous: numbers of any kind compare by value,
// values of unlike types are unequal). An error or unknown operand gives
// itself back; else a kBool.
CelValue CelEquals(const CelValue& a, const CelValue& b);
// CEL's ordering of two values: -1, 0 or 1 in *order, for numbers (across
// kinds), strings, bools; false with *failure set for anything else (lists,
// quantities, which order only through their methods).
bool CelCompare(const CelValue& a, const CelValue& b, int* order, CelValue* failure);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_CEL_CEL_VALUE_H_
