#include "engine/vap/cel_quantity.h"

namespace gpulint::cel {
namespace {

// |q|, without abs(): 0 - q for a negative one.
std::string Magnitude(std::string_view q) {
  return Fill("(sign($q) < 0 ? variables.q0.sub($q) : $q)", {{"q", std::string(q)}});
}

// The largest whole number of units <= the magnitude `a` (a quantity), or -1
// past 2^53 units where the float cannot find it and the API server does not
// hold it as an integer.
std::string Floor(std::string_view a, std::string_view f, Names* names) {
  std::string x = names->Next("x");
  return Fill(
      "($f < 9.0e15 ? [int($f) - 1, int($f), int($f) + 1].filter($x, $x >= 0 && "
      "quantity(string($x)).compareTo($a) <= 0).max() : $a.isInteger() ? $a.asInteger() : -1)",
      {{"a", std::string(a)}, {"f", std::string(f)}, {"x", x}});
}

// A map {neg, n, F, ok, f}: the sign, whole units and nano-units of q; ok when
// both were found exactly; f the float, for the rare value they were not.
std::string Parts(std::string_view q, Names* names) {
  std::string a = names->Next("a"), f = names->Next("f"), n = names->Next("n");
  std::string r = names->Next("r"), g = names->Next("g"), fs = names->Next("fs");
  std::string x = names->Next("x");
  std::string result = Fill(
      "{'neg': dyn(sign($q) < 0), 'n': dyn($n), 'F': dyn(size($fs) > 0 ? $fs[0] : 0), "
      "'ok': dyn($n >= 0 && size($fs) > 0), 'f': dyn($f)}",
      {{"q", std::string(q)}, {"n", n}, {"fs", fs}, {"f", f}});
  std::string nanos = Fill(
      "[$g - 1, $g, $g + 1].filter($x, $x >= 0 && $x < 1000000000 && "
      "quantity(string($x) + 'n').compareTo($r) == 0)",
      {{"g", g}, {"x", x}, {"r", r}});
  return Let(a, Magnitude(q),
             Let(f, a + ".asApproximateFloat()",
                 Let(n, Floor(a, f, names),
                     Let(r,
                         Fill("$n >= 0 ? $a.sub(quantity(string($n))) : variables.q0",
                              {{"n", n}, {"a", a}}),
                         Let(g, "int(" + r + ".asApproximateFloat() * 1000000000.0)",
                             Let(fs, nanos, result))))));
}

// ExactDecimal from a Parts map `p`.
std::string ExactFromParts(std::string_view p, Names* names) {
  return Fill(
      "($p.ok ? ($p.neg ? '-' : '') + string($p.n) + ($p.F == 0 ? '' : '.' + "
      "('000000000'.substring(size(string($p.F))) + string($p.F)).substring(0, 9 - "
      "[10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000].filter($d, $p.F % $d == 0)"
      ".size())) : '~' + string($p.f))",
      {{"p", std::string(p)}, {"d", names->Next("d")}});
}

// " = 1.5 GB" in the largest of `units` (their sizes and names) that the
// magnitude reaches, or '' below the first; Tenths() rounding, in uint so
// that nothing overflows up to 2^63 bytes.
std::string InLargestUnit(std::string_view p, std::string_view sizes, std::string_view names_list,
                          Names* names) {
  std::string k = names->Next("k"), u = names->Next("u"), x = names->Next("x");
  std::string t = names->Next("t"), s = names->Next("s");
  std::string tenths = Fill(
      "uint($p.n) / $u * 10u + $x / $u + (2u * ($x % $u) >= $u || (2u * ($x % $u) + 1u == $u && "
      "$p.F % 100000000 >= 50000000) ? 1u : 0u)",
      {{"p", std::string(p)}, {"u", u}, {"x", x}});
  std::string shown = Fill(
      "' = ' + ($p.neg ? '-' : '') + string($t / 10u) + ($t % 10u != 0u ? '.' + string($t % 10u) "
      ": '') + ' ' + $names[$k - 1]",
      {{"p", std::string(p)}, {"t", t}, {"names", std::string(names_list)}, {"k", k}});
  return Let(k,
             Fill("$sizes.filter($s, $p.n >= $s).size()",
                  {{"sizes", std::string(sizes)}, {"s", s}, {"p", std::string(p)}}),
             Fill("($k == 0 ? '' : $body)",
                  {{"k", k},
                   {"body", Let(u, "uint(" + std::string(sizes) + "[" + k + " - 1])",
                                Let(x,
                                    Fill("uint($p.n) % $u * 10u + uint($p.F / 100000000)",
                                         {{"p", std::string(p)}, {"u", u}}),
                                    Let(t, tenths, shown)))}}));
}

constexpr std::string_view kDecimalSizes =
    "[1000, 1000000, 1000000000, 1000000000000, 1000000000000000, 1000000000000000000]";
constexpr std::string_view kDecimalNames = "['kB', 'MB', 'GB', 'TB', 'PB', 'EB']";
constexpr std::string_view kBinarySizes =
    "[1024, 1048576, 1073741824, 1099511627776, 1125899906842624, 1152921504606846976]";
constexpr std::string_view kBinaryNames = "['KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB']";

// Whether the quantity is a whole number (past 2^53 units: taken as whole).
std::string WholeOf(std::string_view q, Names* names) {
  std::string a = names->Next("a"), f = names->Next("f"), x = names->Next("x");
  return Let(a, Magnitude(q),
             Let(f, a + ".asApproximateFloat()",
                 Fill("$a.isInteger() || $f >= 9.0e15 || [int($f) - 1, int($f), int($f) + 1]"
                      ".exists($x, $x >= 0 && quantity(string($x)).compareTo($a) == 0)",
                      {{"a", a}, {"f", f}, {"x", x}})));
}

// Quantity::Stored(): rounded up, away from zero, to a milli-unit.
std::string Stored(std::string_view q, Names* names) {
  std::string f = names->Next("f"), m = names->Next("m"), s = names->Next("s");
  std::string c = names->Next("c"), x = names->Next("x"), y = names->Next("y");
  std::string candidates = Fill(
      "[$m - 1, $m, $m + 1, $m + 2].filter($x, $x >= 0).map($x, quantity($s + string($x) + 'm'))"
      ".filter($y, $s == '' ? $y.compareTo($q) >= 0 : $y.compareTo($q) <= 0)",
      {{"m", m}, {"x", x}, {"y", y}, {"s", s}, {"q", std::string(q)}});
  return Fill(
      "($q.isInteger() ? $q : $rest)",
      {{"q", std::string(q)},
       {"rest", Let(f,
                    Fill("($q.asApproximateFloat() < 0.0 ? -$q.asApproximateFloat() : "
                         "$q.asApproximateFloat())",
                         {{"q", std::string(q)}}),
                    Fill("($f >= 9.0e12 ? $q : $body)",
                         {{"f", f},
                          {"q", std::string(q)},
                          {"body", Let(m, "int(" + f + " * 1000.0)",
                                       Let(s, "(sign(" + std::string(q) + ") < 0 ? '-' : '')",
                                           Let(c, candidates,
                                               Fill("(size($c) > 0 ? $c[0] : $q)",
                                                    {{"c", c}, {"q", std::string(q)}}))))}}))}});
}

}  // namespace

std::vector<Variable> QuantityConstants() {
  return {{"q0", "quantity('0')"}, {"q29", "quantity('1e29')"}, {"qm29", "quantity('-1e29')"}};
}

std::string QuantityText(std::string_view value_expr) {
  return Fill(
      "(type($v) == string ? $v.trim() : type($v) == int || type($v) == uint || type($v) == double "
      "? string($v) : '')",
      {{"v", std::string(value_expr)}});
}

std::string AboveZeroOrRefused(std::string_view value_expr, Names* names) {
  std::string v(value_expr), t = names->Next("t"), q = names->Next("q");
  return "(type(" + v + ") != null_type && " +
         Let(t, QuantityText(v),
             "!(" + t + " != '' && isQuantity(" + t + ") && " +
                 Let(q, "quantity(" + t + ")",
                     q + ".compareTo(variables.q29) < 0 && " + q +
                         ".compareTo(variables.qm29) > 0 && sign(" + q + ") <= 0") +
                 ")") +
         ")";
}

std::string Entry(std::string_view name_expr, std::string_view value_expr,
                  std::string_view path_expr, std::string_view stored_expr, std::string_view fields,
                  Names* names) {
  std::string v(value_expr), t = names->Next("t"), q = names->Next("q"), ev = names->Next("ev");
  std::string record = Fill(
      "{$fields'name': dyn($name), 'path': dyn($path), 'v': dyn($v), 'str': dyn(type($v) == "
      "string), 'nil': dyn(type($v) == null_type), 'text': dyn($t), 'valid': dyn($ev), 'q': "
      "dyn($ev && $stored ? $stored_q : $q != null ? $q : variables.q0), 'sign': dyn($q != null ? "
      "sign($q) : 0)}",
      {{"fields", std::string(fields)},
       {"name", std::string(name_expr)},
       {"path", std::string(path_expr)},
       {"v", v},
       {"t", t},
       {"ev", ev},
       {"q", q},
       {"stored", std::string(stored_expr)},
       {"stored_q", Stored(q, names)}});
  // ReadQuantityField: null is zero; a string (trimmed) or a number is read
  // from its text; anything else is refused. null when refused.
  return Let(t, QuantityText(v),
             Let(q,
                 Fill("type($v) == null_type ? dyn(variables.q0) : $t != '' && isQuantity($t) ? "
                      "dyn(quantity($t)) : dyn(null)",
                      {{"v", v}, {"t", t}}),
                 Let(ev,
                     Fill("$q != null && $q.compareTo(variables.q29) < 0 && "
                          "$q.compareTo(variables.qm29) > 0",
                          {{"q", q}}),
                     record)));
}

std::string Whole(std::string_view q_expr, Names* names) { return WholeOf(q_expr, names); }

// Each call that takes `names` in a statement of its own: the order in which
// C++ evaluates a call's arguments, or the operands of +, is the compiler's,
// and the names (so the output) would differ between compilers.

std::string ExactDecimal(std::string_view q_expr, Names* names) {
  std::string p = names->Next("p");
  std::string parts = Parts(q_expr, names);
  std::string exact = ExactFromParts(p, names);
  return Let(p, parts, exact);
}

std::string FormatBytes(std::string_view q_expr, Names* names) {
  std::string p = names->Next("p");
  std::string parts = Parts(q_expr, names);
  std::string exact = ExactFromParts(p, names);
  std::string decimal = InLargestUnit(p, kDecimalSizes, kDecimalNames, names);
  std::string binary = InLargestUnit(p, kBinarySizes, kBinaryNames, names);
  return Let(p, parts, exact + " + ' B' + (" + p + ".ok ? " + decimal + " + " + binary + " : '')");
}

std::string DescribeCount(std::string_view entry_expr, Names* names) {
  std::string p = names->Next("p");
  std::string e(entry_expr);
  // Not whole: Canonical() of a milli-rounded value is its milli-units, "m"
  // (or "e-3" in the exponent form the text was written in).
  std::string canonical = Fill(
      "($p.neg ? '-' : '') + string($p.n * 1000 + $p.F / 1000000) + "
      "($e.text.matches('[eE][+-]?[0-9]+$') ? 'e-3' : 'm')",
      {{"p", p}, {"e", e}});
  std::string parts = Parts(e + ".q", names);
  return Let(p, parts,
             Fill("($whole || !$p.ok || $p.n >= 9000000000000000 ? $exact : $canonical + ' (' + "
                  "$exact + ')')",
                  {{"whole", Whole(e + ".q", names)},
                   {"p", p},
                   {"exact", ExactFromParts(p, names)},
                   {"canonical", canonical}}));
}

}  // namespace gpulint::cel
