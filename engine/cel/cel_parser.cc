// A recursive-descent parser for the part of CEL's grammar
// (github.com/google/cel-spec, doc/langdef.md) that device selectors use:
//
//   Expr           = ConditionalOr ["?" ConditionalOr ":" Expr]
//   ConditionalOr  = ConditionalAnd {"||" ConditionalAnd}
//   ConditionalAnd = Relation {"&&" Relation}
//   Relation       = Addition {("<"|"<="|">="|">"|"=="|"!="|"in") Addition}
//   Addition       = Multiplication {("+"|"-") Multiplication}
//   Multiplication = Unary {("*"|"/"|"%") Unary}
//   Unary          = Member | "!" {"!"} Member | "-" {"-"} Member
//   Member         = Primary {"." IDENT ["(" [ExprList] ")"] | "[" Expr "]"}
//   Primary        = IDENT ["(" [ExprList] ")"] | "(" Expr ")" | "[" [ExprList] [","] "]"
//                  | literal
//
// Literals: ints (decimal, 0x hex), uints (suffix u), doubles, strings in
// single, double or triple quotes with CEL's escapes, raw strings (r"..."),
// true, false, null. Not read: bytes literals, map and message literals, a
// leading "." on a name; any of these fails the parse.
#include <re2/re2.h>

#include <cctype>
#include <charconv>
#include <cstdlib>

#include "engine/cel/cel_ast.h"

namespace gpulint {
namespace {

using Node = std::unique_ptr<CelNode>;

Node Make(CelNode::Kind kind, std::string name = {}) {
  auto n = std::make_unique<CelNode>();
  n->kind = kind;
  n->name = std::move(name);
  return n;
}

Node Make(CelNode::Kind kind, std::string name, Node a, Node b = nullptr, Node c = nullptr) {
  Node n = Make(kind, std::move(name));
  for (Node* arg : {&a, &b, &c})
    if (*arg) n->args.push_back(std::move(*arg));
  return n;
}

// UTF-8 of one code point.
void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Node Parse(std::string* error) {
    Node root = Expr(0);
    Space();
    if (root && pos_ < text_.size()) Fail("unexpected \"" + std::string(text_.substr(pos_, 1)) + "\"");
    if (!error_.empty()) {
      *error = error_;
      return nullptr;
    }
    return root;
  }

 private:
  static constexpr int kMaxDepth = 64;  // selectors are short; deeper is hostile

  Node Fail(std::string why) {
    if (error_.empty()) error_ = "at column " + std::to_string(pos_ + 1) + ": " + why;
    return nullptr;
  }

  void Space() {
    while (pos_ < text_.size()) {
      if (std::isspace(static_cast<unsigned char>(text_[pos_]))) {
        ++pos_;
      } else if (text_.substr(pos_, 2) == "//") {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
  }

  // Consumes `token` (after spaces) when it comes next.
  bool Eat(std::string_view token) {
    Space();
    if (text_.substr(pos_, token.size()) != token) return false;
    // "in" and other words only as whole words; "<" not as the start of "<=".
    size_t end = pos_ + token.size();
    bool word = std::isalpha(static_cast<unsigned char>(token.back()));
    if (word && end < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[end])) ||
                                       text_[end] == '_'))
      return false;
    pos_ = end;
    return true;
  }

  bool Peek(char c) {
    Space();
    return pos_ < text_.size() && text_[pos_] == c;
  }

  Node Expr(int depth) {
    if (depth > kMaxDepth) return Fail("nested too deeply");
    Node cond = Or(depth);
    if (!cond || !Eat("?")) return cond;
    Node yes = Or(depth);
    if (!yes) return nullptr;
    if (!Eat(":")) return Fail("expected \":\"");
    Node no = Expr(depth + 1);
    if (!no) return nullptr;
    return Make(CelNode::Kind::kTernary, "", std::move(cond), std::move(yes), std::move(no));
  }

  Node Or(int depth) {
    Node left = And(depth);
    while (left && Eat("||")) {
      Node right = And(depth);
      if (!right) return nullptr;
      left = Make(CelNode::Kind::kOr, "||", std::move(left), std::move(right));
    }
    return left;
  }

