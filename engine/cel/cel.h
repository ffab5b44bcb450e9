// DRA's device selectors, evaluated as kube-scheduler evaluates them: the CEL
// expressions of a DeviceClass's spec.selectors and of a claim request's
// selectors, over one variable, `device` (k8s.io/dynamic-resource-allocation/
// cel). This is our own evaluator of the forms drivers write, not all of CEL:
//
//   device.driver                                   a string
//   device.attributes["gpu.nvidia.com"].productName an attribute: bool, int,
//   device.attributes["gpu.nvidia.com"]["type"]     string or semver; a domain
//                                                   with none is an empty map
//   device.capacity["gpu.nvidia.com"].memory        a quantity
//   == != < <= > >= in  && || !  ?:  + - * / %      on ints, uints, doubles,
//                                                   strings, bools, lists
//   has(x.y)  size()  contains() startsWith() endsWith() matches() (RE2)
//   lowerAscii() upperAscii()  int() uint() double() string()  cel.bind()
//   quantity("40Gi"), with compareTo() isGreaterThan() isLessThan() sign()
//     isInteger() asInteger() asApproximateFloat() add() sub()
//   semver("1.2.3"), isSemver(), with compareTo() isGreaterThan() isLessThan()
//     major() minor() patch()
//
// What it does not evaluate (another function, a macro such as all() or
// exists(), a map literal) it says so instead of guessing, and so does an
// expression CEL itself fails on (a missing attribute without has()): the
// device's answer is then "cannot tell", with what could not be read.
// `false && x` and `true || x` are decided whatever x is, as in CEL.
#ifndef GPULINT_ENGINE_CEL_CEL_H_
#define GPULINT_ENGINE_CEL_CEL_H_

#include <memory>
#include <string>
#include <string_view>

#include "engine/cel/cel_value.h"

namespace gpulint {

// What a selector sees as `device`.
struct CelDevice {
  std::string_view driver;
  const CelAttributes* attributes = nullptr;
  const CelCapacities* capacity = nullptr;
};

// A selector's answer for one device.
struct CelVerdict {
  enum class Answer { kNo, kYes, kCannotTell };
  Answer answer = Answer::kCannotTell;
  // For kCannotTell, what could not be read: "no such key: uuid", "the
  // function exists() (not evaluated by gpulint)".
  std::string why;
  bool yes() const { return answer == Answer::kYes; }
  bool no() const { return answer == Answer::kNo; }
  bool cannot_tell() const { return answer == Answer::kCannotTell; }
};

struct CelNode;

// One selector, parsed once and then evaluated for any number of devices.
// Immutable and cheap to copy (the parse is shared).
class CelSelector {
 public:
  CelSelector() = default;
  explicit CelSelector(std::string expression);

  const std::string& expression() const { return expression_; }
  // Why gpulint cannot read the expression at all ("" when it parsed): every
  // device's answer is then "cannot tell".
  const std::string& problem() const { return problem_; }
  CelVerdict Matches(const CelDevice& device) const;

 private:
  std::string expression_;
  std::shared_ptr<const CelNode> root_;
  std::string problem_;
};

// Evaluates `expression` with `device`: for tests and tools.
CelValue EvaluateCel(std::string_view expression, const CelDevice& device);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_CEL_CEL_H_
