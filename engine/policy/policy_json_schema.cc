// The JSON Schema and the Markdown field reference of the policy format, both
// written from the table the decoder reads with (policy_schema.h). The schema
// is draft-07, which helm 3 and 4 validate values.schema.json against.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/policy/policy_schema.h"

namespace gpulint {
namespace {

using Json = nlohmann::ordered_json;

// Kubernetes' quantity grammar (engine/quantity/quantity.h) as a pattern, the exponent
// a whole number as ParseQuantity takes it. Non-negative: no minus sign.
// Positive: no minus sign, and a digit other than 0 in the number.
constexpr const char* kSuffix = "([KMGTPE]i|[numkMGTPE]|[eE][+-]?[0-9]+)?$";
std::string QuantityPattern(QuantityBound bound) {
  switch (bound) {
    case QuantityBound::kAny:
      return std::string("^[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)") + kSuffix;
    case QuantityBound::kNonNegative:
      return std::string("^\\+?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)") + kSuffix;
    case QuantityBound::kPositive:
      return std::string("^\\+?([0-9]*[1-9][0-9]*(\\.[0-9]*)?|[0-9]*\\.[0-9]*[1-9][0-9]*)") +
             kSuffix;
  }
  return "";
}

Json QuantitySchema(QuantityBound bound) {
  Json s = {{"type", {"string", "number"}}, {"pattern", QuantityPattern(bound)}};
  if (bound == QuantityBound::kNonNegative) s["minimum"] = 0;
  if (bound == QuantityBound::kPositive) s["exclusiveMinimum"] = 0;
  return s;
}

// A string as a kString field (or a kStringList's items) describes it.
Json StringSchema(const Field& f) {
  Json s = {{"type", "string"}};
  if (f.non_empty) s["minLength"] = 1;
  if (f.text) s["pattern"] = f.text->pattern;
  return s;
}

// The decoder reads null as an empty mapping or list; an object with a
// required field is still refused then.
Json Nullable(const char* type, bool nullable) {
  return nullable ? Json{type, "null"} : Json(type);
}

bool HasRequired(FieldList fields) {
  for (const Field& f : fields)
    if (f.required) return true;
  return false;
}

Json FieldSchema(const Field& f, const PolicyNames& names);

Json ObjectSchema(FieldList fields, const PolicyNames& names) {
  Json s = {{"type", Nullable("object", !HasRequired(fields))}, {"additionalProperties", false}};
  Json properties = Json::object();
  Json required = Json::array();
  for (const Field& f : fields) {
    properties[std::string(f.name)] = FieldSchema(f, names);
    if (f.required) required.push_back(f.name);
  }
  if (!required.empty()) s["required"] = required;
  s["properties"] = properties;
  return s;
}

Json MapSchema(Json item) {
  return {{"type", Nullable("object", true)}, {"additionalProperties", std::move(item)}};
}

Json TypeSchema(const Field& f, const PolicyNames& names) {
  switch (f.type) {
    case FieldType::kString:
      return StringSchema(f);
    case FieldType::kBool:
      return {{"type", "boolean"}};
    case FieldType::kInt:
      return {{"type", "integer"}, {"minimum", f.min}, {"maximum", f.max}};
    case FieldType::kQuantity:
      return QuantitySchema(f.bound);
    case FieldType::kPercent:
      return {{"type", "number"}, {"minimum", 0}, {"maximum", 100}};
    case FieldType::kEnum:
      return {{"type", "string"},
              {"enum", Json(std::vector<std::string_view>(f.values.begin(), f.values.end()))}};
    case FieldType::kConstant:
      return {{"type", "string"}, {"const", f.values.front()}};
    case FieldType::kStringList: {
      Json items = StringSchema(f);
      if (f.keys == KeySet::kRules) {
        Json names_enum = Json::array({"*"});
        for (const KeyName& key : names.rules) names_enum.push_back(std::string(key.name));
        items = {{"type", "string"}, {"enum", names_enum}};
      }
      Json s = {{"type", Nullable("array", f.if_empty == nullptr)}, {"items", items}};
      if (f.if_empty) s["minItems"] = 1;
      return s;
    }
    case FieldType::kPatternList:
      return {{"type", Nullable("array", true)},
              {"items", {{"type", "string"}, {"minLength", 1}, {"format", "regex"}}}};
    case FieldType::kStringMap:
      return MapSchema({{"type", "string"}});
    case FieldType::kQuantityMap:
      return MapSchema(QuantitySchema(f.bound));
    case FieldType::kObject:
      return ObjectSchema(f.fields, names);
    case FieldType::kObjectList:
      return {{"type", Nullable("array", true)}, {"items", ObjectSchema(f.fields, names)}};
    case FieldType::kObjectMap: {
      if (f.keys == KeySet::kAny) return MapSchema(ObjectSchema(f.fields, names));
      Json properties = Json::object();
      for (const KeyName& key : names.rules) {
        Json item = {{"description", key.description}};
        item.update(ObjectSchema(f.fields, names));
        properties[std::string(key.name)] = item;
      }
      return {{"type", Nullable("object", true)},
              {"additionalProperties", false},
              {"properties", properties}};
    }
  }
  return Json::object();
}

Json FieldSchema(const Field& f, const PolicyNames& names) {
  Json s = {{"description", f.description}};
  s.update(TypeSchema(f, names));
  return s;
}

const Field& FindField(FieldList fields, std::string_view name) {
  for (const Field& f : fields)
    if (f.name == name) return f;
  return fields.front();  // the table has every name asked for here
}

// ---- The Markdown reference ----

std::string Code(std::string_view text) { return "`" + std::string(text) + "`"; }

// A description in a table cell: no HTML tags, emphasis or cell breaks.
std::string Escaped(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '|' || c == '*')
      out += {'\\', c};
    else
      out += c;
  }
  return out;
}

