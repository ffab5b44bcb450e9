#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>
#include <thread>
#include <vector>

#include "engine/yaml/loader.h"

namespace gpulint {
namespace {

struct Loaded {
  bool ok = false;
  Error error;
  std::vector<Document> docs;
};

Loaded Load(std::string_view text, const LoadLimits& limits = {}) {
  Loaded out;
  out.ok = LoadYamlString(
      text, "m.yaml", limits,
      [&](Document&& d) {
        out.docs.push_back(std::move(d));
        return true;
      },
      &out.error);
  return out;
}

// One line per document: where it starts and what it holds (or its error).
std::string Summary(const Document& d) {
  std::string where = std::to_string(d.index) + "@" + std::to_string(d.start.line) + ":" +
                      std::to_string(d.start.column) + " ";
  return where + (d.ok ? ToJson(d.root) : "error " + d.error.ToString());
}

std::vector<std::string> Summaries(std::string_view text, const LoadLimits& limits = {}) {
  Loaded loaded = Load(text, limits);
  REQUIRE(loaded.ok);
  std::vector<std::string> out;
  for (const Document& d : loaded.docs) out.push_back(Summary(d));
  return out;
}

// The error of a stream that holds one broken document.
std::string ErrorOf(std::string_view text, const LoadLimits& limits = {}) {
  Loaded loaded = Load(text, limits);
  REQUIRE(loaded.ok);
  REQUIRE(loaded.docs.size() == 1);
  REQUIRE_FALSE(loaded.docs[0].ok);
  CHECK(loaded.docs[0].root.is_null());
  CHECK(loaded.docs[0].error.file == "m.yaml");
  return loaded.docs[0].error.ToString();
}

TEST_CASE("documents: comments, markers and empty documents", "[loader][yaml]") {
  const char* text =
      "# leading comment\n"  // 1
      "---\n"                // 2  empty: no document
      "---   # a comment\n"  // 3
      "a: 1\n"               // 4
      "---\n"                // 5
      "# only a comment\n"   // 6  empty: no document
      "---\n"                // 7
      "...\n"                // 8
      "  b: 2\n"             // 9  a bare document, indented
      "...\n"                // 10
      "%YAML 1.1\n"          // 11
      "---\n"                // 12
      "c: 3\n"               // 13
      "--- d\n"              // 14 content on the marker line
      "---\n"                // 15
      "\n";
  CHECK(Summaries(text) == std::vector<std::string>{
                               R"(0@3:1 {"a":1})",
                               R"(1@9:3 {"b":2})",
                               R"(2@12:1 {"c":3})",
                               R"(3@14:1 "d")",
                           });
}

TEST_CASE("documents: what is a marker and what is not", "[loader][yaml]") {
  const char* text =
      "a: |\n"   // 1
      "  ---\n"  // 2  indented: part of the block scalar
      "---\t\n"  // 3  a marker: "---" then a tab
      "b: ---x\n"
      "c: >-\n"
      "  ...\n"
      "---x: 1\n"  // 7  not a marker
      "....: 2\n";
  CHECK(Summaries(text) == std::vector<std::string>{
                               R"(0@1:1 {"a":"---\n"})",
                               R"(1@3:1 {"b":"---x","c":"...","---x":1,"....":2})",
                           });
}

// The stretches `gpulint fix` edits: each document's own text, the bytes
// between them only comments, blank lines and markers.
TEST_CASE("documents: where each one's text begins and ends", "[loader][yaml]") {
  const std::string text =
      "# leading comment\n"
      "a: 1\n"
      "---\n"
      "b: 2\n"
      "...\n"
      "# between\n"
      "--- c: 3\n"
      "...\n"
      "---\n"
      "# a document of comments only is none\n"
      "%YAML 1.1\n"
      "---\n"
      "d: 4";
  Loaded loaded = Load(text);
  REQUIRE(loaded.ok);
  std::vector<std::string> parts;
  std::vector<uint32_t> lines;
  for (const Document& d : loaded.docs) {
    parts.push_back(text.substr(d.begin, d.end - d.begin));
    lines.push_back(d.first_line);
  }
  CHECK(parts == std::vector<std::string>{"# leading comment\na: 1\n", "---\nb: 2\n...\n",
                                          "# between\n--- c: 3\n...\n", "%YAML 1.1\n---\nd: 4"});
  CHECK(lines == std::vector<uint32_t>{0, 2, 5, 10});
}

TEST_CASE("documents: a directive after a document opens the next one", "[loader][yaml]") {
  CHECK(Summaries("a: 1\n%YAML 1.1\n---\nb: 2\n") ==
        std::vector<std::string>{R"(0@1:1 {"a":1})", R"(1@3:1 {"b":2})"});
  // Also after a "---" that opened nothing: the directive stays with the
  // document it precedes, whose tag it defines.
  CHECK(Summaries("---\n# nothing\n%TAG !e! tag:example.com,2024:\n---\nb: !e!x 2\n") ==
        std::vector<std::string>{R"(0@4:1 {"b":"2"})"});
}

TEST_CASE("documents: nothing at all", "[loader][yaml]") {
  for (const char* text : {"", "\n\n", "# c\n", "---\n", "---\n...\n", "...\n", "\xEF\xBB\xBF"}) {
    INFO(text);
    CHECK(Summaries(text).empty());
  }
}

TEST_CASE("documents: a broken one between good ones", "[loader][yaml]") {
  const char* text =
      "a: 1\n"
      "---\n"
      "b: [1, 2\n"
      "c: 3\n"
      "---\n"
      "d: 4\n";
  CHECK(Summaries(text) == std::vector<std::string>{
                               R"(0@1:1 {"a":1})",
                               "1@2:1 error m.yaml:4:2: did not find expected ',' or ']' "
                               "(in the sequence that starts at line 3, column 4)",
                               R"(2@5:1 {"d":4})",
                           });
}

TEST_CASE("documents: BOM, CRLF, no newline at the end", "[loader][yaml]") {
  Loaded loaded = Load("\xEF\xBB\xBFkind: Pod\r\nspec:\r\n  x: [1]\r\n---\r\nnum: 2");
  REQUIRE(loaded.docs.size() == 2);
  const Value& root = loaded.docs[0].root;
  CHECK(ToJson(root) == R"({"kind":"Pod","spec":{"x":[1]}})");
  CHECK(root.Find("kind")->mark().line == 1);
  CHECK(root.Find("kind")->mark().column == 7);
  const Value* x = root.Find("spec")->Find("x");
  CHECK(x->mark().line == 3);
  CHECK(x->mark().column == 6);
  CHECK(x->items()[0].mark().column == 7);
  CHECK(Summary(loaded.docs[1]) == R"(1@4:1 {"num":2})");
  CHECK(loaded.docs[1].root.Find("num")->mark().line == 5);
}

TEST_CASE("positions of nested nodes", "[loader][yaml]") {
  const char* text =
      "---\n"
      "apiVersion: v1\n"
      "---\n"
      "kind: Pod\n"
      "spec:\n"
      "  containers:\n"
      "  - name: a\n"
      "    resources: {limits: {memory: 1Gi}}\n"
      "    args:\n"
      "      - |\n"
      "        text\n"
      "      - \"q\"\n";
  Loaded loaded = Load(text);
  REQUIRE(loaded.docs.size() == 2);
  CHECK(loaded.docs[1].start.line == 3);
  const Value& root = loaded.docs[1].root;
  CHECK(root.mark().line == 4);
  CHECK(root.mark().column == 1);
  const Value& containers = *root.Find("spec")->Find("containers");
  CHECK(containers.mark().line == 7);
  CHECK(containers.mark().column == 3);
  const Value& c = containers.items()[0];
  CHECK(c.mark().line == 7);
  CHECK(c.mark().column == 5);
  CHECK(c.Find("name")->mark().column == 11);
  const Value& memory = *c.Find("resources")->Find("limits")->Find("memory");
  CHECK(memory.text() == "1Gi");
  CHECK(memory.mark().line == 8);
  CHECK(memory.mark().column == 34);
  const Value& args = *c.Find("args");
  CHECK(args.items()[0].text() == "text\n");
  CHECK(args.items()[1].mark().line == 12);
  CHECK(args.items()[1].mark().column == 9);
}

TEST_CASE("error messages", "[loader][yaml]") {
  struct Case {
    const char* text;
    const char* error;
  };
  const Case cases[] = {
      {"a: b: c\n", "m.yaml:1:5: mapping values are not allowed in this context"},
      {"a:\n\t- b\n", "m.yaml:2:1: found a tab character; YAML indents with spaces, not tabs"},
      {"a: \"x\nb: 2\n",
       "m.yaml:3:1: found unexpected end of document "
       "(in the quoted string that starts at line 1, column 4)"},
      {"a: 1\nb\nc: 2\n", "m.yaml:2:1: could not find expected ':' after this key"},
      {"a:\n  b: 1\n c: 2\n",
       "m.yaml:3:2: did not find expected key (in the mapping that starts at line 1, column 1)"},
      {"a: @x\n", "m.yaml:1:4: found character '@' that cannot start any token"},
      {"bad: [\n", "m.yaml:2:1: did not find expected node content before the end of the document"},
      {"a: b\xFF\n", "m.yaml:1:5: invalid leading UTF-8 octet (byte 0xFF)"},
      {"a: 1\n... b\n", "m.yaml:2:5: did not find expected <document start>"},
      {"a: *nope\n", "m.yaml:1:4: alias *nope has no anchor &nope before it"},
      {"a: 1\nb: 2\na: 3\n", "m.yaml:3:1: duplicate key \"a\" (first at line 1)"},
      {"~: 1\n", "m.yaml:1:1: a mapping key must not be null"},
      {"? [a]\n: b\n", "m.yaml:1:3: a mapping key must be a scalar, not a sequence"},
      {"a: &a {x: 1}\n*a : 2\n", "m.yaml:2:1: a mapping key must be a scalar, not a mapping"},
      {"\xFF\xFE"
       "a",
       "m.yaml:1:1: the input is UTF-16; save it as UTF-8"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    CHECK(ErrorOf(c.text) == c.error);
  }
  CHECK(ErrorOf(std::string_view("a: b\0c\n", 7)) ==
        "m.yaml:1:5: control characters are not allowed (U+0000)");
}

TEST_CASE("duplicate keys in a large mapping", "[loader][yaml]") {
  std::string text;
  for (int i = 0; i < 30; ++i) text += "k" + std::to_string(i) + ": v\n";
  CHECK(Summaries(text).size() == 1);
  text += "k5: again\n";
  CHECK(ErrorOf(text) == "m.yaml:31:1: duplicate key \"k5\" (first at line 6)");
}

TEST_CASE("nesting past max_depth fails before it is built", "[loader][yaml]") {
  const size_t kDeep = 50000;
  std::string flow_seq = std::string(kDeep, '[') + std::string(kDeep, ']');
  CHECK(ErrorOf(flow_seq) == "m.yaml:1:257: nesting is deeper than 256 levels");
  std::string flow_map;
  for (size_t i = 0; i < kDeep; ++i) flow_map += "{a: ";
  flow_map += std::string(kDeep, '}');
  CHECK(ErrorOf(flow_map) == "m.yaml:1:1025: nesting is deeper than 256 levels");
  std::string block;
  for (size_t i = 0; i < kDeep; ++i) block += "- ";
  block += "x\n";
  CHECK(ErrorOf(block) == "m.yaml:1:513: nesting is deeper than 256 levels");
  std::string block_map;
  for (size_t i = 0; i < 300; ++i) block_map += std::string(i, ' ') + "a:\n";
  CHECK(ErrorOf(block_map) == "m.yaml:257:257: nesting is deeper than 256 levels");

  LoadLimits limits;
  limits.max_depth = 3;
  CHECK(Summaries("[[[1]]]", limits) == std::vector<std::string>{"0@1:1 [[[1]]]"});
  CHECK(ErrorOf("[[[[1]]]]", limits) == "m.yaml:1:4: nesting is deeper than 3 levels");
  // An alias counts with the depth of what it expands to.
  CHECK(Summaries("a: &a [1]\nb: [*a]\n", limits).size() == 1);
  CHECK(ErrorOf("a: &a [[1]]\nb: [*a]\n", limits) == "m.yaml:2:5: nesting is deeper than 3 levels");
}

TEST_CASE("limits: document size, document count, scalar size", "[loader][yaml]") {
  LoadLimits limits;
  limits.max_document_bytes = 1024;
  std::string big = "a: " + std::string(2000, 'x') + "\n";
  CHECK(Summaries("num: 1\n---\n" + big + "---\nnum: 3\n", limits) ==
        std::vector<std::string>{
            R"(0@1:1 {"num":1})",
            "1@2:1 error m.yaml:2:1: document is larger than 1 KiB; "
            "the rest of the input is skipped",
        });

  limits = LoadLimits();
  limits.max_documents = 2;
  CHECK(Summaries("num: 1\n---\nnum: 2\n---\nnum: 3\n---\nnum: 4\n", limits) ==
        std::vector<std::string>{
            R"(0@1:1 {"num":1})",
            R"(1@2:1 {"num":2})",
            "2@4:1 error m.yaml:4:1: more than 2 documents; the rest of the input is skipped",
        });

  limits = LoadLimits();
  limits.max_scalar_bytes = 4;
  CHECK(Summaries("a: abcd\n", limits).size() == 1);
  CHECK(ErrorOf("a: abcde\n", limits) == "m.yaml:1:4: scalar is larger than 4 bytes");
}

TEST_CASE("a stream of 10,000 documents", "[loader][yaml]") {
  std::string text;
  for (int i = 0; i < 10000; ++i) text += "---\nnum: " + std::to_string(i) + "\n";
  Loaded loaded = Load(text);
  REQUIRE(loaded.docs.size() == 10000);
  for (size_t i = 0; i < loaded.docs.size(); ++i) {
    const Document& d = loaded.docs[i];
    REQUIRE(d.index == i);
    REQUIRE(d.start.line == 2 * i + 1);
    REQUIRE(d.root.Find("num")->text() == std::to_string(i));
    REQUIRE(d.root.Find("num")->mark().line == 2 * i + 2);
  }
}

TEST_CASE("the sink stops the stream", "[loader][yaml]") {
  int seen = 0;
  Error error;
  CHECK(LoadYamlString(
      "a: 1\n---\nb: 2\n---\nc: 3\n", "m.yaml", {}, [&](Document&&) { return ++seen < 2; },
      &error));
  CHECK(seen == 2);
}

TEST_CASE("the root's items go one by one to an ItemSink", "[loader][yaml]") {
  // Each item as JSON with its line, then each document as the loader gives it.
  auto streamed = [](std::string_view text, const LoadLimits& limits = {}) {
    std::vector<std::string> out;
    Error error;
    REQUIRE(LoadYamlString(
        text, "m.yaml", limits,
        [&](Document&& d) {
          out.push_back(Summary(d));
          return true;
        },
        &error,
        [&](const Value& item) {
          out.push_back("item " + std::to_string(item.mark().line) + " " + ToJson(item));
        }));
    return out;
  };
  CHECK(streamed("apiVersion: v1\nitems:\n- {a: 1}\n- 2\n- &x [3]\n- *x\nkind: List\n") ==
        std::vector<std::string>{
            "item 3 {\"a\":1}", "item 4 2", "item 5 [3]", "item 6 [3]",
            R"(0@1:1 {"apiVersion":"v1","items":[],"kind":"List"})"});
  // Only the root mapping's own `items` sequence: not one nested, not a
  // merged one, not an anchored one (an alias copies it), not a root sequence.
  CHECK(streamed("spec:\n  items: [1]\n---\n<<: {items: [2]}\n---\nitems: &i [3]\nb: *i\n"
                 "---\n- items: [4]\n") ==
        std::vector<std::string>{R"(0@1:1 {"spec":{"items":[1]}})", R"(1@3:1 {"items":[2]})",
                                 R"(2@5:1 {"items":[3],"b":[3]})", R"(3@8:1 [{"items":[4]}])"});
  // Limits still hold over the items: they count against the document.
  LoadLimits limits;
  limits.max_depth = 3;
  CHECK(streamed("items:\n- [[1]]\n", limits) ==
        std::vector<std::string>{"0@1:1 error m.yaml:2:4: nesting is deeper than 3 levels"});
}

TEST_CASE("JSON through the YAML loader", "[loader][yaml]") {
  const char* text =
      "{\n"
      "\t\"kind\": \"List\",\n"
      "\t\"items\": [{\"a\":1.50}, {\"b\": \"\\u00e9\\/\"}, {\"c\": [true, null, -0, 1e3]}]\n"
      "}\n";
  CHECK(Summaries(text) ==
        std::vector<std::string>{
            R"(0@1:1 {"kind":"List","items":[{"a":1.5},{"b":"é/"},{"c":[true,null,0,1000]}]})"});
}

// Reads `text` through a pipe in uneven pieces, so documents straddle reads.
Loaded LoadThroughPipe(const std::string& text, size_t piece) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  std::thread writer([&] {
    for (size_t i = 0; i < text.size(); i += piece) {
      size_t n = std::min(piece, text.size() - i);
      REQUIRE(write(fds[1], text.data() + i, n) == static_cast<ssize_t>(n));
    }
    close(fds[1]);
  });
  Loaded out;
  out.ok = LoadYamlFd(
      fds[0], "<stdin>", {},
      [&](Document&& d) {
        out.docs.push_back(std::move(d));
        return true;
      },
      &out.error);
  writer.join();
  close(fds[0]);
  return out;
}

TEST_CASE("file descriptors: a stream larger than the read buffer", "[loader][yaml]") {
  std::string text;
  for (int i = 0; i < 30000; ++i) {
    text += "---\nmetadata:\n  name: pod-" + std::to_string(i) + "\nspec: {x: [1, 2, 3]}\n";
    if (i == 20000) text += "broken: [\n";
  }
  text += "---\nlast: " + std::string(3 << 20, 'y');  // one document over several reads
  Loaded from_string = Load(text);
  Loaded from_pipe = LoadThroughPipe(text, 7777);
  REQUIRE(from_pipe.ok);
  REQUIRE(from_pipe.docs.size() == 30001);
  REQUIRE(from_string.docs.size() == 30001);
  for (size_t i = 0; i < from_pipe.docs.size(); ++i) {
    Document& a = from_string.docs[i];
    Document& b = from_pipe.docs[i];
    a.error.file = b.error.file = "";
    REQUIRE(Summary(a) == Summary(b));
    REQUIRE(a.begin == b.begin);  // offsets in the stream, not in a read buffer
    REQUIRE(a.end == b.end);
    REQUIRE(a.first_line == b.first_line);
  }
  CHECK_FALSE(from_pipe.docs[20000].ok);
  CHECK(from_pipe.docs[30000].root.Find("last")->text().size() == size_t{3} << 20);
}

TEST_CASE("file descriptors: endless input ends at the document limit", "[loader][yaml]") {
  int fd = open("/dev/zero", O_RDONLY);
  REQUIRE(fd >= 0);
  LoadLimits limits;
  limits.max_document_bytes = 4 << 20;
  std::vector<std::string> docs;
  Error error;
  CHECK(LoadYamlFd(
      fd, "<stdin>", limits,
      [&](Document&& d) {
        docs.push_back(d.error.ToString());
        return true;
      },
      &error));
  close(fd);
  CHECK(docs ==
        std::vector<std::string>{
            "<stdin>:1:1: document is larger than 4 MiB; the rest of the input is skipped"});
}

TEST_CASE("file descriptors: a read error", "[loader][yaml]") {
  Error error;
  int calls = 0;
  CHECK_FALSE(LoadYamlFd(
      -1, "x.yaml", {}, [&](Document&&) { return ++calls > 0; }, &error));
  CHECK(calls == 0);
  CHECK(error.ToString() == "x.yaml: read failed: bad file descriptor");
}

}  // namespace
}  // namespace gpulint