  Node And(int depth) {
    Node left = Relation(depth);
    while (left && Eat("&&")) {
      Node right = Relation(depth);
      if (!right) return nullptr;
      left = Make(CelNode::Kind::kAnd, "&&", std::move(left), std::move(right));
    }
    return left;
  }

  Node Relation(int depth) {
    Node left = Addition(depth);
    while (left) {
      std::string op;
      for (const char* candidate : {"<=", ">=", "==", "!=", "<", ">", "in"})
        if (Eat(candidate)) {
          op = candidate;
          break;
        }
      if (op.empty()) break;
      Node right = Addition(depth);
      if (!right) return nullptr;
      left = Make(CelNode::Kind::kBinary, op, std::move(left), std::move(right));
    }
    return left;
  }

  Node Addition(int depth) {
    Node left = Multiplication(depth);
    while (left) {
      std::string op = Eat("+") ? "+" : Eat("-") ? "-" : "";
      if (op.empty()) break;
      Node right = Multiplication(depth);
      if (!right) return nullptr;
      left = Make(CelNode::Kind::kBinary, op, std::move(left), std::move(right));
    }
    return left;
  }

  Node Multiplication(int depth) {
    Node left = Unary(depth);
    while (left) {
      std::string op = Eat("*") ? "*" : Eat("/") ? "/" : Eat("%") ? "%" : "";
      if (op.empty()) break;
      Node right = Unary(depth);
      if (!right) return nullptr;
      left = Make(CelNode::Kind::kBinary, op, std::move(left), std::move(right));
    }
    return left;
  }

