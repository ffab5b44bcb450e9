// The rules about quantities in CEL: each as its engine/rules/ file says it,
// with the same words.
#include "engine/vap/cel_quantity.h"
#include "engine/vap/cel_rule_builder.h"

namespace gpulint::cel {

std::string QuantityCpuUnits(const Builder& b) {
  Names* n = b.names();
  std::string e = n->Next("e"), f = n->Next("f"), s = n->Next("s"), x = n->Next("x");
  std::string num = n->Next("num");
  constexpr std::string_view kSuffixes =
      "['Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei', 'k', 'M', 'G', 'T', 'P', 'E']";
  constexpr std::string_view kMeaning =
      "{'Ki': 'kibi, 2^10, a byte unit', 'Mi': 'mebi, 2^20, a byte unit', 'Gi': 'gibi, 2^30, a "
      "byte unit', 'Ti': 'tebi, 2^40, a byte unit', 'Pi': 'pebi, 2^50, a byte unit', 'Ei': 'exbi, "
      "2^60, a byte unit', 'k': 'kilo, 1000', 'M': 'mega, 10^6', 'G': 'giga, 10^9', 'T': 'tera, "
      "10^12', 'P': 'peta, 10^15', 'E': 'exa, 10^18'}";
  auto suffixes = [&](const std::string& text) {
    return std::string(kSuffixes) + ".filter(" + x + ", size(" + text + ") > size(" + x + ") && " +
           text + ".endsWith(" + x + "))";
  };
  std::string milli = "quantity(" + num + " + 'm')";
  // In statements of their own: the names they take are drawn in order.
  std::string cores = ExactDecimal(f + ".q", n);
  std::string milli_cores = ExactDecimal(milli, n);
  std::string find =
      Builder::Find(b.Default(), f + ".path",
                    Label(ContainerOf(f)) + " + ': cpu ' + " + f + ".text + ' is ' + " + cores +
                        " + ' cores (\"' + " + s + " + '\" is ' + " + std::string(kMeaning) + "[" +
                        s + "] + '); no node has that many, so the pod never schedules' + ((" + s +
                        " == 'Mi' || " + s + " == 'M') && isQuantity(" + num +
                        " + 'm') ? '; did you mean ' + " + num + " + 'm (' + " + milli_cores +
                        " + ' cores)?' : '; cpu counts cores: 2 is two cores, 500m half of one')");
  std::string per_entry =
      Let(s, suffixes(f + ".text") + "[0]",
          Let(num, f + ".text.substring(0, size(" + f + ".text) - size(" + s + "))", find));
  return b.Collect(Judged(e,
                          e + ".c >= 0 && " + e + ".name == 'cpu' && type(" + e +
                              ".v) == string && size(" + suffixes(e + ".v.trim()") + ") > 0",
                          f, f + ".valid && " + f + ".sign > 0", n) +
                   ".map(" + f + ", " + per_entry + ")");
}

std::string QuantityMilliMemory(const Builder& b) {
  Names* n = b.names();
  std::string e = n->Next("e"), f = n->Next("f"), sfx = n->Next("sfx"), num = n->Next("num");
  std::string t = n->Next("t");
  auto last = [](const std::string& text) {
    return "(size(" + text + ") > 0 ? " + text + ".substring(size(" + text + ") - 1) : '')";
  };
  // CheckBytes, on every byte count (the volumes' included). A text of
  // digits and a unit of k or more is whole: only the others are parsed.
  std::string prefilter =
      Fill(
          "($e.c < 0 || $e.name in ['memory', 'ephemeral-storage', 'storage', $vram] || "
          "$e.name.startsWith('hugepages-')) && type($e.v) != null_type && ",
          {{"e", e}, {"vram", Str(b.policy().vram_resource)}}) +
      Let(t, QuantityText(e + ".v"), last(t) + " in ['m', 'u', 'n'] || " + t + ".matches('[.eE]')");
  std::string keep = f + ".valid && (" + last(f + ".text") + " in ['m', 'u', 'n'] || !(" +
                     Whole(f + ".q", n) + "))";
  std::string mi = "quantity(" + num + " + 'Mi')", m = "quantity(" + num + " + 'M')";
  // In statements of their own: the names they take are drawn in order.
  std::string mi_bytes = FormatBytes(mi, n);
  std::string m_bytes = FormatBytes(m, n);
  std::string milli =
      Let(num, f + ".text.substring(0, size(" + f + ".text) - 1)",
          "isQuantity(" + num + " + 'Mi') && isQuantity(" + num +
              " + 'M') ? ' (\"m\" is milli, 1/1000); did you mean ' + " + num + " + 'Mi (' + " +
              mi_bytes + " + ') or ' + " + num + " + 'M (' + " + m_bytes + " + ')?' : ''");
  std::string find =
      Let(sfx, last(f + ".text"),
          Builder::Find(b.Default(), f + ".path",
                        f + ".name + ': ' + " + f + ".text + ' is ' + " +
                            ExactDecimal(f + ".q", n) + " + ' bytes' + (" + sfx + " == 'm' ? " +
                            milli + " : '; a byte count must be whole')"));
  return b.Collect(Judged(e, prefilter, f, keep, n) + ".map(" + f + ", " + find + ")");
}

}  // namespace gpulint::cel
