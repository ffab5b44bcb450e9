// The parsed form of a CEL expression (engine/cel/cel.h), internal to the cel
// layer: the parser (cel_parser.cc) makes it, the evaluator (cel_eval.cc)
// walks it.
#ifndef GPULINT_ENGINE_CEL_CEL_AST_H_
#define GPULINT_ENGINE_CEL_CEL_AST_H_

#include <memory>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

#include "engine/cel/cel_value.h"

namespace re2 {
class RE2;
}

namespace gpulint {

struct CelNode {
  enum class Kind {
    kLiteral,  // literal
    kIdent,    // name
    kSelect,   // args[0].name
    kHas,      // has(args[0]), args[0] a kSelect
    kIndex,    // args[0][args[1]]
    kCall,     // name(args...), or args[0].name(args[1]...) when has_target
    kList,     // [args...]
    kAnd,      // args[0] && args[1]
    kOr,       // args[0] || args[1]
    kNot,      // !args[0]
    kNegate,   // -args[0]
    kTernary,  // args[0] ? args[1] : args[2]
    kBinary,   // args[0] name args[1]: == != < <= > >= in + - * / %
    kBind,     // cel.bind(name, args[0], args[1])
  };
  Kind kind = Kind::kLiteral;
  CelValue literal;
  std::string name;
  std::vector<std::unique_ptr<CelNode>> args;
  bool has_target = false;
  // matches() with a literal pattern: compiled once, where it is parsed.
  std::shared_ptr<const re2::RE2> pattern;
};

struct CelDevice;

// What an expression is evaluated with: `device`, and the variables
// cel.bind() introduced around the node being evaluated (innermost last).
struct CelEnv {
  const CelDevice* device = nullptr;
  std::vector<std::pair<std::string, CelValue>> bound;
};

// The value of `node` (cel_eval.cc).
CelValue EvalCel(const CelNode& node, CelEnv& env);
// A function call, its target (if any) and arguments already evaluated, none
// of them failed (cel_functions.cc).
CelValue CallCel(const CelNode& call, const std::vector<CelValue>& args);

// Parses `text`. On failure returns null with *error saying where and what
// (gpulint's parser knows less than CEL's: a construct it does not read is
// refused here, and the whole expression is "cannot tell").
std::unique_ptr<CelNode> ParseCel(std::string_view text, std::string* error);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_CEL_CEL_AST_H_
