// Value as a tagged union: each type holds only its own storage, and every
// accessor answers for every type as it did when a value held all three.
#include "engine/base/value.h"

#include <catch2/catch.hpp>
#include <string>
#include <utility>

namespace gpulint {
namespace {

Value Map(std::initializer_list<std::pair<const char*, Value>> members) {
  Value v(Value::Type::kMapping);
  for (const auto& [k, m] : members) v.mutable_members().emplace_back(k, m);
  return v;
}

Value Seq(std::initializer_list<Value> items) {
  Value v(Value::Type::kSequence);
  for (const Value& i : items) v.mutable_items().push_back(i);
  return v;
}

TEST_CASE("Value: a value is no larger than its text and a mark", "[value]") {
  // The union of a std::string and two vectors, a mark, a type: 48 bytes on
  // libstdc++ (40 on libc++), where three fields side by side took 96.
  CHECK(sizeof(Value) <= sizeof(std::string) + sizeof(Mark) + 8);
}

TEST_CASE("Value: every accessor answers for every type", "[value]") {
  const Value null;
  const Value text = Value::String("abc", Mark{3, 4});
  const Value seq = Seq({Value::String("x")});
  const Value map = Map({{"k", Value::String("v")}});

  CHECK(null.is_null());
  CHECK(null.text().empty());
  CHECK(null.items().empty());
  CHECK(null.members().empty());
  CHECK(text.text() == "abc");
  CHECK(text.mark().line == 3);
  CHECK(text.mark().column == 4);
  CHECK(text.items().empty());
  CHECK(text.members().empty());
  CHECK(text.Find("k") == nullptr);
  // A container has no text, and only its own kind of children.
  CHECK(seq.text().empty());
  CHECK(seq.items().size() == 1);
  CHECK(seq.members().empty());
  CHECK(map.text().empty());
  CHECK(map.items().empty());
  CHECK(map.members().size() == 1);
  CHECK(map.StringAt("k") == "v");
  CHECK(map.StringAt("missing", "fallback") == "fallback");
  // Scalar() of a container type is the empty container: it has no text.
  CHECK(Value::Scalar(Value::Type::kSequence, "dropped").is_sequence());
  CHECK(Value::Scalar(Value::Type::kSequence, "dropped").text().empty());
  CHECK(Value(Value::Type::kInt).text().empty());
}

TEST_CASE("Value: writing a kind of child a value does not have changes nothing", "[value]") {
  Value text = Value::String("abc");
  text.mutable_items().push_back(Value::String("lost"));
  text.mutable_members().emplace_back("lost", Value());
  CHECK(text.is_string());
  CHECK(text.text() == "abc");
  CHECK(text.items().empty());
  CHECK(text.members().empty());
  CHECK(ToJson(text) == "\"abc\"");
  // And nothing written there shows up in another value's.
  Value other(Value::Type::kInt);
  CHECK(other.mutable_items().empty());
  Value seq(Value::Type::kSequence);
  seq.set_text("ignored");
  CHECK(seq.text().empty());
  CHECK(ToJson(seq) == "[]");
}

TEST_CASE("Value: copies and moves keep type, text, children and mark", "[value]") {
  Value tree = Map({{"a", Seq({Value::String("x", Mark{1, 2}), Value()})},
                    {"b", Value::Scalar(Value::Type::kInt, "7")}});
  tree.set_mark(Mark{5, 6});
  const std::string json = ToJson(tree);

  Value copy = tree;
  CHECK(ToJson(copy) == json);
  CHECK(copy.mark().line == 5);
  CHECK(copy.Find("a")->items()[0].mark().column == 2);
  Value moved = std::move(copy);
  CHECK(ToJson(moved) == json);
  CHECK(moved.mark().column == 6);

  // Assignment across types: each storage made and unmade in turn.
  Value v = Value::String("s");
  v = tree;
  CHECK(ToJson(v) == json);
  v = Value::Scalar(Value::Type::kBool, "true");
  CHECK(ToJson(v) == "true");
  v = Seq({Value::String("x")});
  CHECK(ToJson(v) == "[\"x\"]");
  v = Value();
  CHECK(v.is_null());
  CHECK(ToJson(v) == "null");

  Value self = tree;
  Value& alias = self;
  self = alias;  // self-assignment
  CHECK(ToJson(self) == json);
  self = std::move(alias);
  CHECK(ToJson(self) == json);
}

TEST_CASE("Value: a tree may be assigned one of its own children", "[value]") {
  Value tree = Map({{"a", Map({{"b", Seq({Value::String("deep")})}})}});
  tree = tree.members()[0].second;  // a copy of a child that dies with the tree
  CHECK(ToJson(tree) == R"({"b":["deep"]})");
  tree = std::move(tree.mutable_members()[0].second);
  CHECK(ToJson(tree) == R"(["deep"])");
  tree = std::move(tree.mutable_items()[0]);
  CHECK(ToJson(tree) == R"("deep")");
}

}  // namespace
}  // namespace gpulint
