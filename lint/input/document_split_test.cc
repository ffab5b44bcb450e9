// `gpulint check` and `gpulint fix` cut a stream into documents with the one
// loader (engine/yaml/yaml_loader.cc): fed the same hostile streams, both find the
// same documents, so a fix lands where check reported, and every other byte
// of the file stays as it was.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "lint/cli/cli_test_util.h"

namespace gpulint {
namespace {

using testing::Result;
using testing::Run;
using testing::TempDir;

// A pod whose memory limit check reports (quantity-invalid) and fix repairs.
std::string Pod(const std::string& name, const std::string& nl = "\n") {
  std::string text = "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
                     "}\nspec:\n  containers:\n  - name: c\n    image: busybox\n"
                     "    resources:\n      limits: {memory: 8GiB}\n";
  if (nl == "\n") return text;
  std::string out;
  for (char c : text) out += c == '\n' ? nl : std::string(1, c);
  return out;
}

// "L:C" of each "8GiB" in `text`: where the stream's documents hold them,
// counted as a reader of the file would (after a BOM on line 1).
std::vector<std::string> Expected(const std::string& text) {
  std::vector<std::string> out;
  size_t line = 1, line_begin = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      line_begin = i + 1;
    } else if (text.compare(i, 4, "8GiB") == 0) {
      size_t column = i - line_begin + 1 - (line == 1 && text.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0);
      out.push_back(std::to_string(line) + ":" + std::to_string(column));
    }
  }
  return out;
}

// "L:C" of each line of `output` about `name` that ends in [quantity-invalid].
std::vector<std::string> Reported(const std::string& output, const std::string& name) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < output.size()) {
    size_t end = output.find('\n', at);
    if (end == std::string::npos) end = output.size();
    std::string line = output.substr(at, end - at);
    at = end + 1;
    const std::string tag = "[quantity-invalid]";
    if (line.rfind(name + ":", 0) != 0 || line.size() < tag.size() ||
        line.compare(line.size() - tag.size(), tag.size(), tag) != 0)
      continue;
    size_t from = name.size() + 1;
    size_t colon = line.find(':', line.find(':', from) + 1);
    out.push_back(line.substr(from, colon - from));
  }
  return out;
}

// `text` with each 8GiB repaired: the first `json_like` of them sit in
// documents that open with "{", which the editor keeps JSON ("8Gi").
std::string Replaced(std::string text, size_t json_like) {
  size_t n = 0;
  for (size_t i = text.find("8GiB"); i != std::string::npos; i = text.find("8GiB", i))
    text.replace(i, 4, n++ < json_like ? "\"8Gi\"" : "8Gi");
  return text;
}

TEST_CASE("check and fix cut hostile streams into the same documents", "[cli][fix][split]") {
  const std::string cm_script =
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: s}\ndata:\n  run.sh: |\n"
      "    echo one\n    ---\n    ...\n    --- not a marker\n    %YAML not a directive\n"
      "  other: x\n";
  struct Case {
    const char* what;
    std::string text;
    size_t json_like = 0;
  };
  for (const Case& c : std::vector<Case>{
           {"a BOM", "\xEF\xBB\xBF" + Pod("a") + "---\n" + Pod("b")},
           {"marker-like lines inside a block scalar",
            cm_script + Pod("a").replace(0, 0, "---\n") + "---\n" +
                "apiVersion: v1\nkind: ConfigMap\ndata:\n  x: |\n    ---\n    y\n---\n" + Pod("b")},
           {"... end markers", Pod("a") + "...\n# between\n---\n" + Pod("b") + "...\n" + Pod("c")},
           {"CRLF line ends", Pod("a", "\r\n") + "---\r\n" + Pod("b", "\r\n")},
           {"a document of comments only",
            Pod("a") + "---\n# nothing here\n# at all\n---\n" + Pod("b") + "---\n"},
           {"no newline at the end", Pod("a") + "---\n" + Pod("b").substr(0, Pod("b").size() - 1)},
           {"content on the marker line",
            "--- {apiVersion: v1, kind: Pod, metadata: {name: a}, spec: {containers: [{name: c, "
            "image: busybox, resources: {limits: {memory: 8GiB}}}]}}\n--- \n" +
                Pod("b"),
            1},
           {"directives", "%YAML 1.1\n---\n" + Pod("a") + "...\n%YAML 1.1\n%TAG ! tag:x,2024:\n---\n" +
                              Pod("b") + "%YAML 1.1\n---\n" + Pod("c") +
                              "---\n# no content before the directive\n%YAML 1.1\n---\n" + Pod("d")},
       }) {
    INFO(c.what);
    TempDir dir;
    std::string file = dir.Write("stream.yaml", c.text);
    std::vector<std::string> expected = Expected(c.text);
    REQUIRE(expected.size() >= 2);

    Result check = Run({"check", file});
    Result piped = Run({"check", "-"}, file);
    Result fix = Run({"fix", file});
    INFO(check.out << check.err << fix.err);
    CHECK(Reported(check.out, file) == expected);
    CHECK(Reported(piped.out, "<stdin>") == expected);
    CHECK(Reported(fix.err, file) == expected);
    // Nothing but the repaired values changes, markers and line ends included.
    CHECK(fix.out == Replaced(c.text, c.json_like));
  }
}

}  // namespace
}  // namespace gpulint
