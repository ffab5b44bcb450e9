// Anchors, aliases and merge keys, through the loader's public API.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "engine/yaml/loader.h"

namespace gpulint {
namespace {

// The single document of `text` as JSON, or "error <file:line:col: message>".
std::string LoadOne(const std::string& text, const LoadLimits& limits = {}) {
  std::vector<Document> docs;
  Error io;
  REQUIRE(LoadYamlString(
      text, "m.yaml", limits,
      [&](Document&& d) {
        docs.push_back(std::move(d));
        return true;
      },
      &io));
  REQUIRE(docs.size() == 1);
  return docs[0].ok ? ToJson(docs[0].root) : "error " + docs[0].error.ToString();
}

TEST_CASE("aliases copy the anchored node", "[loader][yaml]") {
  const char* text =
      "env: &env\n"
      "  - {name: A, value: \"1\"}\n"
      "one: *env\n"
      "two: [*env, &s scalar, *s]\n"
      "redefined: &s other\n"
      "later: *s\n";
  CHECK(LoadOne(text) ==
        R"({"env":[{"name":"A","value":"1"}],"one":[{"name":"A","value":"1"}],)"
        R"("two":[[{"name":"A","value":"1"}],"scalar","scalar"],"redefined":"other",)"
        R"("later":"other"})");

  std::vector<Document> docs;
  Error io;
  REQUIRE(LoadYamlString(
      text, "m.yaml", {},
      [&](Document&& d) {
        docs.push_back(std::move(d));
        return true;
      },
      &io));
  // The copy sits where the alias is; what is inside keeps the anchor's positions.
  const Value& one = *docs[0].root.Find("one");
  CHECK(one.mark().line == 3);
  CHECK(one.mark().column == 6);
  CHECK(one.items()[0].Find("name")->mark().line == 2);
}

TEST_CASE("merge keys", "[loader][yaml]") {
  const char* text =
      "base: &base {cpu: 1, memory: 2Gi}\n"
      "extra: &extra {memory: 4Gi, gpu: 1}\n"
      "explicit-wins:\n"
      "  cpu: 2\n"
      "  <<: *base\n"
      "earlier-wins:\n"
      "  <<: [*extra, *base]\n"
      "inline: {<<: {a: 1}, b: 2}\n"
      "two-merge-keys: {<<: {a: 1}, <<: {a: 2, c: 3}}\n"
      "quoted: {\"<<\": {a: 1}}\n"
      "tagged: {!!merge <<: {a: 1}}\n";
  CHECK(LoadOne(text) == R"({"base":{"cpu":1,"memory":"2Gi"},"extra":{"memory":"4Gi","gpu":1},)"
                         R"("explicit-wins":{"cpu":2,"memory":"2Gi"},)"
                         R"("earlier-wins":{"memory":"4Gi","gpu":1,"cpu":1},)"
                         R"("inline":{"b":2,"a":1},"two-merge-keys":{"a":1,"c":3},)"
                         R"("quoted":{"<<":{"a":1}},"tagged":{"a":1}})");
}

TEST_CASE("merge keys: what cannot be merged", "[loader][yaml]") {
  CHECK(LoadOne("a: {<<: 5}\n") ==
        "error m.yaml:1:9: the value of the merge key \"<<\" must be a mapping or a sequence "
        "of mappings");
  CHECK(LoadOne("a: &a {x: 1}\nb:\n  <<: [*a, [1]]\n") ==
        "error m.yaml:3:7: the value of the merge key \"<<\" must be a mapping or a sequence "
        "of mappings");
  // A merged key cannot make an explicit one a duplicate, but explicit keys can.
  CHECK(LoadOne("a: {<<: {x: 1}, x: 2, x: 3}\n") ==
        "error m.yaml:1:23: duplicate key \"x\" (first at line 1)");
}

TEST_CASE("aliases to a node still being built", "[loader][yaml]") {
  CHECK(LoadOne("a: &a [1, *a]\n") ==
        "error m.yaml:1:11: alias *a refers to a node that contains it");
  CHECK(LoadOne("a: &a\n  b:\n    c: *a\n") ==
        "error m.yaml:3:8: alias *a refers to a node that contains it");
  CHECK(LoadOne("a: &a {<<: *a}\n") ==
        "error m.yaml:1:12: alias *a refers to a node that contains it");
}

TEST_CASE("alias expansion is counted and bounded", "[loader][yaml]") {
  // Each *a copies three nodes: the sequence and its two items.
  const std::string text = "a: &a [p, q]\nb: [*a, *a, *a]\n";
  LoadLimits limits;
  limits.max_alias_expansion = 9;
  CHECK(LoadOne(text, limits) == R"({"a":["p","q"],"b":[["p","q"],["p","q"],["p","q"]]})");
  limits.max_alias_expansion = 8;
  CHECK(LoadOne(text, limits) == "error m.yaml:2:13: aliases expand to more than 8 nodes");

  // Billion laughs: nine levels of nine aliases would be 9^9 strings.
  std::string bomb = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  const std::string names = "abcdefghi";
  for (size_t i = 1; i < names.size(); ++i) {
    bomb += names.substr(i, 1) + ": &" + names.substr(i, 1) + " [";
    for (int k = 0; k < 9; ++k) bomb += (k ? ", *" : "*") + names.substr(i - 1, 1);
    bomb += "]\n";
  }
  CHECK(LoadOne(bomb) == "error m.yaml:6:8: aliases expand to more than 100000 nodes");
}

TEST_CASE("anchors inside anchors count as expansion", "[loader][yaml]") {
  // Storing &inner again inside &outer's copy is what nesting multiplies.
  const std::string text = "outer: &outer [&inner [1, 2], 3]\n";
  LoadLimits limits;
  limits.max_alias_expansion = 3;
  CHECK(LoadOne(text, limits) == R"({"outer":[[1,2],3]})");
  limits.max_alias_expansion = 2;
  CHECK(LoadOne(text, limits) == "error m.yaml:1:16: aliases expand to more than 2 nodes");
}

}  // namespace
}  // namespace gpulint