  Node Unary(int depth) {
    if (depth > kMaxDepth) return Fail("nested too deeply");
    if (Eat("!")) {
      Node operand = Unary(depth + 1);
      return operand ? Make(CelNode::Kind::kNot, "!", std::move(operand)) : nullptr;
    }
    Space();
    if (Eat("-")) {
      Space();
      // -9223372036854775808 is a literal of its own: its magnitude is no int64.
      if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])))
        return Number(true, depth);
      Node operand = Unary(depth + 1);
      return operand ? Make(CelNode::Kind::kNegate, "-", std::move(operand)) : nullptr;
    }
    return Member(Primary(depth), depth);
  }

  Node Member(Node operand, int depth) {
    while (operand) {
      if (Eat(".")) {
        std::string name = Identifier();
        if (name.empty()) return Fail("expected a field or function name after \".\"");
        if (Eat("(")) {
          Node call = Make(CelNode::Kind::kCall, name);
          call->has_target = true;
          call->args.push_back(std::move(operand));
          if (!Arguments(&call->args, ")", depth)) return nullptr;
          operand = Macro(std::move(call));
        } else {
          operand = Make(CelNode::Kind::kSelect, name, std::move(operand));
        }
      } else if (Eat("[")) {
        Node index = Expr(depth + 1);
        if (!index) return nullptr;
        if (!Eat("]")) return Fail("expected \"]\"");
        operand = Make(CelNode::Kind::kIndex, "[]", std::move(operand), std::move(index));
      } else {
        break;
      }
    }
    return operand;
  }

  // cel.bind(name, init, body) and has(select) are macros: their first
  // argument is no expression to evaluate.
  Node Macro(Node call) {
    if (call->has_target && call->name == "bind" && call->args[0]->kind == CelNode::Kind::kIdent &&
        call->args[0]->name == "cel") {
      if (call->args.size() != 4 || call->args[1]->kind != CelNode::Kind::kIdent)
        return Fail("cel.bind() takes a variable name, a value and an expression");
      Node bind = Make(CelNode::Kind::kBind, call->args[1]->name, std::move(call->args[2]),
                       std::move(call->args[3]));
      return bind;
    }
    if (!call->has_target && call->name == "has") {
      if (call->args.size() != 1 || call->args[0]->kind != CelNode::Kind::kSelect)
        return Fail("has() takes one field selection, such as has(device.attributes[\"d\"].name)");
      return Make(CelNode::Kind::kHas, "has", std::move(call->args[0]));
    }
    if (call->name == "matches" && call->args.size() == 2 &&
        call->args[1]->kind == CelNode::Kind::kLiteral &&
        call->args[1]->literal.is(CelValue::Type::kString))
      call->pattern = std::make_shared<const re2::RE2>(call->args[1]->literal.text(),
                                                       re2::RE2::Quiet);
    return call;
  }

  bool Arguments(std::vector<Node>* args, std::string_view close, int depth) {
    if (Eat(close)) return true;
    while (true) {
      Node arg = Expr(depth + 1);
      if (!arg) return false;
      args->push_back(std::move(arg));
      if (Eat(close)) return true;
      if (!Eat(",")) {
        Fail("expected \",\" or \"" + std::string(close) + "\"");
        return false;
      }
      if (close == "]" && Eat(close)) return true;  // a list may end in a comma
    }
  }

  std::string Identifier() {
    Space();
    size_t start = pos_;
    if (pos_ < text_.size() &&
        (std::isalpha(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
        ++pos_;
    }
    return std::string(text_.substr(start, pos_ - start));
  }

  Node Primary(int depth) {
    Space();
    if (pos_ >= text_.size()) return Fail("unexpected end of the expression");
    char c = text_[pos_];
    if (Eat("(")) {
      Node inner = Expr(depth + 1);
      if (!inner) return nullptr;
      if (!Eat(")")) return Fail("expected \")\"");
      return inner;
    }
    if (Eat("[")) {
      Node list = Make(CelNode::Kind::kList, "[]");
      return Arguments(&list->args, "]", depth) ? std::move(list) : nullptr;
    }
    if (c == '{') return Fail("map literals are not read by gpulint");
    if (c == '.') return Fail("a name starting with \".\" is not read by gpulint");
    if (std::isdigit(static_cast<unsigned char>(c))) return Number(false, depth);
    if (c == '"' || c == '\'') return StringLiteral(false);
    if ((c == 'r' || c == 'R') && pos_ + 1 < text_.size() &&
        (text_[pos_ + 1] == '"' || text_[pos_ + 1] == '\'')) {
      ++pos_;
      return StringLiteral(true);
    }
    if ((c == 'b' || c == 'B') && pos_ + 1 < text_.size() &&
        (text_[pos_ + 1] == '"' || text_[pos_ + 1] == '\'' || text_[pos_ + 1] == 'r' ||
         text_[pos_ + 1] == 'R'))
      return Fail("bytes literals are not read by gpulint");
    std::string name = Identifier();
    if (name.empty()) return Fail("unexpected \"" + std::string(1, c) + "\"");
    Node literal = Make(CelNode::Kind::kLiteral, name);
    if (name == "true" || name == "false") {
      literal->literal = CelValue::Bool(name == "true");
      return literal;
    }
    if (name == "null") return literal;  // CelValue() is null
    if (Eat("(")) {
      Node call = Make(CelNode::Kind::kCall, name);
      if (!Arguments(&call->args, ")", depth)) return nullptr;
      return Macro(std::move(call));
    }
    return Make(CelNode::Kind::kIdent, name);
  }

  Node Number(bool negative, int depth) {
    size_t start = pos_;
    bool hex = text_.substr(pos_, 2) == "0x" || text_.substr(pos_, 2) == "0X";
    if (hex) pos_ += 2;
    auto digit = [&](char ch) {
      return hex ? std::isxdigit(static_cast<unsigned char>(ch)) != 0
                 : std::isdigit(static_cast<unsigned char>(ch)) != 0;
    };
    size_t digits = pos_;
    while (pos_ < text_.size() && digit(text_[pos_])) ++pos_;
    if (pos_ == digits) return Fail("a hexadecimal number needs digits");
    bool is_double = false;
    if (!hex && pos_ + 1 < text_.size() && text_[pos_] == '.' &&
        std::isdigit(static_cast<unsigned char>(text_[pos_ + 1]))) {
      is_double = true;
      ++pos_;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    }
    if (!hex && pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      size_t save = pos_++;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      size_t exp = pos_;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
      if (pos_ == exp) {
        pos_ = save;
      } else {
        is_double = true;
      }
    }
    std::string body(text_.substr(hex ? digits : start, pos_ - (hex ? digits : start)));
    Node literal = Make(CelNode::Kind::kLiteral, std::string(text_.substr(start, pos_ - start)));
    if (is_double) {
      literal->literal = CelValue::Double((negative ? -1 : 1) * std::strtod(body.c_str(), nullptr));
      return Member(std::move(literal), depth);
    }
    bool is_uint = pos_ < text_.size() && (text_[pos_] == 'u' || text_[pos_] == 'U');
    if (is_uint) ++pos_;
    unsigned __int128 value = 0;
    for (char ch : body) {
      int d = std::isdigit(static_cast<unsigned char>(ch)) ? ch - '0'
                                                           : std::tolower(ch) - 'a' + 10;
      value = value * (hex ? 16 : 10) + d;
      if (value > (static_cast<unsigned __int128>(1) << 64)) return Fail("number out of range");
    }
    if (is_uint) {
      if (negative || value > UINT64_MAX) return Fail("number out of range");
      literal->literal = CelValue::Uint(static_cast<uint64_t>(value));
    } else {
      unsigned __int128 limit = static_cast<unsigned __int128>(INT64_MAX) + (negative ? 1 : 0);
      if (value > limit) return Fail("number out of range");
      literal->literal = CelValue::Int(
          negative ? static_cast<int64_t>(-static_cast<__int128>(value)) : static_cast<int64_t>(value));
    }
    return Member(std::move(literal), depth);
  }

  Node StringLiteral(bool raw) {
    char quote = text_[pos_];
    bool triple = text_.substr(pos_, 3) == std::string(3, quote);
    pos_ += triple ? 3 : 1;
    std::string value;
    while (true) {
      if (pos_ >= text_.size()) return Fail("unterminated string");
      if (triple ? text_.substr(pos_, 3) == std::string(3, quote) : text_[pos_] == quote) break;
      char ch = text_[pos_++];
      if (!triple && ch == '\n') return Fail("a line break in a string");
      if (ch != '\\' || raw) {
        value.push_back(ch);
        continue;
      }
      if (!Escape(&value)) return nullptr;
    }
    pos_ += triple ? 3 : 1;
    Node literal = Make(CelNode::Kind::kLiteral, "string");
    literal->literal = CelValue::String(std::move(value));
    return literal;
  }

  // One escape after a backslash, into `out`.
  bool Escape(std::string* out) {
    if (pos_ >= text_.size()) return Fail("unterminated string"), false;
    char e = text_[pos_++];
    switch (e) {
      case 'a': out->push_back('\a'); return true;
      case 'b': out->push_back('\b'); return true;
      case 'f': out->push_back('\f'); return true;
      case 'n': out->push_back('\n'); return true;
      case 'r': out->push_back('\r'); return true;
      case 't': out->push_back('\t'); return true;
      case 'v': out->push_back('\v'); return true;
      case '\\': case '\'': case '"': case '`': case '?': out->push_back(e); return true;
      default: break;
    }
    int width = e == 'x' || e == 'X' ? 2 : e == 'u' ? 4 : e == 'U' ? 8 : 0;
    int base = 16;
    if (width == 0 && e >= '0' && e <= '3') {  // \ooo: three octal digits
      width = 3;
      base = 8;
      --pos_;
    }
    if (width == 0) return Fail(std::string("unknown escape \\") + e), false;
    if (pos_ + width > text_.size()) return Fail("a short escape"), false;
    uint32_t cp = 0;
    auto [end, ec] = std::from_chars(text_.data() + pos_, text_.data() + pos_ + width, cp, base);
    if (ec != std::errc() || end != text_.data() + pos_ + width) return Fail("a bad escape"), false;
    pos_ += width;
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return Fail("a bad code point"), false;
    // In a string (not bytes) every escape names a code point.
    AppendUtf8(cp, out);
    return true;
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace

std::unique_ptr<CelNode> ParseCel(std::string_view text, std::string* error) {
  return Parser(text).Parse(error);
}

}  // namespace gpulint
