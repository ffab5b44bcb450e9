// The policy format as one table: every field of a Policy document, its type,
// bounds, a line about it, and where its value goes in a Policy. The strict
// decoder (policy_loader.cc) reads documents with it, and the JSON Schema and
// the field reference (policy_json_schema.cc) are written from it, so decoding
// and the schema cannot disagree. What a JSON Schema cannot say (an RE2
// pattern compiles, replicas need sharing, names are unique, a class's GPU
// count is worked out) are checks beside the table, in policy_schema.cc.
//
// Adding a field: one entry in its object's table in policy_schema.cc, e.g.
//   Int<&GpuInfo::count>("count", 0, 1024, "Physical GPUs per node."),
// plus a check there if it has rules of its own. Its type picks the decoding
// and the error messages (policy_decoder.h).
#ifndef GPULINT_ENGINE_POLICY_POLICY_SCHEMA_H_
#define GPULINT_ENGINE_POLICY_POLICY_SCHEMA_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/base/value.h"
#include "engine/policy/policy.h"
#include "engine/quantity/quantity.h"

namespace gpulint {

class PatternList;
class StrictDecoder;

inline constexpr std::string_view kPolicyApiVersion = "gpulint.io/v1alpha1";
inline constexpr std::string_view kPolicyKind = "Policy";

// The policy format as a JSON Schema (draft-07): of a whole Policy document,
// or of the webhook chart's `policy` value ({name, spec}, name becoming
// metadata.name). Indented JSON text ending in a newline.
enum class PolicySchemaShape { kDocument, kChartValues };
std::string PolicyJsonSchema(PolicySchemaShape shape, const PolicyNames& names);
// The field reference of policies/README.md: a Markdown table, one row a field.
std::string PolicyFieldReference();

enum class FieldType : uint8_t {
  kString,       // text; `non_empty`, `text` may narrow it
  kBool,         // true or false
  kInt,          // a whole number from `min` to `max`
  kQuantity,     // a Kubernetes quantity, a string or a number; see `bound`
  kPercent,      // a number from 0 to 100 with at most three decimals
  kEnum,         // one of `values`
  kConstant,     // exactly values[0] (apiVersion, kind)
  kStringList,   // strings, each as a kString field says
  kPatternList,  // RE2 patterns, compiled when the policy loads
  kStringMap,    // string values by key (labels)
  kQuantityMap,  // quantities by resource name (allocatable)
  kObject,       // the object `fields` describes
  kObjectList,   // a list of such objects
  kObjectMap,    // such objects by key (reserved by resource, rules by name)
};

// What a quantity may be, beyond its grammar.
enum class QuantityBound : uint8_t { kAny, kNonNegative, kPositive };

// A rule on a string's text beyond its type. The decoder matches it with RE2
// and the JSON Schema carries it as "pattern"; both search (anchor it with
// ^...$ to match the whole text), and it uses only syntax both RE2 and
// ECMA-262 read alike.
struct TextRule {
  std::string_view pattern;
  std::string (*message)(std::string_view text);  // why `text` does not match
};

// Which keys a map of objects allows.
enum class KeySet : uint8_t {
  kAny,
  kRules,  // the names in PolicyNames::rules
};

struct Field;
using FieldList = std::span<const Field>;

// A check the table cannot express, run once the object at `path` (the value
// `v`) is decoded into `target`. Reports through the decoder.
using ObjectCheck = bool (*)(StrictDecoder& d, const Value& v, const std::string& path,
                             void* target);
// Run once item `index` of `list` is decoded and added to `container` (a
// std::vector of the item type).
using ItemCheck = bool (*)(StrictDecoder& d, const Value& list, size_t index,
                           const std::string& path, void* container);

// Adds a fresh item to a container of objects: appended to a vector, or
// assigned to a map under `key` (replacing that key's item whole). Returns it.
using AddItem = void* (*)(void* container, const std::string& key);

// One field. Built with the helpers below, never by hand, so that the type of
// the member a field writes always matches its FieldType.
struct Field {
  std::string_view name;
  FieldType type = FieldType::kString;
  std::string_view description;  // one line, for the schema and the reference
  bool required = false;
  bool non_empty = false;                         // kString, kStringList items: "" is refused
  int64_t min = 0, max = 0;                       // kInt
  QuantityBound bound = QuantityBound::kAny;      // kQuantity, kQuantityMap values
  std::span<const std::string_view> values = {};  // kEnum; kConstant: the one value
  const TextRule* text = nullptr;                 // kString, kStringList items
  const char* if_empty = nullptr;                 // kStringList: an empty list is refused with this
  FieldList fields = {};                          // kObject, kObjectList, kObjectMap
  // kObjectMap: the only keys allowed; kStringList: the only items ("*" besides)
  KeySet keys = KeySet::kAny;
  std::string_view key_noun = {};                 // kObjectMap: what a key is ("rule", "resource")
  // Where the value goes: the member of the object holding the field (null:
  // read, checked and dropped). Objects, lists and maps of objects are
  // decoded in place; other values are decoded whole, then handed to
  // `assign` with a pointer to the decoded value (std::string, bool, int64_t,
  // Quantity, EnumChoice, std::vector<std::string>, PatternList,
  // std::map<std::string, std::string>, ResourceList), which it moves from.
  void* (*slot)(void* owner) = nullptr;
  void (*assign)(void* member, void* decoded) = nullptr;
  AddItem add_item = nullptr;  // kObjectList, kObjectMap
  // kObjectList: empties the list before its items are added (null: the
  // items are added to what is there, and an item check places each one).
  void (*clear)(void* container) = nullptr;
  ObjectCheck check = nullptr;     // kObject and the items of lists and maps
  ItemCheck item_check = nullptr;  // kObjectList
  const char* owner = nullptr;     // type tags, checked by WellTyped
  const char* target = nullptr;    // kObject*: the type `fields` describe

