#include "engine/json/json_parser.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/base/value.h"
#include "engine/json/json_tree_builder.h"
#include "engine/yaml/loader.h"
#include "tests/golden.h"

namespace gpulint {
namespace {

// ParseJson's result as compact JSON, or "error <message>".
std::string Parse(std::string_view text, size_t max_depth = 256) {
  Value v;
  Error error;
  if (!ParseJson(text, max_depth, &v, &error)) return "error " + error.ToString();
  return ToJson(v);
}

TEST_CASE("ParseJson: values and the text of numbers", "[json]") {
  CHECK(Parse(R"({"a": [1.50, -0, 1E+3, 18446744073709551615, 123456789012345678901234567890,
                  true, false, null, "x"], "b": {}, "c": []})") ==
        R"({"a":[1.50,0,1E+3,18446744073709551615,123456789012345678901234567890,)"
        R"(true,false,null,"x"],"b":{},"c":[]})");
  Value v;
  Error error;
  REQUIRE(
      ParseJson(R"({"n": -12, "f": 2.5e-3, "u": 18446744073709551615, "s": "é"})", 10, &v, &error));
  CHECK(v.Find("n")->type() == Value::Type::kInt);
  CHECK(v.Find("n")->text() == "-12");
  CHECK(v.Find("f")->type() == Value::Type::kFloat);
  CHECK(v.Find("f")->text() == "2.5e-3");
  CHECK(v.Find("u")->type() == Value::Type::kInt);
  CHECK(v.Find("s")->text() == "\xC3\xA9");
  // Webhook findings carry JSON paths: values have no line/column.
  CHECK(v.Find("n")->mark().line == 0);
  CHECK(v.mark().column == 0);
}

TEST_CASE("ParseJson: nesting is refused before it is built", "[json]") {
  const size_t kDeep = 100000;
  CHECK(Parse(std::string(kDeep, '[') + std::string(kDeep, ']'), 100) ==
        "error nesting is deeper than 100 levels");
  std::string objects;
  for (size_t i = 0; i < kDeep; ++i) objects += R"({"a":)";
  objects += "1" + std::string(kDeep, '}');
  CHECK(Parse(objects, 100) == "error nesting is deeper than 100 levels");
  CHECK(Parse("[[[1]]]", 3) == "[[[1]]]");
  CHECK(Parse("[[[[1]]]]", 3) == "error nesting is deeper than 3 levels");
}

TEST_CASE("ParseJson: duplicate keys", "[json]") {
  CHECK(Parse(R"({"a": 1, "a": 2})") == R"(error duplicate key "a" at /a)");
  CHECK(Parse(R"({"m": {"k": [0, {"x": 1, "x": 2}]}})") ==
        R"(error duplicate key "x" at /m/k/1/x)");
  CHECK(Parse(R"({"a~/b": {"c": 1, "c": 2}})") == R"(error duplicate key "c" at /a~0~1b/c)");
  // Large objects are checked through an index.
  std::string large = "{";
  std::string compact = "{";
  for (int i = 0; i < 40; ++i) {
    large += "\"k" + std::to_string(i) + "\": 0, ";
    compact += "\"k" + std::to_string(i) + "\":0,";
  }
  CHECK(Parse(large + "\"k39\": 1}") == R"(error duplicate key "k39" at /k39)");
  CHECK(Parse(large + "\"k3\": 1}") == R"(error duplicate key "k3" at /k3)");
  CHECK(Parse(large + "\"k40\": 1}") == compact + "\"k40\":1}");
}

