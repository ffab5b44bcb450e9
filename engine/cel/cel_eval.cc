// Evaluating a parsed CEL expression (cel_ast.h): variables, fields and
// indexes of the device, the logical operators with CEL's rules for errors,
// comparisons and arithmetic. Function calls are cel_functions.cc's.
#include <climits>
#include <cmath>
#include <limits>
#include <type_traits>

#include "engine/cel/cel.h"
#include "engine/cel/cel_ast.h"

namespace gpulint {
namespace {

using T = CelValue::Type;

CelValue NoSuchKey(std::string_view key) { return CelValue::Error("no such key: " + std::string(key)); }

const CelAttributeMap& EmptyAttributes() {
  static const CelAttributeMap empty;
  return empty;
}
const CelCapacityMap& EmptyCapacities() {
  static const CelCapacityMap empty;
  return empty;
}

// `map[key]` or `map.key` on the device and its maps. Found: the value;
// `present`, when given, is told whether the key is there instead of failing
// (has()).
CelValue Member(const CelValue& map, std::string_view key, bool* present = nullptr) {
  auto answer = [&](bool found, CelValue value) {
    if (present) {
      *present = found;
      return CelValue::Bool(found);
    }
    return found ? value : NoSuchKey(key);
  };
  switch (map.type()) {
    case T::kDevice: {
      const CelDevice& d = *map.device();
      if (key == "driver") return answer(true, CelValue::String(std::string(d.driver)));
      if (key == "attributes") return answer(true, CelValue::Attributes(d.attributes));
      if (key == "capacity") return answer(true, CelValue::Capacities(d.capacity));
      return answer(false, {});
    }
    case T::kAttributes: {
      // A domain the device has no attribute of reads as an empty map, as in
      // Kubernetes' DRA environment: has() and lookups in it say "absent".
      auto it = map.attributes() ? map.attributes()->find(key) : CelAttributes::const_iterator();
      bool found = map.attributes() && it != map.attributes()->end();
      return answer(true, CelValue::AttributeDomain(found ? &it->second : &EmptyAttributes()));
    }
    case T::kCapacities: {
      auto it = map.capacities() ? map.capacities()->find(key) : CelCapacities::const_iterator();
      bool found = map.capacities() && it != map.capacities()->end();
      return answer(true, CelValue::CapacityDomain(found ? &it->second : &EmptyCapacities()));
    }
    case T::kAttributeDomain: {
      auto it = map.attribute_domain()->find(key);
      bool found = it != map.attribute_domain()->end();
      return answer(found, found ? it->second : CelValue());
    }
    case T::kCapacityDomain: {
      auto it = map.capacity_domain()->find(key);
      bool found = it != map.capacity_domain()->end();
      return answer(found, found ? CelValue::OfQuantity(it->second) : CelValue());
    }
    default:
      return CelValue::Error("no such field \"" + std::string(key) + "\" on a " + map.TypeName());
  }
}

CelValue Index(const CelValue& operand, const CelValue& index) {
  if (operand.failed()) return operand;
  if (index.failed()) return index;
  if (operand.is(T::kList)) {
    int64_t i = 0;
    if (index.is(T::kInt)) {
      i = index.integer();
    } else if (index.is(T::kUint) && index.unsigned_integer() <= INT64_MAX) {
      i = static_cast<int64_t>(index.unsigned_integer());
    } else {
      return CelValue::Error("no such overload: list[" + index.TypeName() + "]");
    }
    if (i < 0 || static_cast<size_t>(i) >= operand.items().size())
      return CelValue::Error("index out of range: " + std::to_string(i));
    return operand.items()[static_cast<size_t>(i)];
  }
  if (!index.is(T::kString))
    return CelValue::Error("no such overload: " + operand.TypeName() + "[" + index.TypeName() + "]");
  return Member(operand, index.text());
}

// CEL's && and ||: `decisive` (false for &&, true for ||) on either side
// decides, whatever the other side is, even an error; else an error or
// unknown on either side is the answer.
CelValue Logical(const CelNode& n, CelEnv& env, bool decisive) {
  CelValue left = EvalCel(*n.args[0], env);
  if (left.is(T::kBool) && left.boolean() == decisive) return left;
  CelValue right = EvalCel(*n.args[1], env);
  if (right.is(T::kBool) && right.boolean() == decisive) return right;
  for (const CelValue* side : {&left, &right}) {
    if (side->failed()) return *side;
    if (!side->is(T::kBool))
      return CelValue::Error("no such overload: " + side->TypeName() + " " + n.name);
  }
  return CelValue::Bool(!decisive);
}

CelValue In(const CelValue& element, const CelValue& container) {
  if (container.failed()) return container;
  if (element.failed()) return element;
  if (container.is(T::kList)) {
    CelValue failure;
    for (const CelValue& item : container.items()) {
      CelValue e = CelEquals(element, item);
      if (e.is(T::kBool) && e.boolean()) return e;
      if (e.failed()) failure = e;
    }
    return failure.failed() ? failure : CelValue::Bool(false);
  }
  if (element.is(T::kString)) {
    bool present = false;
    CelValue found = Member(container, element.text(), &present);
    if (found.failed()) return found;
    return CelValue::Bool(present);
  }
  return CelValue::Error("no such overload: " + element.TypeName() + " in " + container.TypeName());
}

CelValue Overflow() { return CelValue::Error("return error for overflow"); }

// + - * / % of two ints or two uints, with CEL's errors for overflow and
// division by zero.
template <typename N>
CelValue WholeArithmetic(char op, N a, N b, CelValue (*make)(N)) {
  N r = 0;
  switch (op) {
    case '+':
      return __builtin_add_overflow(a, b, &r) ? Overflow() : make(r);
    case '-':
      return __builtin_sub_overflow(a, b, &r) ? Overflow() : make(r);
    case '*':
      return __builtin_mul_overflow(a, b, &r) ? Overflow() : make(r);
    case '/':
    case '%':
      if (b == 0) return CelValue::Error(op == '/' ? "division by zero" : "modulus by zero");
      if (std::is_signed_v<N> && a == std::numeric_limits<N>::min() && b == N(-1))
        return Overflow();
      return make(op == '/' ? a / b : a % b);
  }
  return CelValue::Error("no such operator");
}

CelValue Arithmetic(char op, const CelValue& a, const CelValue& b) {
  if (a.failed()) return a;
  if (b.failed()) return b;
  if (a.type() != b.type())  // CEL has no mixed-type arithmetic
    return CelValue::Error("no such overload: " + a.TypeName() + " " + op + " " + b.TypeName());
  switch (a.type()) {
    case T::kInt:
      return WholeArithmetic<int64_t>(op, a.integer(), b.integer(), &CelValue::Int);
    case T::kUint:
      return WholeArithmetic<uint64_t>(op, a.unsigned_integer(), b.unsigned_integer(),
                                       &CelValue::Uint);
    case T::kDouble: {
      double x = a.floating(), y = b.floating();
      if (op == '%') break;
      return CelValue::Double(op == '+' ? x + y : op == '-' ? x - y : op == '*' ? x * y : x / y);
    }
    case T::kString:
      if (op == '+') return CelValue::String(a.text() + b.text());
      break;
    case T::kList:
      if (op == '+') {
        std::vector<CelValue> items = a.items();
        items.insert(items.end(), b.items().begin(), b.items().end());
        return CelValue::List(std::move(items));
      }
      break;
    default:
      break;
  }
  return CelValue::Error("no such overload: " + a.TypeName() + " " + op + " " + b.TypeName());
}

CelValue Binary(const CelNode& n, CelEnv& env) {
  CelValue a = EvalCel(*n.args[0], env);
  CelValue b = EvalCel(*n.args[1], env);
  const std::string& op = n.name;
  if (op == "==" || op == "!=") {
    CelValue e = CelEquals(a, b);
    return op == "!=" && e.is(T::kBool) ? CelValue::Bool(!e.boolean()) : e;
  }
  if (op == "in") return In(a, b);
  if (op.size() == 1 && std::string_view("+-*/%").find(op[0]) != std::string_view::npos)
    return Arithmetic(op[0], a, b);
  int order = 0;
  CelValue failure;
  if (!CelCompare(a, b, &order, &failure)) return failure;
  if (op == "<") return CelValue::Bool(order < 0);
  if (op == "<=") return CelValue::Bool(order <= 0);
  if (op == ">") return CelValue::Bool(order > 0);
  return CelValue::Bool(order >= 0);  // >=
}

CelValue Ident(const CelNode& n, const CelEnv& env) {
  for (auto it = env.bound.rbegin(); it != env.bound.rend(); ++it)
    if (it->first == n.name) return it->second;
  if (n.name == "device" && env.device) return CelValue::Device(env.device);
  return CelValue::Error("undeclared reference to \"" + n.name + "\"");
}

}  // namespace

CelValue EvalCel(const CelNode& n, CelEnv& env) {
  using K = CelNode::Kind;
  switch (n.kind) {
    case K::kLiteral:
      return n.literal;
    case K::kIdent:
      return Ident(n, env);
    case K::kSelect: {
      CelValue operand = EvalCel(*n.args[0], env);
      return operand.failed() ? operand : Member(operand, n.name);
    }
    case K::kHas: {
      const CelNode& select = *n.args[0];
      CelValue operand = EvalCel(*select.args[0], env);
      if (operand.failed()) return operand;
      bool present = false;
      CelValue result = Member(operand, select.name, &present);
      return result.failed() ? result : CelValue::Bool(present);
    }
    case K::kIndex:
      return Index(EvalCel(*n.args[0], env), EvalCel(*n.args[1], env));
    case K::kList: {
      std::vector<CelValue> items;
      for (const auto& arg : n.args) {
        items.push_back(EvalCel(*arg, env));
        if (items.back().failed()) return items.back();
      }
      return CelValue::List(std::move(items));
    }
    case K::kAnd:
      return Logical(n, env, false);
    case K::kOr:
      return Logical(n, env, true);
    case K::kNot: {
      CelValue v = EvalCel(*n.args[0], env);
      if (v.failed()) return v;
      return v.is(T::kBool) ? CelValue::Bool(!v.boolean())
                            : CelValue::Error("no such overload: !" + v.TypeName());
    }
    case K::kNegate: {
      CelValue v = EvalCel(*n.args[0], env);
      if (v.failed()) return v;
      if (v.is(T::kInt))
        return v.integer() == INT64_MIN ? Overflow() : CelValue::Int(-v.integer());
      if (v.is(T::kDouble)) return CelValue::Double(-v.floating());
      return CelValue::Error("no such overload: -" + v.TypeName());
    }
    case K::kTernary: {
      CelValue cond = EvalCel(*n.args[0], env);
      if (cond.failed()) return cond;
      if (!cond.is(T::kBool)) return CelValue::Error("no such overload: " + cond.TypeName() + " ? :");
      return EvalCel(*n.args[cond.boolean() ? 1 : 2], env);
    }
    case K::kBinary:
      return Binary(n, env);
    case K::kBind: {
      CelValue init = EvalCel(*n.args[0], env);
      env.bound.emplace_back(n.name, std::move(init));
      CelValue body = EvalCel(*n.args[1], env);
      env.bound.pop_back();
      return body;
    }
    case K::kCall: {
      // Macros bind a variable of their own: their arguments are not values.
      if (n.has_target && (n.name == "all" || n.name == "exists" || n.name == "exists_one" ||
                           n.name == "map" || n.name == "filter"))
        return CelValue::Unknown("the macro " + n.name + "() (not evaluated by gpulint)");
      std::vector<CelValue> args;
      for (const auto& arg : n.args) {
        args.push_back(EvalCel(*arg, env));
        if (args.back().failed()) return args.back();
      }
      return CallCel(n, args);
    }
  }
  return CelValue::Error("unknown expression");
}

CelSelector::CelSelector(std::string expression) : expression_(std::move(expression)) {
  std::string error;
  std::unique_ptr<CelNode> root = ParseCel(expression_, &error);
  if (root)
    root_ = std::move(root);
  else
    problem_ = "gpulint cannot read it (" + error + ")";
}

CelVerdict CelSelector::Matches(const CelDevice& device) const {
  CelVerdict verdict;
  if (!root_) {
    verdict.why = problem_;
    return verdict;
  }
  CelEnv env;
  env.device = &device;
  CelValue v = EvalCel(*root_, env);
  if (v.is(T::kBool)) {
    verdict.answer = v.boolean() ? CelVerdict::Answer::kYes : CelVerdict::Answer::kNo;
  } else if (v.failed()) {
    verdict.why = v.text();
  } else {
    verdict.why = "it gives a " + v.TypeName() + ", not a bool";
  }
  return verdict;
}

CelValue EvaluateCel(std::string_view expression, const CelDevice& device) {
  std::string error;
  std::unique_ptr<CelNode> root = ParseCel(expression, &error);
  if (!root) return CelValue::Unknown("gpulint cannot read it (" + error + ")");
  CelEnv env;
  env.device = &device;
  return EvalCel(*root, env);
}

}  // namespace gpulint
