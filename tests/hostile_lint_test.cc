// Hostile YAML for the linter, through the engine as `gpulint check` drives it:
// each case ends in a clear error or a correct verdict. Memory is bounded by
// the loader's LoadLimits, time by ctest's TIMEOUT (tests/CMakeLists.txt),
// never by a timed assertion. tests/hostile_files_test.cc sends the same kinds
// of input, and what is not a file, through the gpulint binary.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "engine/base/objects.h"
#include "engine/engine.h"
#include "engine/json/json_parser.h"
#include "engine/mutate/mutate.h"
#include "engine/policy/policy.h"
#include "engine/yaml/loader.h"

namespace gpulint {
namespace {

std::vector<Document> LoadAll(std::string_view text, const LoadLimits& limits = {}) {
  std::vector<Document> docs;
  Error error;
  REQUIRE(LoadYamlString(
      text, "m.yaml", limits,
      [&](Document&& d) {
        docs.push_back(std::move(d));
        return true;
      },
      &error));
  return docs;
}

// The error of a stream that holds one document, which must be refused.
std::string RefusedWith(std::string_view text) {
  std::vector<Document> docs = LoadAll(text);
  REQUIRE(docs.size() == 1);
  REQUIRE_FALSE(docs[0].ok);
  CHECK(docs[0].root.is_null());
  return docs[0].error.ToString();
}

Value LoadOne(std::string_view text) {
  std::vector<Document> docs = LoadAll(text);
  REQUIRE(docs.size() == 1);
  INFO(docs[0].error.ToString());
  REQUIRE(docs[0].ok);
  return std::move(docs[0].root);
}

// What `gpulint check` reports for a stream, one line per finding:
// "line:col rule: message".
std::vector<std::string> Verdict(std::string_view text) {
  const Policy& policy = DefaultPolicy();
  Inventory inventory = BuildInventory(policy, {});
  std::vector<std::string> out;
  for (const Document& doc : LoadAll(text)) {
    std::vector<Finding> findings;
    if (!doc.ok) {
      findings.push_back(ParseErrorFinding(doc.error));
    } else {
      ForEachObject(doc.root, [&](const Value& object) {
        if (!object.is_mapping()) return;
        for (Finding& f : Evaluate(object, "m.yaml", policy, inventory))
          findings.push_back(std::move(f));
      });
    }
    for (const Finding& f : findings) {
      out.push_back(std::to_string(f.mark.line) + ":" + std::to_string(f.mark.column) + " " +
                    f.rule + ": " + f.message);
    }
  }
  return out;
}

std::vector<std::string> RulesOf(const std::vector<std::string>& verdict) {
  std::vector<std::string> rules;
  for (const std::string& line : verdict) {
    size_t space = line.find(' ');
    rules.push_back(line.substr(space + 1, line.find(':', space) - space - 1));
  }
  return rules;
}

// A GPU pod with one finding (gpu-fractional) and no other.
std::string FractionalPod(const std::string& name) {
  return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name +
         "\nspec:\n  containers:\n  - name: train\n    image: nvcr.io/nvidia/pytorch:24.01-py3\n"
         "    resources:\n      limits:\n        nvidia.com/gpu: 1.5\n        memory: 8Gi\n";
}

// A GPU container whose resources are written by the caller, e.g. "{memory: 0x10}".
std::string GpuPod(const std::string& requests, const std::string& limits) {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
         "  - name: c\n    image: nvcr.io/nvidia/pytorch:24.01-py3\n    resources:\n"
         "      requests: " +
         requests + "\n      limits: " + limits + "\n";
}

std::string Nested(size_t depth, std::string_view open, std::string_view close,
                   std::string_view leaf) {
  std::string text;
  text.reserve(depth * (open.size() + close.size()) + leaf.size());
  for (size_t i = 0; i < depth; ++i) text += open;
  text += leaf;
  for (size_t i = 0; i < depth; ++i) text += close;
  return text;
}

// ---- nesting, aliases, anchors ------------------------------------------

TEST_CASE("hostile: 50,000-deep nesting is refused at the depth limit", "[hostile][lint]") {
  const size_t kDeep = 50000;
  const std::string refused = "nesting is deeper than 256 levels";
  CHECK(RefusedWith(Nested(kDeep, "[", "]", "1")) == "m.yaml:1:257: " + refused);
  CHECK(RefusedWith(Nested(kDeep, "{a: ", "}", "1")) == "m.yaml:1:1025: " + refused);
  CHECK(RefusedWith(Nested(kDeep, "{\"a\":", "}", "1")) == "m.yaml:1:1281: " + refused);
  CHECK(RefusedWith(Nested(kDeep, "- ", "", "x\n")) == "m.yaml:1:513: " + refused);
  // Deep inside a pod, where a rule would walk it.
  std::string pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
                    "  - name: c\n    env: " + Nested(kDeep, "[", "]", "") + "\n";
  // The root, spec, containers and the container take four levels already.
  CHECK(RefusedWith(pod) == "m.yaml:7:262: " + refused);
  // JSON bodies (the webhook's parser) refuse it the same way.
  Value out;
  Error error;
  CHECK_FALSE(ParseJson(Nested(kDeep, "[", "]", ""), 256, &out, &error));
  CHECK(error.message == refused);
}

TEST_CASE("hostile: an alias bomb stops at the expansion limit", "[hostile][lint]") {
  // Nine levels of nine aliases: 9^9 (387 million) nodes if expanded.
  std::string bomb = "l0: &l0 [x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 9; ++i) {
    std::string prev = "*l" + std::to_string(i - 1);
    bomb += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
    for (int k = 0; k < 9; ++k) bomb += (k ? ", " : "") + prev;
    bomb += "]\n";
  }
  CHECK(RefusedWith(bomb) == "m.yaml:6:10: aliases expand to more than 100000 nodes");
  // Anchors inside anchors copy their nodes too: nesting anchors is no way round.
  std::string nested = "a: &a [";
  for (int i = 0; i < 60000; ++i) nested += i ? ",x" : "x";
  nested += "]\nb: &b [*a]\nc: &c [*b]\n";
  CHECK(RefusedWith(nested) == "m.yaml:3:8: aliases expand to more than 100000 nodes");
}

TEST_CASE("hostile: self-referencing anchors and merge-key cycles", "[hostile][lint]") {
  struct Case {
    const char* text;
    const char* error;
  };
  const Case cases[] = {
      {"a: &a [*a]\n", "m.yaml:1:8: alias *a refers to a node that contains it"},
      {"&a [*a]\n", "m.yaml:1:5: alias *a refers to a node that contains it"},
      {"a: &a {b: *a}\n", "m.yaml:1:11: alias *a refers to a node that contains it"},
      {"a: &a\n  <<: *a\n", "m.yaml:2:7: alias *a refers to a node that contains it"},
      {"a: &a {b: &b {<<: *a}}\n", "m.yaml:1:19: alias *a refers to a node that contains it"},
      {"a: &a {b: &b {<<: [*b]}}\n", "m.yaml:1:20: alias *b refers to a node that contains it"},
      // An anchor redefined around its own alias: the alias means the new one.
      {"x: &a {k: 1}\ny: &a {k: *a}\n", "m.yaml:2:11: alias *a refers to a node that contains it"},
      {"a: *b\nb: &b 1\n", "m.yaml:1:4: alias *b has no anchor &b before it"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    CHECK(RefusedWith(c.text) == c.error);
  }
  // A merge that is no cycle: keys written in the mapping win over merged ones.
  Value root = LoadOne(
      "base: &base {cpu: \"1\", memory: 1Gi}\n"
      "more: &more {memory: 4Gi, nvidia.com/gpu: 1}\n"
      "limits:\n  <<: [*more, *base]\n  memory: 2Gi\n");
  CHECK(ToJson(*root.Find("limits")) == R"({"memory":"2Gi","nvidia.com/gpu":1,"cpu":"1"})");
}

// ---- empty input, encodings, whitespace ---------------------------------

TEST_CASE("hostile: empty streams hold no documents", "[hostile][lint]") {
  for (const char* text : {"", "\n\n", "# nothing\n", "---\n", "---\n...\n---\n", "\xEF\xBB\xBF"}) {
    INFO(text);
    CHECK(LoadAll(text).empty());
    CHECK(Verdict(text).empty());
  }
  // An explicit null document is a document with nothing to check.
  std::vector<Document> docs = LoadAll("--- null\n");
  REQUIRE(docs.size() == 1);
  CHECK(docs[0].root.is_null());
  CHECK(Verdict("--- null\n").empty());
}

TEST_CASE("hostile: a BOM and CRLF line ends change neither verdict nor positions",
          "[hostile][lint]") {
  std::string lf = FractionalPod("p") + "---\n" + GpuPod("{memory: 500Gi}", "{memory: 500G}");
  std::vector<std::string> expected = Verdict(lf);
  REQUIRE_FALSE(expected.empty());
  std::string crlf;
  for (char c : lf) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  CHECK(Verdict("\xEF\xBB\xBF" + lf) == expected);
  CHECK(Verdict(crlf) == expected);
  CHECK(Verdict("\xEF\xBB\xBF" + crlf) == expected);
  // A BOM anywhere but the start is content, as YAML says.
  CHECK(RefusedWith("a: 1\n\xEF\xBB\xBF" "b: 2\n").find("m.yaml:2:") == 0);
}

TEST_CASE("hostile: tabs", "[hostile][lint]") {
  // As separators a tab is whitespace; as indentation it is an error.
  CHECK(ToJson(LoadOne("limits:\t{memory:\t1Gi,\tcpu: 2}\t# c\n")) ==
        R"({"limits":{"memory":"1Gi","cpu":2}})");
  CHECK(RefusedWith("limits:\n\tmemory: 1Gi\n") ==
        "m.yaml:2:1: found a tab character; YAML indents with spaces, not tabs");
  CHECK(RefusedWith(GpuPod("{}", "{}") + "\t  extra: 1\n").find(
            "found a tab character; YAML indents with spaces, not tabs") != std::string::npos);
}

TEST_CASE("hostile: duplicate keys are refused, in YAML and in JSON", "[hostile][lint]") {
  CHECK(RefusedWith(GpuPod("{memory: 1Gi, memory: 2Gi}", "{}")) ==
        "m.yaml:9:31: duplicate key \"memory\" (first at line 9)");
  CHECK(RefusedWith("limits:\n  memory: 1Gi\n  cpu: 1\n  memory: 64Gi\n") ==
        "m.yaml:4:3: duplicate key \"memory\" (first at line 2)");
  // Keys that differ in spelling but not in what Kubernetes reads.
  CHECK(RefusedWith("1: a\n\"1\": b\n") == "m.yaml:2:1: duplicate key \"1\" (first at line 1)");
  CHECK(RefusedWith("0x10: a\n16: b\n") == "m.yaml:2:1: duplicate key \"16\" (first at line 1)");
  CHECK(RefusedWith("{\"a\": 1,\n \"a\": 2}\n") ==
        "m.yaml:2:2: duplicate key \"a\" (first at line 1)");
  Value out;
  Error error;
  CHECK_FALSE(ParseJson(R"({"spec": {"a": 1, "a": 2}})", 256, &out, &error));
  CHECK(error.message == "duplicate key \"a\" at /spec/a");
}

// ---- YAML 1.1: what Kubernetes reads -------------------------------------

TEST_CASE("hostile: YAML 1.1 scalars resolve as sigs.k8s.io/yaml resolves them",
          "[hostile][lint]") {
  struct Case {
    const char* yaml;
    const char* json;  // what Kubernetes' YAML-to-JSON step makes of it
  };
  const Case cases[] = {
      {"on", "true"},
      {"Off", "false"},
      {"y", "true"},
      {"NO", "false"},
      {"'on'", "\"on\""},
      {"010", "8"},  // strconv.ParseInt(s, 0, 64): a leading 0 is octal
      {"08", "8"},   // no octal, so ParseFloat: 8
      {"0x10", "16"},
      {"-0x10", "-16"},
      {"0b11", "3"},
      {"0o17", "15"},
      {"1_000", "1000"},
      {"0x_1_0", "16"},
      {"\"0x10\"", "\"0x10\""},
      {"!!str 010", "\"010\""},
      {"1e3", "1000"},  // a float64, written as encoding/json writes it
      {"-0.30000000000000001", "-0.3"},
      {"1e-7", "1e-7"},
      {"0x1p3", "\"0x1p3\""},  // Go's hex floats are not YAML's
      {".inf", "\".inf\""},    // JSON has no infinity
      {"~", "null"},
      {"18446744073709551615", "18446744073709551615"},
      {"2024-01-01", "\"2024-01-01\""},  // go-yaml v2 keeps timestamps strings in interface{}
  };
  for (const Case& c : cases) {
    INFO(c.yaml);
    Value root = LoadOne(std::string("v: ") + c.yaml + "\n");
    CHECK(ToJson(*root.Find("v")) == c.json);
  }
}

TEST_CASE("hostile: YAML 1.1 quantities read as Kubernetes reads them", "[hostile][lint]") {
  const Policy& policy = DefaultPolicy();
  Inventory inventory = BuildInventory(policy, {});
  // sigs.k8s.io/yaml turns `memory: 0x10` into the JSON number 16: 16 bytes.
  // The headroom mutation adds the policy's 1Gi per GPU to what it read.
  struct Case {
    const char* memory;
    const char* patched;  // request + 1Gi, as Kubernetes' canonical text
  };
  const Case cases[] = {
      {"0x10", "1073741840"},  // 16 + 1Gi
      {"010", "1073741832"},   // 8 + 1Gi (octal)
      {"1_024", "1073742848"},
      {"1e3", "1073742824"},
      // a float64 first: 1, not a fraction of a byte that rounds up to 2
      {"1.0000000000000001", "1073741825"},
      {"'010'", "1073741834"},  // quoted: the string "010", decimal 10
  };
  for (const Case& c : cases) {
    INFO(c.memory);
    Value pod = LoadOne(GpuPod(std::string("{memory: ") + c.memory + "}", "{nvidia.com/gpu: 1}"));
    std::string request;
    for (const PatchOp& op : Mutate(pod, policy, inventory))
      if (op.path == "/spec/containers/0/resources/requests/memory") request = ToJson(op.value);
    CHECK(request == std::string("\"") + c.patched + "\"");
  }
  // The same reading shows in findings: negative values are named as read.
  std::vector<std::string> verdict =
      Verdict(GpuPod("{memory: -0x10, cpu: -010}", "{memory: on, nvidia.com/gpu: 1}"));
  CHECK(verdict == std::vector<std::string>{
                       "9:26 quantity-invalid: memory: -16 is negative; the API server requires "
                       "resource values >= 0",
                       "9:38 quantity-invalid: cpu: -8 is negative; the API server requires "
                       "resource values >= 0",
                       "10:24 quantity-invalid: memory: true is not a valid quantity: a quantity "
                       "must be a number or a string, not a bool",
                   });
}

TEST_CASE("hostile: unknown and mismatched tags", "[hostile][lint]") {
  // Application tags leave a scalar a string, as go-yaml does.
  Value root = LoadOne("a: !foo 1Gi\nb: !<tag:example.com,2024:q> 2\nc: !Pod {x: 1}\nd: !!binary aGk=\n");
  CHECK(ToJson(root) == R"({"a":"1Gi","b":"2","c":{"x":1},"d":"aGk="})");
  CHECK(Verdict(GpuPod("{memory: !foo 1Gi}", "{memory: !foo 1Gi, nvidia.com/gpu: !!int 1}"))
            .empty());
  CHECK(RulesOf(Verdict(GpuPod("{memory: !foo 1Gi}", "{memory: !foo 1GB, nvidia.com/gpu: 1}"))) ==
        std::vector<std::string>{"quantity-invalid"});
  CHECK(RefusedWith("a: !!int 1Gi\n") == "m.yaml:1:4: \"1Gi\" is not a valid !!int");
  CHECK(RefusedWith("a: !!bool maybe\n") == "m.yaml:1:4: \"maybe\" is not a valid !!bool");
  CHECK(RefusedWith("a: !x!y 1\n").find("m.yaml:1:4: ") == 0);
}

}  // namespace
}  // namespace gpulint
