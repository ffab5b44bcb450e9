#include "engine/yaml_edit/yaml_edit.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "engine/json/json_parser.h"
#include "engine/mutate/mutate.h"
#include "engine/yaml/loader.h"

namespace gpulint {
namespace {

Value Json(std::string_view text) {
  Value v;
  Error error;
  INFO(text);
  REQUIRE(ParseJson(text, 64, &v, &error));
  return v;
}

PatchOp Op(std::string op, std::string path, std::string_view value_json = "null") {
  return PatchOp{std::move(op), std::move(path), Json(value_json)};
}

// The edited text, or "error: LINE:COL: MESSAGE".
std::string Edit(std::string_view text, const std::vector<PatchOp>& ops) {
  std::string out = "unchanged";
  Error error;
  if (EditYamlDocument(text, ops, &out, &error)) return out;
  CHECK(out == "unchanged");
  return "error: " + error.ToString();
}

TEST_CASE("yaml edit: a replaced scalar keeps its quoting, the rest stays byte for byte",
          "[yaml-edit]") {
  const std::string text =
      "# keep me\n"
      "a:   1Gi    # aligned comment\n"
      "b: '2Gi'\n"
      "c: \"3Gi\"\n"
      "d:\t{x: 4Gi}\n";
  CHECK(Edit(text, {Op("replace", "/a", R"("9Gi")"), Op("replace", "/b", R"("8Gi")"),
                    Op("replace", "/c", R"("7Gi")"), Op("replace", "/d/x", R"("6Gi")")}) ==
        "# keep me\n"
        "a:   9Gi    # aligned comment\n"
        "b: '8Gi'\n"
        "c: \"7Gi\"\n"
        "d:\t{x: 6Gi}\n");
}

TEST_CASE("yaml edit: strings that would read as something else are quoted", "[yaml-edit]") {
  struct Case {
    const char* value_json;
    const char* written;
  };
  const Case cases[] = {
      {R"("8")", "'8'"},
      {R"("yes")", "'yes'"},
      {R"("null")", "'null'"},
      {R"("a: b")", "'a: b'"},
      {R"("it's")", "it's"},
      {R"("'q'")", "'''q'''"},
      {R"("two\nlines")", "\"two\\nlines\""},
      {R"("")", "''"},
      {R"("#x")", "'#x'"},
      {R"("{\"c\":\"16Gi\"}")", "'{\"c\":\"16Gi\"}'"},
      {"8", "8"},
      {"true", "true"},
      {R"("void")", "void"},
      {R"("1.5e3")", "'1.5e3'"},
  };
  for (const Case& c : cases) {
    INFO(c.value_json);
    CHECK(Edit("k: old\n", {Op("replace", "/k", c.value_json)}) ==
          std::string("k: ") + c.written + "\n");
  }
}

TEST_CASE("yaml edit: a new member goes after the last one, at the mapping's indentation",
          "[yaml-edit]") {
  const std::string text =
      "spec:\n"
      "  containers:\n"
      "  - name: a   # first\n"
      "    image: x\n"
      "    # a comment that stays where it is\n"
      "  - name: b\n"
      "status: {}\n";
  CHECK(Edit(text, {Op("add", "/spec/containers/0/env",
                       R"([{"name":"NVIDIA_VISIBLE_DEVICES","value":"void"}])")}) ==
        "spec:\n"
        "  containers:\n"
        "  - name: a   # first\n"
        "    image: x\n"
        "    env:\n"
        "    - name: NVIDIA_VISIBLE_DEVICES\n"
        "      value: void\n"
        "    # a comment that stays where it is\n"
        "  - name: b\n"
        "status: {}\n");
}

TEST_CASE("yaml edit: new maps follow the document's indentation", "[yaml-edit]") {
  const std::string text =
      "spec:\n"
      "    containers:\n"
      "        -   name: a\n"
      "            image: x";  // no newline at the end
  CHECK(Edit(text, {Op("add", "/spec/containers/0/resources",
                       R"({"limits":{"gpulint.io/vram":"48Gi"},"requests":{"memory":"1Gi"}})")}) ==
        "spec:\n"
        "    containers:\n"
        "        -   name: a\n"
        "            image: x\n"
        "            resources:\n"
        "                limits:\n"
        "                    gpulint.io/vram: 48Gi\n"
        "                requests:\n"
        "                    memory: 1Gi\n");
}

TEST_CASE("yaml edit: flow mappings and sequences grow inside their brackets", "[yaml-edit]") {
  CHECK(Edit("r: {memory: 1Gi}\n", {Op("add", "/r/gpulint.io~1vram", R"("12G")")}) ==
        "r: {memory: 1Gi, gpulint.io/vram: 12G}\n");
  CHECK(Edit("r: {}\n", {Op("add", "/r/a", R"({"b":[1,"x y"]})")}) == "r: {a: {b: [1, x y]}}\n");
  CHECK(Edit("r: { }\n", {Op("add", "/r/a", R"("b,c")")}) == "r: {a: 'b,c' }\n");
  CHECK(Edit("l: [a, b]\n", {Op("add", "/l/-", R"("c")")}) == "l: [a, b, c]\n");
  CHECK(Edit("l: []\n", {Op("add", "/l/0", R"("c")")}) == "l: [c]\n");
  CHECK(Edit("l: [a, b]\n", {Op("add", "/l/1", R"("c")")}) == "l: [a, c, b]\n");
}

TEST_CASE("yaml edit: a JSON document stays JSON, one member per line where it was",
          "[yaml-edit]") {
  const std::string text =
      "{\n"
      "    \"metadata\": {\n"
      "        \"name\": \"x\"\n"
      "    },\n"
      "    \"spec\": {\"a\": 1}\n"
      "}\n";
  CHECK(Edit(text, {Op("add", "/metadata/annotations", R"({"gpulint.io/x":"{\"c\":\"8Gi\"}"})"),
                    Op("add", "/spec/b", R"(["void",true])")}) ==
        "{\n"
        "    \"metadata\": {\n"
        "        \"name\": \"x\",\n"
        "        \"annotations\": {\"gpulint.io/x\": \"{\\\"c\\\":\\\"8Gi\\\"}\"}\n"
        "    },\n"
        "    \"spec\": {\"a\": 1, \"b\": [\"void\", true]}\n"
        "}\n");
}

TEST_CASE("yaml edit: appending to a block sequence, in the style of its items", "[yaml-edit]") {
  CHECK(Edit("env:\n- {name: A, value: b}\n",
             {Op("add", "/env/-", R"({"name":"N","value":"void"})")}) ==
        "env:\n- {name: A, value: b}\n- {name: 'N', value: void}\n");
  CHECK(Edit("env:\n  - name: A\n    value: |\n      two\n      lines\n\nnext: 1\n",
             {Op("add", "/env/-", R"({"name":"NV","value":"void"})")}) ==
        "env:\n  - name: A\n    value: |\n      two\n      lines\n  - name: NV\n    value: void\n"
        "\nnext: 1\n");
  CHECK(Edit("l:\n- a\n- b\n", {Op("add", "/l/1", R"("c")")}) == "l:\n- a\n- c\n- b\n");
}

TEST_CASE("yaml edit: a null member becomes a block collection under its key", "[yaml-edit]") {
  CHECK(Edit("c:\n  resources:\n  name: x\n",
             {Op("add", "/c/resources", R"({"limits":{"memory":"1Gi"}})")}) ==
        "c:\n  resources:\n    limits:\n      memory: 1Gi\n  name: x\n");
  CHECK(Edit("c:\n  resources: ~ # none yet\n",
             {Op("add", "/c/resources", R"({"limits":{"memory":"1Gi"}})")}) ==
        "c:\n  resources:\n    limits:\n      memory: 1Gi # none yet\n");
  CHECK(Edit("c:\n  resources:\n", {Op("replace", "/c/resources", R"("x")")}) ==
        "c:\n  resources: x\n");
}

TEST_CASE("yaml edit: CRLF, a byte-order mark and characters beyond ASCII", "[yaml-edit]") {
  CHECK(Edit("a:\r\n  b: 1\r\n", {Op("add", "/a/c", R"({"d":"e"})")}) ==
        "a:\r\n  b: 1\r\n  c:\r\n    d: e\r\n");
  CHECK(Edit("\xEF\xBB\xBFn: 1\n", {Op("add", "/m", "2")}) == "\xEF\xBB\xBFn: 1\nm: 2\n");
  CHECK(Edit("name: \xC3\xA9t\xC3\xA9  # \xE2\x82\xAC\nv: 1Gi\n",
             {Op("replace", "/v", R"("2Gi")")}) ==
        "name: \xC3\xA9t\xC3\xA9  # \xE2\x82\xAC\nv: 2Gi\n");
  CHECK(Edit("k: {\xC3\xA9: 1}\n", {Op("replace", "/k/\xC3\xA9", "2")}) == "k: {\xC3\xA9: 2}\n");
}

TEST_CASE("yaml edit: ops see the edits of the ops before them", "[yaml-edit]") {
  CHECK(Edit("a: 1\n", {Op("add", "/b", "{}"), Op("add", "/b/c", R"("x")"),
                        Op("test", "/b/c", R"("x")"), Op("replace", "/a", "2")}) ==
        "a: 2\nb: {c: x}\n");
}

TEST_CASE("yaml edit: merge keys: members written in the text can be edited and added",
          "[yaml-edit]") {
  const std::string text = "base: &b {k: 1}\nm:\n  <<: *b\n  v: 2\n";
  CHECK(Edit(text, {Op("add", "/m/w", "3"), Op("replace", "/m/v", "4")}) ==
        "base: &b {k: 1}\nm:\n  <<: *b\n  v: 4\n  w: 3\n");
  // Adding a key the merge brings in overrides it, as the tree patch does.
  CHECK(Edit(text, {Op("add", "/m/k", "5")}) == "base: &b {k: 1}\nm:\n  <<: *b\n  v: 2\n  k: 5\n");
}

TEST_CASE("yaml edit: what cannot be edited in place is refused, the text left alone",
          "[yaml-edit]") {
  CHECK(Edit("a: 1\nb: 2\n", {Op("remove", "/a")}) ==
        "error: 1:1: cannot edit /a in place: remove is not supported by the text editor");
  CHECK(Edit("base: &b {x: 1}\nm: *b\n", {Op("add", "/m/y", "2")}) ==
        "error: 2:4: cannot edit /m/y in place: it goes through the alias *b; edit what the "
        "anchor &b holds by hand");
  CHECK(Edit("base: &b {x: 1}\nm: *b\n", {Op("replace", "/base/x", "2")}) ==
        "error: 1:7: cannot edit /base/x in place: it is inside the anchor &b, which the alias "
        "*b shares; the edit would change both");
  CHECK(Edit("base: &b {k: 1}\nm: {<<: *b}\n", {Op("replace", "/m/k", "2")}) ==
        "error: 2:4: cannot edit /m/k in place: \"k\" comes from a merge key (<<); edit it by "
        "hand");
  CHECK(Edit("a: 1\n", {Op("replace", "", "{}")}) ==
        "error: 1:1: cannot edit the document in place: the whole document cannot be replaced "
        "in place");
  // An op that does not apply to the tree fails with ApplyPatch's message.
  CHECK(Edit("a: 1\n", {Op("add", "/b/c", "1")}) ==
        "error: ops[0] (add \"/b/c\"): path not found: no member \"b\" in the document root");
  CHECK(Edit("a: [1\n", {Op("add", "/b", "1")}).rfind("error: 2:1: ", 0) == 0);
}

TEST_CASE("yaml edit: an anchor that no alias uses can be edited", "[yaml-edit]") {
  CHECK(Edit("a: &x {b: 1}\n", {Op("replace", "/a/b", "2")}) == "a: &x {b: 2}\n");
}

}  // namespace
}  // namespace gpulint
