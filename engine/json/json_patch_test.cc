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
  INFO(error.ToString());
  REQUIRE(ParseJson(text, 64, &v, &error));
  return v;
}

PatchOp Op(std::string op, std::string path, std::string_view value_json = "null") {
  return PatchOp{std::move(op), std::move(path), Json(value_json)};
}

// Applies `ops` to `doc_json`; returns the result as compact JSON, or
// "error: MESSAGE" (and then checks the document was left as it was).
std::string Apply(std::string_view doc_json, const std::vector<PatchOp>& ops) {
  Value doc = Json(doc_json);
  std::string before = ToJson(doc);
  Error error;
  if (ApplyPatch(ops, &doc, &error)) return ToJson(doc);
  CHECK(ToJson(doc) == before);
  return "error: " + error.ToString();
}

TEST_CASE("EscapePointerSegment escapes ~ then /", "[json-patch]") {
  struct Case {
    const char* in;
    const char* out;
  };
  for (const Case& c : std::vector<Case>{{"", ""},
                                         {"memory", "memory"},
                                         {"gpulint.io/vram", "gpulint.io~1vram"},
                                         {"a~b", "a~0b"},
                                         {"~1", "~01"},
                                         {"/~", "~1~0"},
                                         {"a//b", "a~1~1b"}}) {
    INFO(c.in);
    CHECK(EscapePointerSegment(c.in) == c.out);
  }
}

TEST_CASE("PatchToJson writes ops in order, values as JSON, remove without value", "[json-patch]") {
  CHECK(PatchToJson({}) == "[]");
  std::vector<PatchOp> ops = {
      Op("add", "/metadata/annotations/gpulint.io~1headroom-added", R"("{\"cuda\":\"16Gi\"}")"),
      Op("replace", "/spec/containers/0/resources/limits/memory", R"("516Gi")"),
      Op("add", "/spec/containers/1/env", R"([{"name":"NVIDIA_VISIBLE_DEVICES","value":"void"}])"),
      Op("remove", "/spec/a\"b"),
      Op("test", "/spec/replicas", "2"),
  };
  CHECK(PatchToJson(ops) ==
        R"([{"op":"add","path":"/metadata/annotations/gpulint.io~1headroom-added",)"
        R"("value":"{\"cuda\":\"16Gi\"}"},)"
        R"({"op":"replace","path":"/spec/containers/0/resources/limits/memory","value":"516Gi"},)"
        R"({"op":"add","path":"/spec/containers/1/env",)"
        R"("value":[{"name":"NVIDIA_VISIBLE_DEVICES","value":"void"}]},)"
        R"({"op":"remove","path":"/spec/a\"b"},)"
        R"({"op":"test","path":"/spec/replicas","value":2}])");
}

TEST_CASE("PatchToJson output parses back as the same ops", "[json-patch]") {
  std::vector<PatchOp> ops = {Op("add", "/a~1b/~0c", R"({"k":[1,"x",true,null]})")};
  Value parsed = Json(PatchToJson(ops));
  REQUIRE(parsed.is_sequence());
  REQUIRE(parsed.items().size() == 1);
  const Value& op = parsed.items()[0];
  CHECK(op.StringAt("op") == "add");
  CHECK(op.StringAt("path") == "/a~1b/~0c");
  REQUIRE(op.Find("value"));
  CHECK(ToJson(*op.Find("value")) == R"({"k":[1,"x",true,null]})");
}

TEST_CASE("add: new member, existing member, array insert and append, root", "[json-patch]") {
  CHECK(Apply(R"({"a":1})", {Op("add", "/b", R"("x")")}) == R"({"a":1,"b":"x"})");
  // RFC 6902 4.1: adding an existing member replaces its value.
  CHECK(Apply(R"({"a":1,"b":2})", {Op("add", "/a", "3")}) == R"({"a":3,"b":2})");
  CHECK(Apply(R"({"a":[1,2]})", {Op("add", "/a/0", "0")}) == R"({"a":[0,1,2]})");
  CHECK(Apply(R"({"a":[1,2]})", {Op("add", "/a/1", "9")}) == R"({"a":[1,9,2]})");
  CHECK(Apply(R"({"a":[1,2]})", {Op("add", "/a/2", "3")}) == R"({"a":[1,2,3]})");
  CHECK(Apply(R"({"a":[1,2]})", {Op("add", "/a/-", "3")}) == R"({"a":[1,2,3]})");
  CHECK(Apply(R"({"a":[]})", {Op("add", "/a/-", R"({"n":1})")}) == R"({"a":[{"n":1}]})");
  CHECK(Apply(R"({"a":1})", {Op("add", "", "[1]")}) == "[1]");
  // A whole map added where none was: what the mutations do for missing maps.
  CHECK(Apply(R"({"spec":{}})", {Op("add", "/spec/resources", R"({"limits":{"x/y":"1"}})")}) ==
        R"({"spec":{"resources":{"limits":{"x/y":"1"}}}})");
}

