#include "engine/workload/headroom_record.h"

#include "engine/base/finding.h"
#include "engine/base/value.h"
#include "engine/json/json_parser.h"

namespace gpulint {
namespace {

std::optional<std::string> StringAt(const Value& map, std::string_view key) {
  const Value* v = map.Find(key);
  if (!v || !v->is_string()) return std::nullopt;
  return v->text();
}

}  // namespace

std::string WriteHeadroomRecord(const HeadroomRecord& record) {
  Value out(Value::Type::kMapping);
  for (const auto& [name, entry] : record) {
    Value fields(Value::Type::kMapping);
    for (auto [key, text] :
         {std::pair{"added", &entry.added}, std::pair{"requests", &entry.requests},
          std::pair{"limits", &entry.limits}})
      if (*text) fields.mutable_members().push_back({key, Value::String(**text)});
    out.mutable_members().push_back({name, std::move(fields)});
  }
  return ToJson(out);
}

bool ReadHeadroomRecord(std::string_view text, HeadroomRecord* record) {
  Value parsed;
  Error error;
  if (!ParseJson(text, 4, &parsed, &error) || !parsed.is_mapping()) return false;
  record->clear();
  for (const auto& [name, v] : parsed.members()) {
    HeadroomEntry entry;
    if (v.is_string()) {
      entry.added = v.text();
    } else if (v.is_mapping()) {
      entry.added = StringAt(v, "added");
      entry.requests = StringAt(v, "requests");
      entry.limits = StringAt(v, "limits");
    }
    record->push_back({name, std::move(entry)});
  }
  return true;
}

const HeadroomEntry* FindHeadroomEntry(const HeadroomRecord& record, std::string_view container) {
  for (const auto& [name, entry] : record)
    if (name == container) return &entry;
  return nullptr;
}

}  // namespace gpulint
