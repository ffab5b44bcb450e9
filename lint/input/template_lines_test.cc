// TemplateLines: a rendered position is placed on the template line that
// wrote it, or nowhere. helm is stood in for by small scripts that print a
// template as a render would, so each case shows one thing; tests/sources_test.sh
// runs the real helm on a chart.
#include "lint/input/template_lines.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "common/subprocess.h"
#include "tests/temp_dir.h"

namespace gpulint {
namespace {

// A chart "c" with templates/a.yaml holding `text`, and a stand-in for helm
// ("$2" is the chart) that prints what `script` prints.
struct Chart {
  Chart(const std::string& text, const std::string& script) {
    std::filesystem::create_directories(dir.Path("c/templates"));
    dir.Write("c/Chart.yaml", "apiVersion: v2\nname: c\nversion: 1.0.0\n");
    dir.Write("c/templates/a.yaml", text);
    tool = dir.Write("helm", "#!/bin/sh\n" + script + "\n");
    REQUIRE(chmod(tool.c_str(), 0755) == 0);
  }
  // Renders the chart as it is, then builds the lines from a marked copy.
  TemplateLines Lines() {
    std::vector<std::string> argv = {tool, "template", dir.Path("c")};
    ToolRun run;
    std::string error;
    REQUIRE(RunTool(argv, ToolLimits{}, &run, &error));
    REQUIRE(run.ok());
    return TemplateLines::Build(argv, 2, dir.Path("c"), run.out, ToolLimits{});
  }
  TempDir dir;
  std::string tool;
};

// "file:line:col" where the template has (line, column) of the output, or "".
std::string Found(const TemplateLines& lines, size_t line, uint32_t column) {
  std::string file;
  Mark at;
  if (!lines.Find(line, column, &file, &at)) return "";
  return std::filesystem::path(file).filename().string() + ":" + std::to_string(at.line) + ":" +
         std::to_string(at.column);
}

TEST_CASE("template lines: a line with no action is found where it is", "[render]") {
  Chart chart("kind: Pod\nspec:\n  limits: {x: {{ .Values.x }}}\n  memory: 4Gi\n",
              "cat \"$2/templates/a.yaml\"");
  TemplateLines lines = chart.Lines();
  CHECK(Found(lines, 0, 1) == "a.yaml:1:1");
  CHECK(Found(lines, 3, 11) == "a.yaml:4:11");
  CHECK(Found(lines, 3, 14) == "");  // past the line's text
  CHECK(Found(lines, 2, 3) == "");   // a line with an action holds what the action wrote
  CHECK(Found(lines, 4, 1) == "");   // no such line
}

TEST_CASE("template lines: a line written twice (a range) is found both times", "[render]") {
  Chart chart("- name: a\n  gpu: 1\n", "cat \"$2/templates/a.yaml\" \"$2/templates/a.yaml\"");
  TemplateLines lines = chart.Lines();
  CHECK(Found(lines, 1, 3) == "a.yaml:2:3");
  CHECK(Found(lines, 3, 3) == "a.yaml:2:3");
}

TEST_CASE("template lines: text an action wrote is not put on a line that reads the same",
          "[render]") {
  // if/else: the literal line 2 is not rendered; the action on line 4 writes
  // the same text. Matching text to the template would name line 2.
  Chart chart(
      "{{- if .Values.a }}\n    memory: 4Gi\n{{- else }}\n    memory: {{ .Values.m }}\n"
      "{{- end }}\n",
      "sed -n '4s/{{ .Values.m }}/4Gi/p' \"$2/templates/a.yaml\"");
  TemplateLines lines = chart.Lines();
  CHECK(Found(lines, 0, 13) == "");
}

TEST_CASE("template lines: indentation a '-}}' took away is counted", "[render]") {
  // What '{{ x -}}' before a line does: the line joins it, less its indent.
  Chart chart("{{ x -}}\n    memory: 4Gi\n",
              "printf 'x: '; sed -n '2s/^ *//p' \"$2/templates/a.yaml\"");
  TemplateLines lines = chart.Lines();
  CHECK(Found(lines, 0, 4) == "a.yaml:2:5");
  CHECK(Found(lines, 0, 12) == "a.yaml:2:13");
  CHECK(Found(lines, 0, 1) == "");  // what the action wrote
}

TEST_CASE("template lines: a render that differs from the first places nothing", "[render]") {
  // One more line once the template holds a mark: no line is placed.
  Chart chart("kind: Pod\nspec: {}\n",
              "cat \"$2/templates/a.yaml\"; grep -q gpulint \"$2/templates/a.yaml\" && echo extra"
              "; true");
  TemplateLines lines = chart.Lines();
  CHECK(Found(lines, 0, 1) == "");
  // A render that fails.
  Chart failing("kind: Pod\n",
                "grep -q gpulint \"$2/templates/a.yaml\" && exit 1; cat \"$2/templates/a.yaml\"");
  CHECK(Found(failing.Lines(), 0, 1) == "");
}

TEST_CASE("template lines: the chart itself is never written", "[render]") {
  Chart chart("kind: Pod\n", "cat \"$2/templates/a.yaml\"");
  // A template that is a link leads out of the copy: left unmarked.
  chart.dir.Write("outside.yaml", "kind: Pod\n");
  REQUIRE(symlink(chart.dir.Path("outside.yaml").c_str(),
                  chart.dir.Path("c/templates/b.yaml").c_str()) == 0);
  TemplateLines lines = chart.Lines();
  CHECK(Found(lines, 0, 1) == "a.yaml:1:1");
  std::ifstream a(chart.dir.Path("c/templates/a.yaml")), b(chart.dir.Path("outside.yaml"));
  std::string a_text((std::istreambuf_iterator<char>(a)), {}),
      b_text((std::istreambuf_iterator<char>(b)), {});
  CHECK(a_text == "kind: Pod\n");
  CHECK(b_text == "kind: Pod\n");
}

}  // namespace
}  // namespace gpulint