TEST_CASE("ParseJson: text that is not JSON", "[json]") {
  struct Case {
    std::string text;
    const char* error;
  };
  const Case cases[] = {
      {"[\"\xC3\"]",
       "error 1:4: syntax error while parsing value - invalid string: ill-formed UTF-8 byte; "
       "last read: '\"\xC3\"'"},
      {R"(["\ud800"])",
       "error 1:9: syntax error while parsing value - invalid string: surrogate U+D800..U+DBFF "
       "must be followed by U+DC00..U+DFFF; last read: '\"\\ud800\"'"},
      {R"(["\udc00"])",
       "error 1:8: syntax error while parsing value - invalid string: surrogate U+DC00..U+DFFF "
       "must follow U+D800..U+DBFF; last read: '\"\\udc00'"},
      {std::string("{\"a\0b\": 1}", 10),
       "error 1:4: syntax error while parsing object key - invalid string: control character "
       "U+0000 (NUL) must be escaped to \\u0000; last read: '\"a<U+0000>'; expected string "
       "literal"},
      // nlohmann's lexer stops at a NUL outside strings: what follows must not
      // be ignored
      {std::string("[1]\0", 4),
       "error 1:4: cannot parse JSON: a NUL byte after the value (only whitespace may follow "
       "it)"},
      {std::string("{}\n\0{\"kind\": \"Pod\"}", 19),
       "error 2:1: cannot parse JSON: a NUL byte after the value (only whitespace may follow "
       "it)"},
      {"{\n  \"a\": 1x}",
       "error 2:9: syntax error while parsing object - invalid literal; last read: '1x'; "
       "expected '}'"},
      {"",
       "error 1:1: syntax error while parsing value - unexpected end of input; expected '[', "
       "'{', or a literal"},
      {"[1] 2",
       "error 1:5: syntax error while parsing value - unexpected number literal; expected end "
       "of input"},
      {"{'a': 1}",
       "error 1:2: syntax error while parsing object key - invalid literal; last read: '{''; "
       "expected string literal"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    CHECK(Parse(c.text) == c.error);
  }
}

TEST_CASE("ParseJson: escaped NUL in keys and strings is kept", "[json]") {
  Value v;
  Error error;
  REQUIRE(ParseJson(R"({"a\u0000b": "x\u0000"})", 10, &v, &error));
  REQUIRE(v.members().size() == 1);
  CHECK(v.members()[0].first == std::string("a\0b", 3));
  CHECK(v.members()[0].second.text() == std::string("x\0", 2));
  CHECK(ToJson(v) == R"({"a\u0000b":"x\u0000"})");
}

// A tree with the type of every scalar spelled out: ToJson alone writes an
// int and a float of the same text alike.
std::string Typed(const Value& v) {
  std::string out = TypeName(v.type());
  if (v.is_sequence()) {
    out += "[";
    for (const Value& item : v.items()) out += Typed(item) + ",";
    return out + "]";
  }
  if (v.is_mapping()) {
    out += "{";
    for (const Value::Member& m : v.members()) out += m.first + ":" + Typed(m.second) + ",";
    return out + "}";
  }
  return out + "(" + v.text() + ")";
}

// The fast parser may leave any text to nlohmann, but what it accepts,
// nlohmann must accept with the same tree. Returns whether it accepted.
bool FastAgrees(std::string_view text, size_t max_depth = 256) {
  Value fast;
  if (!ParseJsonFast(text, max_depth, &fast)) return false;
  Value reference;
  Error error;
  INFO("nlohmann: " << error.ToString());
  REQUIRE(ParseJsonNlohmann(text, max_depth, &reference, &error));
  CHECK(Typed(fast) == Typed(reference));
  return true;
}

TEST_CASE("ParseJson: the fast parser accepts what nlohmann does, to the same tree", "[json]") {
  for (std::string text : {
           R"({"a": [1.50, -0, 0, 1E+3, 1e-400, -0.0, 9223372036854775807]})",
           R"([18446744073709551615, 18446744073709551616, -9223372036854775808,
               -9223372036854775809, 123456789012345678901234567890, 1.7976931348623157e308])",
           R"({"s": "\"\\\/\b\f\n\r\t\u0041\u00e9\ud83d\ude00 é😀", "\u0000k": "\u0000"})",
           " \t\r\n{\"x\" : [ true , false , null , { } , [ ] ] } \n",
           "\"top\"",
           "12",
           "null",
           // UTF-8 at the edges of each range
           "[\"\xC2\x80 \xDF\xBF \xE0\xA0\x80 \xED\x9F\xBF \xEE\x80\x80 \xEF\xBF\xBF\"]",
           "[\"\xF0\x90\x80\x80 \xF4\x8F\xBF\xBF \x7F\", \"abcdefgh\xC3\xA9ijklmnop\"]",
       }) {
    INFO(text);
    CHECK(FastAgrees(text));
  }
  // The API server's own bodies (1.26's and 1.36's) all take the fast path.
  int bodies = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(testing::SourceDir() +
                                                                         "/testdata/admission")) {
    if (entry.path().extension() != ".json") continue;
    ++bodies;
    INFO(entry.path());
    CHECK(FastAgrees(testing::ReadFile(entry.path().string())));
  }
  CHECK(bodies > 40);
}