std::string Alternatives(std::span<const std::string_view> values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += i + 1 == values.size() ? " or " : ", ";
    out += Code(values[i]);
  }
  return out;
}

std::string BoundText(QuantityBound bound) {
  switch (bound) {
    case QuantityBound::kAny:
      return "";
    case QuantityBound::kNonNegative:
      return " ≥ 0";
    case QuantityBound::kPositive:
      return " > 0";
  }
  return "";
}

std::string TypeText(const Field& f) {
  switch (f.type) {
    case FieldType::kString:
      return f.non_empty ? "non-empty string" : "string";
    case FieldType::kBool:
      return "boolean";
    case FieldType::kInt:
      return "integer, " + std::to_string(f.min) + " to " + std::to_string(f.max);
    case FieldType::kQuantity:
      return "quantity" + BoundText(f.bound);
    case FieldType::kPercent:
      return "number, 0 to 100";
    case FieldType::kEnum:
    case FieldType::kConstant:
      return Alternatives(f.values);
    case FieldType::kStringList:
      if (f.keys == KeySet::kRules) return "list of rule names";
      if (f.if_empty) return "list of strings, at least one";
      return f.text ? "list of dotted paths" : "list of strings";
    case FieldType::kPatternList:
      return "list of RE2 patterns";
    case FieldType::kStringMap:
      return "map of strings";
    case FieldType::kQuantityMap:
      return "map of quantities" + BoundText(f.bound);
    case FieldType::kObject:
      return "object";
    case FieldType::kObjectList:
      return "list of objects";
    case FieldType::kObjectMap:
      return "map of objects by " + std::string(f.key_noun) +
             (f.keys != KeySet::kAny ? " name" : "");
  }
  return "";
}

void AppendRows(FieldList fields, const std::string& prefix, std::string* out) {
  for (const Field& f : fields) {
    std::string path = prefix + std::string(f.name);
    std::string type = TypeText(f);
    if (f.required) type += ", required";
    *out += "| " + Code(path) + " | " + type + " | " + Escaped(f.description) + " |\n";
    if (f.type == FieldType::kObject) AppendRows(f.fields, path + ".", out);
    if (f.type == FieldType::kObjectList) AppendRows(f.fields, path + "[].", out);
    if (f.type == FieldType::kObjectMap)
      AppendRows(f.fields, path + ".<" + std::string(f.key_noun) + ">.", out);
  }
}

}  // namespace

std::string PolicyJsonSchema(PolicySchemaShape shape, const PolicyNames& names) {
  FieldList document = PolicyDocumentFields();
  Json s;
  if (shape == PolicySchemaShape::kDocument) {
    s = {{"$schema", "http://json-schema.org/draft-07/schema#"},
         {"title", "gpulint Policy"},
         {"description",
          "A gpulint policy (policies/README.md), layered on the built-in one. Generated by "
          "'gpulint policy schema' from the table the policy loader reads with."}};
    s.update(ObjectSchema(document, names));
  } else {
    const Field& metadata = FindField(document, "metadata");
    const Field& spec = FindField(document, "spec");
    s = {{"description",
          "The gpulint Policy the webhook loads: name becomes its metadata.name, spec its spec. "
          "Generated by 'gpulint policy schema --values'."},
         {"type", "object"},
         {"additionalProperties", false},
         {"properties",
          {{"name", FieldSchema(FindField(metadata.fields, "name"), names)},
           {"spec", FieldSchema(spec, names)}}}};
  }
  return s.dump(2) + "\n";
}

std::string PolicyFieldReference() {
  std::string out = "| field | type | description |\n|---|---|---|\n";
  AppendRows(PolicyDocumentFields(), "", &out);
  return out;
}

}  // namespace gpulint
