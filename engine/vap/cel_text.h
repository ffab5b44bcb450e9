// Building CEL source text: literals, the let idiom, and the path strings
// findings report, written once for every part of the exported policy.
// Internal to engine/vap.
#ifndef GPULINT_ENGINE_VAP_CEL_TEXT_H_
#define GPULINT_ENGINE_VAP_CEL_TEXT_H_

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpulint::cel {

// A ValidatingAdmissionPolicy variable: spec.variables[] {name, expression}.
struct Variable {
  std::string name;
  std::string expression;
};

// A CEL string literal holding exactly `text`.
std::string Str(std::string_view text);
// A CEL list literal of string literals.
std::string StrList(const std::vector<std::string>& items);

// `text` with each "$name" replaced by its value; names are letters, digits
// and '_' and a longer name is never the start of a shorter one's match
// ("$pod" and "$pods" may both be used). An unknown "$name" is left alone.
std::string Fill(std::string_view text,
                 std::initializer_list<std::pair<std::string_view, std::string>> values);

// The value of `body` with `var` bound to `value`, evaluated once: CEL in the
// API server has no cel.bind, but a one-element list's map() binds as well.
std::string Let(std::string_view var, std::string_view value, std::string_view body);

// A fresh comprehension variable name for each nesting ("v1", "v2"...):
// CEL refuses a variable that shadows another in scope.
class Names {
 public:
  std::string Next(std::string_view stem);

 private:
  int next_ = 0;
};

// A finding's path being built: a base known only when the object is (a CEL
// string expression, or none) followed by keys known now. engine/base/path.h's
// AppendKey and JoinPath act on the known part, so a path many keys deep is
// one comparison in CEL, not one per key.
class PathExpr {
 public:
  // The path held by the CEL string expression `base`.
  explicit PathExpr(std::string base) : base_(std::move(base)) {}
  // A path known now.
  static PathExpr Literal(std::string_view path);
  PathExpr Key(std::string_view key) const;      // AppendKey
  PathExpr Child(std::string_view child) const;  // JoinPath
  // AppendKey with a key known only when the object is (a CEL expression).
  PathExpr KeyExpr(std::string_view key_expr) const;
  // "[i]" after the path, `index_expr` a CEL int.
  PathExpr Index(std::string_view index_expr) const;
  std::string Cel() const;

 private:
  PathExpr() = default;
  std::string base_;    // "" when the whole path is known
  std::string suffix_;  // appended to the base: ".spec", "[\"a.b\"]"
};

// A field of a map value, by index: every key is safe that way, reserved
// words ("namespace") and dotted ones included.
std::string Field(std::string_view map_expr, std::string_view key);
// Whether `expr` is a map holding `key`.
std::string HasField(std::string_view expr, std::string_view key);
// The field `key` of map `expr` when it is a string, else '' (Value::StringAt).
std::string StringAt(std::string_view map_expr, std::string_view key);
// The text of a scalar as engine/base/value.h keeps it ('' for null, maps and
// lists; "true" for a boolean; a number's digits).
std::string ScalarText(std::string_view expr);

}  // namespace gpulint::cel

#endif  // GPULINT_ENGINE_VAP_CEL_TEXT_H_
