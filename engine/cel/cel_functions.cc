// The functions of CEL that device selectors call: CEL's own (size,
// contains, startsWith, endsWith, matches, conversions), the strings
// extension's case changes, and Kubernetes' quantity and semver libraries.
// A function not here is not evaluated: its value is "unknown", named.
#include <re2/re2.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "engine/cel/cel_ast.h"

namespace gpulint {
namespace {

using T = CelValue::Type;

CelValue NoOverload(const CelNode& call, const std::vector<CelValue>& args) {
  std::string types;
  for (const CelValue& a : args) types += (types.empty() ? "" : ", ") + a.TypeName();
  return CelValue::Error("no such overload: " + call.name + "(" + types + ")");
}

size_t CodePoints(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

CelValue ToInt(const CelValue& v) {
  switch (v.type()) {
    case T::kInt:
      return v;
    case T::kUint:
      if (v.unsigned_integer() > static_cast<uint64_t>(INT64_MAX))
        return CelValue::Error("range error converting to int");
      return CelValue::Int(static_cast<int64_t>(v.unsigned_integer()));
    case T::kDouble:
      if (!std::isfinite(v.floating()) || v.floating() <= -9.2233720368547758e18 ||
          v.floating() >= 9.2233720368547758e18)
        return CelValue::Error("range error converting to int");
      return CelValue::Int(static_cast<int64_t>(v.floating()));
    case T::kString: {
      const std::string& s = v.text();
      char* end = nullptr;
      errno = 0;
      long long n = std::strtoll(s.c_str(), &end, 10);
      if (s.empty() || *end != '\0' || errno == ERANGE) return CelValue::Error("cannot convert to int");
      return CelValue::Int(n);
    }
    default:
      return CelValue::Error("no such overload: int(" + v.TypeName() + ")");
  }
}

CelValue ToString(const CelValue& v) {
  switch (v.type()) {
    case T::kString:
      return v;
    case T::kInt:
      return CelValue::String(std::to_string(v.integer()));
    case T::kUint:
      return CelValue::String(std::to_string(v.unsigned_integer()));
    case T::kBool:
      return CelValue::String(v.boolean() ? "true" : "false");
    default:
      // Doubles print as Go prints them, which is not worth copying here.
      return CelValue::Unknown("string(" + v.TypeName() + ")");
  }
}

// `this` (a Quantity) with an integer or another quantity.
bool OtherQuantity(const CelValue& v, Quantity* out) {
  if (v.is(T::kQuantity)) {
    *out = v.quantity();
    return true;
  }
  if (v.is(T::kInt)) {
    *out = Quantity::FromInt(v.integer());
    return true;
  }
  return false;
}

int Sign(int128 v) { return v < 0 ? -1 : (v > 0 ? 1 : 0); }

// Kubernetes' Quantity library (k8s.io/apiserver/pkg/cel/library/quantity.go).
CelValue QuantityMethod(const CelNode& call, const std::vector<CelValue>& args) {
  const Quantity& q = args[0].quantity();
  const std::string& f = call.name;
  if (args.size() == 1) {
    if (f == "sign") return CelValue::Int(q.sign());
    // asInteger and isInteger: the value is whole and fits an int64.
    bool integer = q.is_whole() && q.nano() / 1000000000 >= INT64_MIN &&
                   q.nano() / 1000000000 <= INT64_MAX;
    if (f == "isInteger") return CelValue::Bool(integer);
    if (f == "asInteger")
      return integer ? CelValue::Int(static_cast<int64_t>(q.nano() / 1000000000))
                     : CelValue::Error("cannot convert value to integer");
    if (f == "asApproximateFloat") return CelValue::Double(static_cast<double>(q.nano()) / 1e9);
  } else if (args.size() == 2) {
    Quantity other;
    if (!OtherQuantity(args[1], &other)) return NoOverload(call, args);
    int order = Sign(q.nano() - other.nano());
    if (f == "compareTo" && args[1].is(T::kQuantity)) return CelValue::Int(order);
    if (f == "isGreaterThan" && args[1].is(T::kQuantity)) return CelValue::Bool(order > 0);
    if (f == "isLessThan" && args[1].is(T::kQuantity)) return CelValue::Bool(order < 0);
    if (f == "add") return CelValue::OfQuantity(q + other);
    if (f == "sub") return CelValue::OfQuantity(q - other);
  }
  return CelValue::Unknown("the Quantity method " + f + "() (not evaluated by gpulint)");
}

// Kubernetes' Semver library (k8s.io/apiserver/pkg/cel/library/semverlib.go).
CelValue SemverMethod(const CelNode& call, const std::vector<CelValue>& args) {
  const Semver& v = args[0].semver();
  const std::string& f = call.name;
  auto number = [](uint64_t n) {
    return n > static_cast<uint64_t>(INT64_MAX) ? CelValue::Error("range error")
                                                : CelValue::Int(static_cast<int64_t>(n));
  };
  if (args.size() == 1) {
    if (f == "major") return number(v.major);
    if (f == "minor") return number(v.minor);
    if (f == "patch") return number(v.patch);
  } else if (args.size() == 2 && args[1].is(T::kSemver)) {
    int order = v.Compare(args[1].semver());
    if (f == "compareTo") return CelValue::Int(order);
    if (f == "isGreaterThan") return CelValue::Bool(order > 0);
    if (f == "isLessThan") return CelValue::Bool(order < 0);
  }
  return CelValue::Unknown("the Semver method " + f + "() (not evaluated by gpulint)");
}

CelValue StringMethod(const CelNode& call, const std::vector<CelValue>& args) {
  const std::string& s = args[0].text();
  const std::string& f = call.name;
  if (args.size() == 1) {
    if (f == "size") return CelValue::Int(static_cast<int64_t>(CodePoints(s)));
    if (f == "lowerAscii" || f == "upperAscii") {
      std::string out = s;
      for (char& c : out)
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))
          c = static_cast<char>(f == "lowerAscii" ? (c | 0x20) : (c & ~0x20));
      return CelValue::String(std::move(out));
    }
  } else if (args.size() == 2 && args[1].is(T::kString)) {
    const std::string& a = args[1].text();
    if (f == "contains") return CelValue::Bool(s.find(a) != std::string::npos);
    if (f == "startsWith") return CelValue::Bool(s.compare(0, a.size(), a) == 0);
    if (f == "endsWith")
      return CelValue::Bool(s.size() >= a.size() && s.compare(s.size() - a.size(), a.size(), a) == 0);
    if (f == "matches") {
      // RE2, and true when the pattern matches anywhere in the string.
      std::shared_ptr<const re2::RE2> pattern = call.pattern;
      if (!pattern) pattern = std::make_shared<const re2::RE2>(a, re2::RE2::Quiet);
      if (!pattern->ok()) return CelValue::Error("invalid regex: " + pattern->error());
      return CelValue::Bool(re2::RE2::PartialMatch(s, *pattern));
    }
  }
  return CelValue::Unknown("the string function " + f + "() (not evaluated by gpulint)");
}

// Calls without a target: size(x), the conversions, quantity() and semver().
CelValue Global(const CelNode& call, const std::vector<CelValue>& args) {
  const std::string& f = call.name;
  if (args.size() == 1) {
    const CelValue& a = args[0];
    if (f == "size") {
      if (a.is(T::kString)) return CelValue::Int(static_cast<int64_t>(CodePoints(a.text())));
      if (a.is(T::kList)) return CelValue::Int(static_cast<int64_t>(a.items().size()));
      if (a.is(T::kAttributeDomain))
        return CelValue::Int(static_cast<int64_t>(a.attribute_domain()->size()));
      if (a.is(T::kCapacityDomain))
        return CelValue::Int(static_cast<int64_t>(a.capacity_domain()->size()));
      return NoOverload(call, args);
    }
    if (f == "int") return ToInt(a);
    if (f == "string") return ToString(a);
    if (f == "double") {
      if (a.is(T::kDouble)) return a;
      if (a.is(T::kInt)) return CelValue::Double(static_cast<double>(a.integer()));
      if (a.is(T::kUint)) return CelValue::Double(static_cast<double>(a.unsigned_integer()));
      return CelValue::Unknown("double(" + a.TypeName() + ")");
    }
    if (f == "uint") {
      if (a.is(T::kUint)) return a;
      if (a.is(T::kInt))
        return a.integer() < 0 ? CelValue::Error("range error converting to uint")
                               : CelValue::Uint(static_cast<uint64_t>(a.integer()));
      return CelValue::Unknown("uint(" + a.TypeName() + ")");
    }
    if (a.is(T::kString) && (f == "quantity" || f == "isQuantity")) {
      Quantity q;
      bool ok = Quantity::Parse(a.text(), &q, nullptr);
      if (f == "isQuantity") return CelValue::Bool(ok);
      return ok ? CelValue::OfQuantity(q) : CelValue::Error("quantities must match the regular expression");
    }
    if (a.is(T::kString) && (f == "semver" || f == "isSemver")) {
      Semver v;
      bool ok = Semver::Parse(a.text(), &v);
      if (f == "isSemver") return CelValue::Bool(ok);
      return ok ? CelValue::OfSemver(std::move(v)) : CelValue::Error("invalid semver: " + a.text());
    }
  }
  return CelValue::Unknown("the function " + f + "() (not evaluated by gpulint)");
}

}  // namespace

CelValue CallCel(const CelNode& call, const std::vector<CelValue>& args) {
  if (!call.has_target) return Global(call, args);
  switch (args[0].type()) {
    case T::kString:
      return StringMethod(call, args);
    case T::kQuantity:
      return QuantityMethod(call, args);
    case T::kSemver:
      return SemverMethod(call, args);
    case T::kList:
      if (call.name == "size" && args.size() == 1)
        return CelValue::Int(static_cast<int64_t>(args[0].items().size()));
      break;
    default:
      break;
  }
  // all(), exists(), map(), filter() and every other function land here.
  return CelValue::Unknown("the function " + call.name + "() (not evaluated by gpulint)");
}

}  // namespace gpulint