TEST_CASE("ParseJson: the fast parser recurses only as deep as it may", "[json]") {
  // It stops where the limit is: 512 levels parse on the fast path...
  std::string deep = std::string(512, '[') + "1" + std::string(512, ']');
  CHECK(FastAgrees(deep, 512));
  Value v;
  CHECK_FALSE(ParseJsonFast(std::string(513, '[') + std::string(513, ']'), 512, &v));
  // ...and a caller allowing more gets nlohmann's parser, with its own stack.
  CHECK_FALSE(ParseJsonFast(deep, 513, &v));
  std::string deeper = std::string(1000, '[') + std::string(1000, ']');
  CHECK(Parse(deeper, 1000) == deeper);
}

TEST_CASE("ParseJson: what RapidJSON would accept and nlohmann refuses is left to nlohmann",
          "[json]") {
  for (std::string text : {
           std::string(R"(["\udc00"])"),     // lone low surrogate
           std::string(R"({"\udfff": 1})"),  // the same, in a key
           std::string(R"(["a\ud800"])"),    // lone high surrogate
           // RapidJSON stops at a NUL as at the end; the text goes to nlohmann,
           // whatever it says of it.
           std::string("[1]\0", 4), std::string("[1] \0 2", 7),
           std::string("[1e309]"),  // beyond a double
           std::string("[10e308]"), std::string("[-1.7976931348623159e308]"),
           std::string("[\"\xC0\x80\"]"),  // overlong
           std::string("[\"\xE0\x80\x80\"]"),
           std::string("[\"\xED\xA0\x80\"]"),      // an encoded surrogate
           std::string("[\"\xF4\x90\x80\x80\"]"),  // beyond U+10FFFF
           std::string("[\"\xF5\x80\x80\x80\"]"),
           std::string("[\"\xE2\x82\"]"),          // cut short
           std::string("[\"\xF0\x8F\xBF\xBF\"]"),  // overlong, four bytes
           std::string("[\"\xC1\xBF\"]"), std::string("[\"\xC2\x41\"]"),
           std::string("[\"\xE1\x80\x41\"]"), std::string("[\"\xF1\x80\x80\x41\"]"),
           std::string("[\"\xFF\"]"), std::string("[\"abc\xE2\x82"),
           std::string("[1] \xC3\xA9"),  // UTF-8, but outside a string
           std::string("[\"\x80\"]"),
           std::string("[\"a\x01\"]"),  // unescaped control character
           std::string("[01]"), std::string("[1.]"), std::string("[.5]"), std::string("[+1]"),
           std::string("[1,]"), std::string("{\"a\":1,}"), std::string("[NaN]"),
           std::string("[Infinity]"), std::string("// c\n[1]"), std::string("['a']"),
           std::string("[1] [2]"), std::string(""), std::string(" "),
           std::string(R"({"a": 1, "a": 2})"),  // duplicate key
           std::string("[[[[1]]]]"),            // deeper than 3, below
       }) {
    INFO(text);
    CHECK_FALSE(FastAgrees(text, 3));
  }
  // A byte order mark: nlohmann skips it, RapidJSON refuses; either way the same answer.
  CHECK(Parse("\xEF\xBB\xBF[1]") == "[1]");
}

TEST_CASE("ParseJsonList: the root's items one at a time, left out of the tree", "[json]") {
  const std::string list =
      R"({"kind":"PodList","metadata":{"continue":"c2"},"items":[{"a":1,"items":[2]},{"b":[3]}],)"
      R"("other":{"items":[4]}})";
  for (const std::string& text : {list, "\xEF\xBB\xBF" + list}) {  // a BOM: nlohmann's path
    INFO(text);
    std::vector<std::string> items;
    Value root;
    Error error;
    REQUIRE(ParseJsonList(text, 64, &root, &error,
                          [&](const Value& item) { items.push_back(ToJson(item)); }));
    CHECK(items == std::vector<std::string>{R"({"a":1,"items":[2]})", R"({"b":[3]})"});
    CHECK(ToJson(root) ==
          R"({"kind":"PodList","metadata":{"continue":"c2"},"items":[],"other":{"items":[4]}})");
  }
  // An error inside an item is placed where the item is in the text.
  std::vector<std::string> items;
  Value root;
  Error error;
  CHECK_FALSE(ParseJsonList(R"({"items":[{"a":1},{"b":1,"b":2}]})", 64, &root, &error,
                            [&](const Value& item) { items.push_back(ToJson(item)); }));
  CHECK(error.message == "duplicate key \"b\" at /items/1/b");
  CHECK(items == std::vector<std::string>{R"({"a":1})"});
}

