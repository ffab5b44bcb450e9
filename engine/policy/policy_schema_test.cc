// The decoder and the generated JSON Schema agree on every field: the schema
// is walked, and for every property a document with a valid value, values of
// the wrong type, values out of range or outside the enum, and an unknown key
// in every object is read by the decoder and, where Python's jsonschema is
// installed (Debian's python3-jsonschema), validated against the schema. A
// schema too loose or too strict, or a decoder that drifts from its table,
// fails here.
#include "engine/policy/policy_schema.h"

#include <re2/re2.h>
#include <stdio.h>
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/cluster/inventory.h"
#include "engine/policies.h"
#include "engine/rules/rule.h"
#include "tests/temp_dir.h"

namespace gpulint {
namespace {

using nlohmann::json;

struct Case {
  std::string what;  // "spec.nodeClasses[0].gpu.count = 1025"
  json document;
  bool valid = false;
  std::string path;  // an invalid case is refused at this path, or inside it
};

// Puts a value where the walk is and returns the whole document.
using Wrap = std::function<json(json)>;

bool Allows(const json& schema, const std::string& type) {
  const json& t = schema.at("type");
  if (t.is_string()) return t == type || (type == "integer" && t == "number");
  for (const json& one : t)
    if (one == type || (type == "integer" && one == "number")) return true;
  return false;
}

bool Matches(const json& schema, const std::string& text) {
  if (schema.contains("minLength") && text.size() < schema["minLength"].get<size_t>()) return false;
  return !schema.contains("pattern") ||
         RE2::PartialMatch(text, RE2(schema["pattern"].get<std::string>()));
}

// A value the schema allows: required properties filled in, lists with one item.
json Sample(const json& s) {
  if (s.contains("const")) return s["const"];
  if (s.contains("enum")) return s["enum"][0];
  if (Allows(s, "object")) {
    json o = json::object();
    for (const json& name : s.value("required", json::array()))
      o[name.get<std::string>()] = Sample(s["properties"][name.get<std::string>()]);
    // The one check between fields that the schema does not express: more
    // than 1 replica per GPU needs sharing.
    if (s.contains("properties") && s["properties"].contains("replicas")) o["sharing"] = "mps";
    return o;
  }
  if (Allows(s, "array")) return json::array({Sample(s["items"])});
  if (Allows(s, "boolean")) return true;
  if (Allows(s, "string")) {
    for (const char* text : {"x", "1", "example.com/x", "spec.template", "/var/lib/x"})
      if (Matches(s, text)) return text;
    FAIL("no sample string matches " << s.dump());
    return nullptr;
  }
  return s.value("minimum", 0);  // integer, number
}

// Values of a type the schema does not allow.
std::vector<json> WrongTypes(const json& s) {
  std::vector<json> wrong;
  const std::pair<const char*, json> kOfType[] = {
      {"boolean", true}, {"integer", 7},         {"number", 1.5},  {"string", "x"},
      {"array", {1}},    {"object", {{"a", 1}}}, {"null", nullptr}};
  for (const auto& [type, value] : kOfType)
    if (!Allows(s, type)) wrong.push_back(value);
  return wrong;
}

// Strings tried on every string the schema describes: paths, resource names,
// quantities and what is almost one.
constexpr const char* kStrings[] = {
    "",   "x",   "example.com/x", "spec.template", "spec.*.tasks", "a..b", ".a",
    "a.", "1Gi", "500m",          "1.5",           "1e3",          ".5",   "+2",
    "-1", "0",   "0.0",           "1GB",           "1e",           "1.5.0"};

bool CompilesAsRe2(const std::string& text) {
  RE2 re(text, RE2::Quiet);
  return re.ok();
}

// Values of a type the schema allows, each with whether it allows the value:
// every enum value and one outside it, numbers at and past the bounds, and
// kStrings against the pattern, the length and the format.
std::vector<std::pair<json, bool>> Probes(const json& s) {
  std::vector<std::pair<json, bool>> probes;
  if (s.contains("enum") || s.contains("const")) {
    for (const json& v : s.contains("enum") ? s["enum"] : json::array({s["const"]}))
      probes.push_back({v, true});
    probes.push_back({"bogus-value", false});
    return probes;
  }
  if (Allows(s, "integer")) {
    auto allowed = [&](double v) {
      bool whole = v == static_cast<double>(static_cast<int64_t>(v));
      return (whole || Allows(s, "number")) && (!s.contains("minimum") || v >= s["minimum"]) &&
             (!s.contains("maximum") || v <= s["maximum"]) &&
             (!s.contains("exclusiveMinimum") || v > s["exclusiveMinimum"]);
    };
    std::vector<double> numbers = {-1, 0, 1, 2.5};
    for (const char* bound : {"minimum", "maximum"}) {
      if (!s.contains(bound)) continue;
      numbers.push_back(s[bound].get<double>() - 1);
      numbers.push_back(s[bound].get<double>());
      numbers.push_back(s[bound].get<double>() + 1);
    }
    for (double v : numbers) {
      json number = v == static_cast<int64_t>(v) ? json(static_cast<int64_t>(v)) : json(v);
      probes.push_back({number, allowed(v)});
    }
  }
  if (Allows(s, "string")) {
    for (const char* text : kStrings) {
      bool regex = s.value("format", "") != "regex" || CompilesAsRe2(text);
      probes.push_back({text, Matches(s, text) && regex});
    }
  }
  if (s.contains("minItems")) probes.push_back({json::array(), false});
  return probes;
}

std::string Join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

void Walk(const json& s, const std::string& path, const Wrap& wrap, std::vector<Case>* out) {
  std::string at = path.empty() ? "the document" : path;
  out->push_back({at + " = " + Sample(s).dump(), wrap(Sample(s)), true, path});
  for (const json& v : WrongTypes(s)) out->push_back({at + " = " + v.dump(), wrap(v), false, path});
  for (const auto& [v, valid] : Probes(s))
    out->push_back({at + " = " + v.dump(), wrap(v), valid, path});
  if (s.contains("properties")) {
    json bogus = Sample(s);
    bogus["bogusField"] = 1;
    out->push_back({at + " with an unknown key", wrap(bogus), false, path});
    for (const auto& [name, child] : s["properties"].items()) {
      Wrap inner = [&s, &wrap, name = name](json v) {
        json o = Sample(s);
        o[name] = std::move(v);
        return wrap(o);
      };
      Walk(child, Join(path, name), inner, out);
    }
  } else if (s.contains("additionalProperties") && s["additionalProperties"].is_object()) {
    Wrap inner = [&wrap](json v) { return wrap(json{{"example", std::move(v)}}); };
    Walk(s["additionalProperties"], Join(path, "example"), inner, out);
  } else if (s.contains("items")) {
    Wrap inner = [&wrap](json v) { return wrap(json::array({std::move(v)})); };
    Walk(s["items"], path + "[0]", inner, out);
  }
}

const json& DocumentSchema() {
  static const json schema = json::parse(PolicyJsonSchema(PolicySchemaShape::kDocument));
  return schema;
}

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = [] {
    std::vector<Case> out;
    Walk(
        DocumentSchema(), "", [](json v) { return v; }, &out);
    return out;
  }();
  return cases;
}

// Whether `message` ("spec.x.y: ...") is about `path` or something inside it.
bool At(const std::string& message, const std::string& path) {
  if (path.empty()) return true;
  if (message.rfind(path, 0) != 0 || message.size() == path.size()) return false;
  char next = message[path.size()];
  return next == ':' || next == '.' || next == '[';
}

TEST_CASE("the schema covers every field, with a description", "[policy][schema]") {
  size_t described = 0;
  std::function<void(const json&)> visit = [&](const json& s) {
    if (s.is_object() && s.contains("properties")) {
      for (const auto& [name, property] : s["properties"].items()) {
        INFO(name);
        CHECK(!property.value("description", "").empty());
        ++described;
      }
    }
    if (s.is_object() || s.is_array())
      for (const auto& [key, child] : s.items()) visit(child);
  };
  visit(DocumentSchema());
  CHECK(described > 50);
  const json& rules = DocumentSchema()["properties"]["spec"]["properties"]["rules"];
  CHECK(rules["additionalProperties"] == false);
  CHECK(rules["properties"].size() == AllRules().size());
  for (const Rule* rule : AllRules()) {
    INFO(rule->info.name);
    const json& r = rules["properties"][rule->info.name];
    CHECK(r["description"] == rule->info.title);
    CHECK(r["properties"]["severity"]["enum"] == json({"info", "warning", "error"}));
    CHECK(r["properties"]["enabled"]["type"] == "boolean");
  }
}

TEST_CASE("the table lists enum values in the order of the enums they are read into",
          "[policy][schema]") {
  const json& spec = DocumentSchema()["properties"]["spec"]["properties"];
  const json& sharing =
      spec["nodeClasses"]["items"]["properties"]["gpu"]["properties"]["sharing"]["enum"];
  for (GpuSharing g : {GpuSharing::kNone, GpuSharing::kTimeSlicing, GpuSharing::kMps})
    CHECK(sharing[static_cast<size_t>(g)] == GpuSharingName(g));
  const json& severity =
      spec["rules"]["properties"][AllRules().front()->info.name]["properties"]["severity"]["enum"];
  for (Severity s : {Severity::kInfo, Severity::kWarning, Severity::kError})
    CHECK(severity[static_cast<size_t>(s)] == SeverityName(s));
}

TEST_CASE("the decoder accepts what the schema allows and refuses what it refuses",
          "[policy][schema]") {
  REQUIRE(Cases().size() > 300);
  for (const Case& c : Cases()) {
    INFO(c.what << "\n" << c.document.dump());
    Policy policy;
    Error error;
    bool loaded = LoadPolicyText(c.document.dump(), "policy.json", &policy, &error);
    INFO(error.ToString());
    CHECK(loaded == c.valid);
    if (!loaded && !c.valid) {
      if (!c.document.is_null()) CHECK(error.mark.line > 0);  // every error has its position
      CHECK(At(error.message, c.path));
    }
  }
}

// Runs Python's jsonschema over `documents`; false when it is not installed.
bool Validate(const json& schema, const std::vector<json>& documents, std::vector<bool>* verdicts) {
  if (system("python3 -c 'import jsonschema' >/dev/null 2>&1") != 0) return false;
  TempDir dir;
  std::string input =
      dir.Write("input.json", json{{"schema", schema}, {"documents", documents}}.dump());
  std::string script = dir.Write("validate.py", R"(import json, sys, jsonschema
data = json.load(open(sys.argv[1]))
checker = getattr(jsonschema.Draft7Validator, "FORMAT_CHECKER", None) or \
    jsonschema.draft7_format_checker
validator = jsonschema.Draft7Validator(data["schema"], format_checker=checker)
print(json.dumps([validator.is_valid(d) for d in data["documents"]])))");
  FILE* pipe = popen(("python3 " + script + " " + input).c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  REQUIRE(pclose(pipe) == 0);
  *verdicts = json::parse(out).get<std::vector<bool>>();
  return true;
}

TEST_CASE("a JSON Schema validator agrees with the decoder on every case", "[policy][schema]") {
  json values_schema = json::parse(PolicyJsonSchema(PolicySchemaShape::kChartValues));
  std::vector<json> documents, values;
  std::vector<const Case*> spec_cases;
  for (const Case& c : Cases()) {
    documents.push_back(c.document);
    if (c.path.rfind("spec", 0) != 0) continue;
    values.push_back({{"name", "cluster"}, {"spec", c.document["spec"]}});
    spec_cases.push_back(&c);
  }
  std::vector<bool> verdicts;
  if (!Validate(DocumentSchema(), documents, &verdicts)) {
    WARN(
        "python3 with jsonschema is not installed (Debian: python3-jsonschema); the schema "
        "side is not checked");
    return;
  }
  REQUIRE(verdicts.size() == Cases().size());
  for (size_t i = 0; i < Cases().size(); ++i) {
    INFO(Cases()[i].what << "\n" << Cases()[i].document.dump());
    CHECK(verdicts[i] == Cases()[i].valid);
  }
  // The chart's `policy` value: {name, spec}.
  REQUIRE(Validate(values_schema, values, &verdicts));
  REQUIRE(verdicts.size() == spec_cases.size());
  for (size_t i = 0; i < spec_cases.size(); ++i) {
    INFO("values: " << spec_cases[i]->what);
    CHECK(verdicts[i] == spec_cases[i]->valid);
  }
}

}  // namespace
}  // namespace gpulint