  constexpr Field Required() const {
    Field f = *this;
    f.required = true;
    return f;
  }
  constexpr Field Check(ObjectCheck c) const {
    Field f = *this;
    f.check = c;
    return f;
  }
  constexpr Field CheckItem(ItemCheck c) const {
    Field f = *this;
    f.item_check = c;
    return f;
  }
};

// The fields of a Policy document (apiVersion, kind, metadata, spec).
FieldList PolicyDocumentFields();

// An enum value as decoded: its index in `values` and its name.
struct EnumChoice {
  size_t index = 0;
  std::string_view name;
};

// The helpers the table is written with (policy_schema.cc). Each takes the
// member its value goes to: a chain of member pointers from the C++ object
// that holds the field.
namespace schema {
namespace internal {

template <typename T>
inline constexpr char kTypeTag = 0;
template <typename T>
constexpr const char* Tag() {
  return &kTypeTag<T>;
}

template <typename>
struct MemberOf;
template <typename C, typename T>
struct MemberOf<T C::*> {
  using Owner = C;
  using Type = T;
};

// The member that a chain of member pointers reaches from the first's owner:
// Member<&Policy::mutations, &Mutations::vram> is a Policy's mutations.vram.
template <auto First, auto... Rest>
struct Chain {
  using Owner = typename MemberOf<decltype(First)>::Owner;
  using Type = typename Chain<Rest...>::Type;
  static void* Slot(void* owner) {
    return Chain<Rest...>::Slot(&(static_cast<Owner*>(owner)->*First));
  }
};
template <auto Last>
struct Chain<Last> {
  using Owner = typename MemberOf<decltype(Last)>::Owner;
  using Type = typename MemberOf<decltype(Last)>::Type;
  static void* Slot(void* owner) { return &(static_cast<Owner*>(owner)->*Last); }
};

inline void* Itself(void* owner) { return owner; }

template <typename Decoded, typename Member>
void Assign(void* member, void* decoded) {
  *static_cast<Member*>(member) = std::move(*static_cast<Decoded*>(decoded));
}

// An enum lands in a string as its name, in an enum (or an optional one) as
// the value at its index: the table's values are listed in the enum's order.
template <typename Member>
void AssignEnum(void* member, void* decoded) {
  const auto& choice = *static_cast<EnumChoice*>(decoded);
  if constexpr (std::is_same_v<Member, std::string>) {
    *static_cast<Member*>(member) = std::string(choice.name);
  } else if constexpr (std::is_enum_v<Member>) {
    *static_cast<Member*>(member) = static_cast<Member>(choice.index);
  } else {
    *static_cast<Member*>(member) = static_cast<typename Member::value_type>(choice.index);
  }
}

template <typename Container>
void Clear(void* container) {
  static_cast<Container*>(container)->clear();
}

template <typename Container>
void* AddTo(void* container, const std::string& key) {
  auto& c = *static_cast<Container*>(container);
  if constexpr (requires { typename Container::mapped_type; }) {
    typename Container::mapped_type& item = c[key];
    item = {};
    return &item;
  } else {
    return &c.emplace_back();
  }
}

// A leaf field writing member chain M... as `Decoded`.
template <FieldType type, typename Decoded, auto... M>
constexpr Field Leaf(std::string_view name, std::string_view description) {
  using C = Chain<M...>;
  static_assert(std::is_assignable_v<typename C::Type&, Decoded&&>,
                "the member cannot hold what this field type decodes");
  return {.name = name,
          .type = type,
          .description = description,
          .slot = &C::Slot,
          .assign = &Assign<Decoded, typename C::Type>,
          .owner = Tag<typename C::Owner>()};
}

}  // namespace internal

template <auto... M>
constexpr Field String(std::string_view name, std::string_view description,
                       const TextRule* text = nullptr) {
  Field f = internal::Leaf<FieldType::kString, std::string, M...>(name, description);
  f.text = text;
  return f;
}
template <auto... M>
constexpr Field NonEmptyString(std::string_view name, std::string_view description,
                               const TextRule* text = nullptr) {
  Field f = String<M...>(name, description, text);
  f.non_empty = true;
  return f;
}
template <auto... M>
constexpr Field Bool(std::string_view name, std::string_view description) {
  return internal::Leaf<FieldType::kBool, bool, M...>(name, description);
}
template <auto... M>
constexpr Field Int(std::string_view name, int64_t min, int64_t max, std::string_view description) {
  Field f = internal::Leaf<FieldType::kInt, int64_t, M...>(name, description);
  f.min = min;
  f.max = max;
  return f;
}
template <auto... M>
constexpr Field QuantityField(std::string_view name, QuantityBound bound,
                              std::string_view description) {
  Field f = internal::Leaf<FieldType::kQuantity, Quantity, M...>(name, description);
  f.bound = bound;
  return f;
}
template <auto... M>
constexpr Field Percent(std::string_view name, std::string_view description) {
  return internal::Leaf<FieldType::kPercent, int64_t, M...>(name, description);
}
template <auto... M>
constexpr Field Enum(std::string_view name, std::span<const std::string_view> values,
                     std::string_view description) {
  using C = internal::Chain<M...>;
  return {.name = name,
          .type = FieldType::kEnum,
          .description = description,
          .values = values,
          .slot = &C::Slot,
          .assign = &internal::AssignEnum<typename C::Type>,
          .owner = internal::Tag<typename C::Owner>()};
}
// Items are non-empty strings.
template <auto... M>
constexpr Field StringList(std::string_view name, std::string_view description,
                           const char* if_empty = nullptr) {
  Field f =
      internal::Leaf<FieldType::kStringList, std::vector<std::string>, M...>(name, description);
  f.non_empty = true;
  f.if_empty = if_empty;
  return f;
}
// Items are strings that follow `text` ("" too, unless it says otherwise).
template <auto... M>
constexpr Field StringList(std::string_view name, const TextRule* text,
                           std::string_view description) {
  Field f =
      internal::Leaf<FieldType::kStringList, std::vector<std::string>, M...>(name, description);
  f.text = text;
  return f;
}
// Items are rule names or "*" (every rule); a name no rule has is refused.
template <auto... M>
constexpr Field RuleList(std::string_view name, std::string_view description) {
  Field f =
      internal::Leaf<FieldType::kStringList, std::vector<std::string>, M...>(name, description);
  f.non_empty = true;
  f.keys = KeySet::kRules;
  return f;
}
template <auto... M>
constexpr Field PatternListField(std::string_view name, std::string_view description) {
  return internal::Leaf<FieldType::kPatternList, PatternList, M...>(name, description);
}
template <auto... M>
constexpr Field StringMap(std::string_view name, std::string_view description) {
  return internal::Leaf<FieldType::kStringMap, std::map<std::string, std::string>, M...>(
      name, description);
}
template <auto... M>
constexpr Field QuantityMap(std::string_view name, QuantityBound bound,
                            std::string_view description) {
  Field f = internal::Leaf<FieldType::kQuantityMap, std::map<std::string, Quantity>, M...>(
      name, description);
  f.bound = bound;
  return f;
}
// A value of `type` that is read and checked, then dropped (metadata.labels).
template <typename Owner>
constexpr Field Ignored(FieldType type, std::string_view name, std::string_view description) {
  return {.name = name, .type = type, .description = description, .owner = internal::Tag<Owner>()};
}
// Exactly `value` (one element).
template <typename Owner>
constexpr Field Constant(std::string_view name, std::span<const std::string_view> value,
                         std::string_view description) {
  return {.name = name,
          .type = FieldType::kConstant,
          .description = description,
          .required = true,
          .values = value,
          .owner = internal::Tag<Owner>()};
}
// An object whose fields write to the same C++ object as its parent's (spec,
// spec.vram: members of Policy).
template <typename Owner>
constexpr Field Section(std::string_view name, FieldList fields, std::string_view description) {
  return {.name = name,
          .type = FieldType::kObject,
          .description = description,
          .fields = fields,
          .slot = &internal::Itself,
          .owner = internal::Tag<Owner>(),
          .target = internal::Tag<Owner>()};
}
// An object decoded into member M (spec.nodeClasses[].gpu: a NodeClass's gpu).
template <auto... M>
constexpr Field Object(std::string_view name, FieldList fields, std::string_view description) {
  using C = internal::Chain<M...>;
  return {.name = name,
          .type = FieldType::kObject,
          .description = description,
          .fields = fields,
          .slot = &C::Slot,
          .owner = internal::Tag<typename C::Owner>(),
          .target = internal::Tag<typename C::Type>()};
}
// A list of objects into a std::vector member, replaced whole; or with
// `merge`, added to what is there (an item check then places each item).
template <auto... M>
constexpr Field ObjectList(std::string_view name, FieldList fields, std::string_view description,
                           bool merge = false) {
  using C = internal::Chain<M...>;
  using Item = typename C::Type::value_type;
  return {.name = name,
          .type = FieldType::kObjectList,
          .description = description,
          .fields = fields,
          .slot = &C::Slot,
          .add_item = &internal::AddTo<typename C::Type>,
          .clear = merge ? nullptr : &internal::Clear<typename C::Type>,
          .owner = internal::Tag<typename C::Owner>(),
          .target = internal::Tag<Item>()};
}
// Objects by key into a std::map member: each key written replaces that key's
// item whole, the others stay. `key_noun` says what a key is; `keys` says
// which keys are allowed.
template <auto... M>
constexpr Field ObjectMap(std::string_view name, FieldList fields, std::string_view description,
                          KeySet keys = KeySet::kAny, std::string_view key_noun = {}) {
  using C = internal::Chain<M...>;
  using Item = typename C::Type::mapped_type;
  return {.name = name,
          .type = FieldType::kObjectMap,
          .description = description,
          .fields = fields,
          .keys = keys,
          .key_noun = key_noun,
          .slot = &C::Slot,
          .add_item = &internal::AddTo<typename C::Type>,
          .owner = internal::Tag<typename C::Owner>(),
          .target = internal::Tag<Item>()};
}

}  // namespace schema

// Whether every field in `fields` writes to an object of type `owner`, and so
// on down: a table that would hand a GpuInfo's fields a NodeClass does not
// compile (static_assert in policy_schema.cc).
constexpr bool WellTyped(FieldList fields, const char* owner) {
  for (const Field& f : fields) {
    if (f.owner != owner) return false;
    if (!f.fields.empty() && !WellTyped(f.fields, f.target)) return false;
  }
  return true;
}

}  // namespace gpulint

#endif  // GPULINT_ENGINE_POLICY_POLICY_SCHEMA_H_
