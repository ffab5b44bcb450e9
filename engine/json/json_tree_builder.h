// The Value tree of a JSON text, built from parser events: shared by the two
// JSON parsers in json_parser.cc (RapidJSON, fast) and json_parser_nlohmann.cc
// (nlohmann, whose messages the errors carry). Nesting is refused before a
// level is opened, duplicate keys when they are read. The children of the
// open containers wait on two stacks, so that each container's vector is
// allocated once, at its size, when it closes: growing the vectors member by
// member cost more than RapidJSON's whole parse.
#ifndef GPULINT_ENGINE_JSON_JSON_TREE_BUILDER_H_
#define GPULINT_ENGINE_JSON_JSON_TREE_BUILDER_H_

#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/base/finding.h"
#include "engine/base/value.h"
#include "engine/json/json_parser.h"

namespace gpulint {

class JsonTreeBuilder {
 public:
  // `items`, when given, takes each item of the root's "items" array as it
  // closes, instead of the tree (json_parser.h, JsonItemSink).
  explicit JsonTreeBuilder(size_t max_depth, JsonItemSink items = nullptr)
      : JsonTreeBuilder(JsonLimits{max_depth, 0}, std::move(items)) {}
  explicit JsonTreeBuilder(const JsonLimits& limits, JsonItemSink items = nullptr)
      : max_depth_(limits.max_depth),
        max_tree_bytes_(limits.max_tree_bytes),
        items_sink_(std::move(items)) {}

  bool Open(Value::Type type);
  bool Close();
  bool Add(Value v);
  bool Key(std::string key);  // the next member's name; false for a duplicate
  bool Fail(std::string message) {
    failed_ = true;
    error_.message = std::move(message);
    return false;
  }

  Value TakeRoot() { return std::move(root_); }
  const Error& error() const { return error_; }
  bool failed() const { return failed_; }
  // The failure was the budget's (max_tree_bytes), not the text's.
  bool over_budget() const { return over_budget_; }
  // What the tree and the stacks take now, as the budget counts it (with
  // no budget, only the stacks).
  size_t tree_bytes() const { return held_; }

 private:
  struct Frame {
    Value::Type type;
    size_t start = 0;  // its first child in items_ or members_
    size_t count = 0;  // its children so far (members: the one being read included)
    std::unordered_map<std::string, size_t> index;  // key -> member, for large objects
  };
  std::string Path() const;

  // Whether a value added now is an item of the root's "items" array.
  bool StreamsItem() const;
  // Whether `bytes` more fit the budget: fails (over budget) when not.
  // Without a budget nothing is counted, and nothing costs a call.
  // Under a budget, held_ never passes it.
  bool Afford(size_t bytes) {
    return max_tree_bytes_ == 0 || bytes <= max_tree_bytes_ - held_ || OverBudget();
  }
  bool Spend(size_t bytes) {  // Afford, and count them
    if (!Afford(bytes)) return false;
    held_ += bytes;
    return true;
  }
  bool OverBudget();  // fails, saying where
  template <typename T>
  bool Room(std::vector<T>* stack);

  size_t max_depth_;
  size_t max_tree_bytes_;  // 0: no limit
  size_t held_ = 0;        // what the budget counts; with no budget, only the stacks
  JsonItemSink items_sink_;
  std::vector<Frame> stack_;
  std::vector<Value> items_;            // of the open sequences
  std::vector<Value::Member> members_;  // of the open mappings
  Value root_;
  Error error_;
  bool failed_ = false;
  bool over_budget_ = false;
};

// The two parsers, apart, so that tests can hold one to the other.
// The fast one: true with *out when `text` is JSON that the nlohmann parser
// accepts with the same tree; false otherwise (it words no error, and may
// refuse text nlohmann accepts, such as a byte order mark).
bool ParseJsonFast(std::string_view text, size_t max_depth, Value* out,
                   const JsonItemSink& items = nullptr);
// The same within `limits`: kOk; kOverBudget with *error (the budget is the
// same whichever parser reads the text, so nlohmann is not asked again); or
// kInvalid, with no error worded, for nlohmann to read.
JsonParse ParseJsonFastWithin(std::string_view text, const JsonLimits& limits, Value* out,
                              Error* error, const JsonItemSink& items = nullptr);
// nlohmann's: the reference, and the words of every error.
bool ParseJsonNlohmann(std::string_view text, size_t max_depth, Value* out, Error* error,
                       const JsonItemSink& items = nullptr);
JsonParse ParseJsonNlohmannWithin(std::string_view text, const JsonLimits& limits, Value* out,
                                  Error* error, const JsonItemSink& items = nullptr);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_JSON_JSON_TREE_BUILDER_H_