TEST_CASE("escaped segments address keys with / and ~", "[json-patch]") {
  CHECK(Apply(R"({"m":{}})", {Op("add", "/m/gpulint.io~1vram", R"("32Gi")")}) ==
        R"({"m":{"gpulint.io/vram":"32Gi"}})");
  CHECK(Apply(R"({"m":{}})", {Op("add", "/m/a~0b", "1")}) == R"({"m":{"a~b":1}})");
  // "~01" is "~1" (the ~0 is read first), not "/".
  CHECK(Apply(R"({"m":{}})", {Op("add", "/m/~01", "1")}) == R"({"m":{"~1":1}})");
  CHECK(Apply(R"({"a/b":{"c~d":1}})", {Op("replace", "/a~1b/c~0d", "2")}) ==
        R"({"a/b":{"c~d":2}})");
  CHECK(Apply(R"({"":{"":1}})", {Op("replace", "//", "2")}) == R"({"":{"":2}})");
}

TEST_CASE("remove and replace members and items", "[json-patch]") {
  CHECK(Apply(R"({"a":1,"b":2,"c":3})", {Op("remove", "/b")}) == R"({"a":1,"c":3})");
  CHECK(Apply(R"({"a":[1,2,3]})", {Op("remove", "/a/0")}) == R"({"a":[2,3]})");
  CHECK(Apply(R"({"a":[1,2,3]})", {Op("remove", "/a/2")}) == R"({"a":[1,2]})");
  CHECK(Apply(R"({"a":1,"b":2})", {Op("replace", "/a", R"({"x":[]})")}) ==
        R"({"a":{"x":[]},"b":2})");
  CHECK(Apply(R"({"a":[1,2]})", {Op("replace", "/a/1", "null")}) == R"({"a":[1,null]})");
  CHECK(Apply(R"({"a":1})", {Op("replace", "", R"("doc")")}) == R"("doc")");
}

TEST_CASE("test compares as JSON: member order free, numbers by value", "[json-patch]") {
  const char* doc = R"({"a":{"x":1,"y":[true,"s",null]},"n":1})";
  CHECK(Apply(doc, {Op("test", "/a", R"({"y":[true,"s",null],"x":1})")}) == ToJson(Json(doc)));
  CHECK(Apply(doc, {Op("test", "/n", "1.0")}) == ToJson(Json(doc)));
  CHECK(Apply(doc, {Op("test", "", doc)}) == ToJson(Json(doc)));
  CHECK(Apply(doc, {Op("test", "/a/y/1", R"("s")"), Op("add", "/b", "2")}) ==
        R"({"a":{"x":1,"y":[true,"s",null]},"n":1,"b":2})");

  CHECK(
      Apply(doc, {Op("test", "/a/y", R"([true,"s"])")}) ==
      R"(error: ops[0] (test "/a/y"): test failed: /a/y is [true,"s",null], expected [true,"s"])");
  CHECK(Apply(doc, {Op("test", "/n", R"("1")")}) ==
        R"(error: ops[0] (test "/n"): test failed: /n is 1, expected "1")");
  CHECK(Apply(doc, {Op("test", "/a/y/2", "false")}) ==
        R"(error: ops[0] (test "/a/y/2"): test failed: /a/y/2 is null, expected false)");
  CHECK(Apply("[1]", {Op("test", "", "[2]")}) ==
        R"(error: ops[0] (test ""): test failed: the document is [1], expected [2])");
}