TEST_CASE("ToJson: round trips", "[json]") {
  for (const char* text : {
           R"({"kind":"Pod","spec":{"containers":[{"name":"a","args":["-x",""]}]}})",
           R"([1,-2,3.25,1e-7,true,false,null,{},[],"\"\\\/"])",
           R"({"ctl":"\u0001\b\f\n\r\t\u001f","utf8":"é😀"})",
       }) {
    INFO(text);
    std::string once = Parse(text);
    CHECK(Parse(once) == once);
  }
  CHECK(Parse(R"(["\/", "\u00e9", "\ud83d\ude00", "\u007f"])") == "[\"/\",\"é\",\"😀\",\"\x7f\"]");
}

TEST_CASE("ToJson: YAML numbers JSON cannot spell", "[json]") {
  struct Case {
    Value::Type type;
    const char* text;
    const char* json;
  };
  const Case cases[] = {
      {Value::Type::kFloat, "1.5", "1.5"},
      {Value::Type::kFloat, "1e3", "1e3"},
      {Value::Type::kFloat, ".5", "0.5"},
      {Value::Type::kFloat, "-.5", "-0.5"},
      {Value::Type::kFloat, "+1.5", "1.5"},
      {Value::Type::kFloat, "1.", "1"},
      {Value::Type::kFloat, "007.50", "7.50"},
      {Value::Type::kFloat, "08", "8"},
      {Value::Type::kFloat, "+9223372036854775808", "9223372036854775808"},
      {Value::Type::kFloat, ".5E+3", "0.5E+3"},
      {Value::Type::kFloat, ".inf", "\".inf\""},
      {Value::Type::kFloat, "-.Inf", "\"-.Inf\""},
      {Value::Type::kFloat, ".nan", "\".nan\""},
      {Value::Type::kInt, "16", "16"},
      {Value::Type::kInt, "", "\"\""},
      {Value::Type::kBool, "true", "true"},
      {Value::Type::kBool, "yes", "\"yes\""},
      {Value::Type::kNull, "", "null"},
      {Value::Type::kString, "12", "\"12\""},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    CHECK(ToJson(Value::Scalar(c.type, c.text)) == c.json);
  }
}

TEST_CASE("AppendJsonString: RFC 8259 escaping", "[json]") {
  std::string out = "x=";
  AppendJsonString(std::string("a\"b\\c\x01\x1f\x7f\0d", 10), &out);
  CHECK(out == "x=\"a\\\"b\\\\c\\u0001\\u001f\x7f\\u0000d\"");
  // Bytes that are not UTF-8 cannot be JSON text: replaced as Go's encoder does.
  out.clear();
  AppendJsonString("ok \xC3\xA9 \xFF \xC3 \xED\xA0\x80 \xF0\x9F\x98\x80", &out);
  CHECK(out == "\"ok \xC3\xA9 \\ufffd \\ufffd \\ufffd\\ufffd\\ufffd \xF0\x9F\x98\x80\"");
}

TEST_CASE("ToJson: deep trees need no deep stack", "[json]") {
  const size_t kDeep = 200000;
  Value root(Value::Type::kSequence);
  Value* v = &root;
  for (size_t i = 0; i < kDeep; ++i) {
    v->mutable_items().emplace_back(Value::Type::kSequence);
    v = &v->mutable_items().back();
  }
  std::string json = ToJson(root);
  CHECK(json == std::string(kDeep + 1, '[') + std::string(kDeep + 1, ']'));
  // Taken apart one level at a time: ~Value itself recurses.
  while (!root.items().empty()) {
    Value next = std::move(root.mutable_items().back());
    root = std::move(next);
  }
}

TEST_CASE("TypeName", "[json]") {
  CHECK(std::string(TypeName(Value::Type::kNull)) == "null");
  CHECK(std::string(TypeName(Value::Type::kBool)) == "bool");
  CHECK(std::string(TypeName(Value::Type::kInt)) == "int");
  CHECK(std::string(TypeName(Value::Type::kFloat)) == "float");
  CHECK(std::string(TypeName(Value::Type::kString)) == "string");
  CHECK(std::string(TypeName(Value::Type::kSequence)) == "sequence");
  CHECK(std::string(TypeName(Value::Type::kMapping)) == "mapping");
}

}  // namespace
}  // namespace gpulint
