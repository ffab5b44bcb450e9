// Which template line wrote each line of a chart's `helm template` output,
// found by asking helm rather than by guessing.
//
// The chart is copied to a temporary directory, and every line of its
// templates (its own and its unpacked subcharts', helpers included) that
// holds no template action and is not inside one gets a YAML comment at its
// end: " #gpulint-NONCE:FILE:LINE". helm renders the copy with the same
// arguments. A comment adds no line and changes no value, so the two outputs
// have the same lines, and a line of the first output holds text that
// template line wrote exactly where the second holds its mark. A rendered
// position is placed in the template only when:
//   - both outputs have as many lines, and that line is the second's with its
//     marks taken out, character for character;
//   - a mark on it names a template line whose text (or that text without
//     its indentation, when a '-}}' before it took the indentation away) ends
//     right where the mark is;
//   - the position lies inside that text.
// So it names the line that wrote the text at that position, or nothing: a
// value an action wrote (from values, an include, toYaml) has no mark and is
// never placed on a literal line that happens to read the same. Anything
// that goes wrong (no copy, a render that fails or differs) places nothing.
#ifndef GPULINT_LINT_INPUT_TEMPLATE_LINES_H_
#define GPULINT_LINT_INPUT_TEMPLATE_LINES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/subprocess.h"
#include "engine/base/value.h"

namespace gpulint {

class TemplateLines {
 public:
  // Renders the chart at `chart` again from a marked copy: `argv` as the
  // first render ran, with `chart` at argv[chart_arg]; `output` is what that
  // render printed.
  static TemplateLines Build(std::vector<std::string> argv, size_t chart_arg,
                             const std::string& chart, std::string_view output,
                             const ToolLimits& limits);

  // The template file (under the chart's path as given) and the 1-based line
  // and column there that wrote column `column` (1-based) of line `line`
  // (0-based) of the output; false when none is known.
  bool Find(size_t line, uint32_t column, std::string* file, Mark* at) const;

 private:
  // Text a template line wrote onto an output line, columns [begin, end).
  struct Segment {
    size_t file;
    uint32_t line;        // in the template, 1-based
    uint32_t begin, end;  // in the output line, 0-based
    uint32_t indent;      // columns of the template line's text not written
  };
  std::vector<std::string> files_;             // the templates, as shown
  std::vector<std::vector<Segment>> by_line_;  // by output line
};

}  // namespace gpulint

#endif  // GPULINT_LINT_INPUT_TEMPLATE_LINES_H_