TEST_CASE("errors name the op, the path and what is wrong, word for word", "[json-patch]") {
  struct Case {
    const char* doc;
    PatchOp op;
    const char* error;
  };
  const std::vector<Case> cases = {
      {R"({"spec":{}})", Op("add", "/spec/resources/limits/memory", R"("1Gi")"),
       R"(ops[0] (add "/spec/resources/limits/memory"): path not found: )"
       R"(no member "resources" in /spec)"},
      {R"({"a":1})", Op("replace", "/b", "1"),
       R"(ops[0] (replace "/b"): path not found: no member "b" in the document root)"},
      {R"({"a":1})", Op("remove", "/b"),
       R"(ops[0] (remove "/b"): path not found: no member "b" in the document root)"},
      {R"({"a":[1,2]})", Op("add", "/a/3", "1"),
       R"(ops[0] (add "/a/3"): index out of range: 3 in /a (2 items))"},
      {R"({"a":[1]})", Op("replace", "/a/1", "1"),
       R"(ops[0] (replace "/a/1"): index out of range: 1 in /a (1 item))"},
      {R"({"a":[]})", Op("remove", "/a/0"),
       R"(ops[0] (remove "/a/0"): index out of range: 0 in /a (0 items))"},
      {R"({"a":[[1]]})", Op("add", "/a/5/0", "1"),
       R"(ops[0] (add "/a/5/0"): index out of range: 5 in /a (1 item))"},
      {R"({"a":[1,2]})", Op("add", "/a/01", "1"),
       R"(ops[0] (add "/a/01"): invalid array index "01" in /a)"},
      {R"({"a":[1,2]})", Op("add", "/a/x", "1"),
       R"(ops[0] (add "/a/x"): invalid array index "x" in /a)"},
      {R"({"a":[1,2]})", Op("add", "/a/-1", "1"),
       R"(ops[0] (add "/a/-1"): invalid array index "-1" in /a)"},
      {R"({"a":[1,2]})", Op("replace", "/a/-", "1"),
       R"(ops[0] (replace "/a/-"): index "-" (past the end) in /a is only valid for add)"},
      {R"({"a":[1,2]})", Op("remove", "/a/-"),
       R"(ops[0] (remove "/a/-"): index "-" (past the end) in /a is only valid for add)"},
      {R"({"a":"text"})", Op("add", "/a/b", "1"),
       R"(ops[0] (add "/a/b"): path not found: /a is a scalar (string), not an object or array)"},
      {R"({"a":{"b":2}})", Op("add", "/a/b/c/d", "1"),
       R"(ops[0] (add "/a/b/c/d"): path not found: /a/b is a scalar (int), not an object or array)"},
      {R"({"a":1})", Op("add", "a", "1"),
       R"(ops[0] (add "a"): a JSON pointer must be empty or start with "/")"},
      {R"({"a":1})", Op("add", "/a~2", "1"),
       R"(ops[0] (add "/a~2"): "~2" is not an escape of a JSON pointer )"
       R"(("~0" is "~", "~1" is "/"))"},
      {R"({"a":1})", Op("add", "/a~", "1"),
       R"(ops[0] (add "/a~"): "~" is not an escape of a JSON pointer ("~0" is "~", "~1" is "/"))"},
      {R"({"a":1})", Op("move", "/b"),
       R"(ops[0] (move "/b"): unknown op "move" (supported: add, remove, replace, test))"},
      {R"({"a":1})", Op("remove", ""), R"(ops[0] (remove ""): cannot remove the document root)"},
  };
  for (const Case& c : cases) {
    INFO(c.doc << " " << c.op.op << " " << c.op.path);
    CHECK(Apply(c.doc, {c.op}) == std::string("error: ") + c.error);
  }
}

TEST_CASE("a failing op leaves the document as it was, earlier ops included", "[json-patch]") {
  Value doc = Json(R"({"a":[1],"b":{}})");
  Error error;
  std::vector<PatchOp> ops = {Op("add", "/a/-", "2"), Op("add", "/b/c", "3"),
                              Op("remove", "/missing"), Op("add", "/d", "4")};
  CHECK_FALSE(ApplyPatch(ops, &doc, &error));
  CHECK(error.ToString() ==
        R"(ops[2] (remove "/missing"): path not found: no member "missing" in the document root)");
  CHECK(ToJson(doc) == R"({"a":[1],"b":{}})");

  ops.erase(ops.begin() + 2);
  REQUIRE(ApplyPatch(ops, &doc, &error));
  CHECK(ToJson(doc) == R"({"a":[1,2],"b":{"c":3},"d":4})");
}

TEST_CASE("ops see the results of the ops before them", "[json-patch]") {
  // RFC 6902 appendix A.16 style: an array built, then addressed by index.
  CHECK(Apply("{}", {Op("add", "/env", "[]"), Op("add", "/env/-", R"({"name":"A"})"),
                     Op("add", "/env/0/value", R"("1")"), Op("test", "/env/0/value", R"("1")")}) ==
        R"({"env":[{"name":"A","value":"1"}]})");
  CHECK(Apply(R"({"a":[1,2,3]})", {Op("remove", "/a/0"), Op("remove", "/a/0")}) == R"({"a":[3]})");
}

}  // namespace
}  // namespace gpulint
