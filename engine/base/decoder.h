// Strict decoding, the way Kubernetes' strict decoder reads an object: unknown
// fields and wrong types are errors, each with the position of the offending
// value and the field path leading to it. The policy loader reads with it
// (engine/policy/policy_schema.h), and so does the node-class reader
// (engine/cluster/inventory.cc).
#ifndef GPULINT_ENGINE_BASE_DECODER_H_
#define GPULINT_ENGINE_BASE_DECODER_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/finding.h"
#include "engine/base/value.h"
#include "engine/quantity/quantity.h"

namespace gpulint {

// Reads typed values out of a Value tree. Each call returns false when what
// it reads is wrong, and records why; the next call reads on, so a caller
// that goes on to the next value finds every error in one pass (the policy
// loader), and one that stops at the first false reports that one.
class StrictDecoder {
 public:
  explicit StrictDecoder(std::string file) : file_(std::move(file)) {}
  // Also copies the first error into *first (for a caller that reports one).
  StrictDecoder(std::string file, Error* first) : file_(std::move(file)), first_(first) {}

  bool failed() const { return !errors_.empty(); }
  size_t error_count() const { return errors_.size(); }
  const std::string& file() const { return file_; }
  // The errors recorded, in the order they were found.
  std::vector<Error> TakeErrors() { return std::move(errors_); }

  // Records "path: message" at `at`'s position. Returns false.
  bool Fail(const Value& at, std::string_view path, std::string_view message);

  // A mapping whose keys are all in `known`, each other key an error. Null
  // counts as an empty mapping.
  bool ExpectFields(const Value& v, std::string_view path,
                    const std::vector<std::string_view>& known);
  // A mapping with any keys (labels, allocatable, rules). Null is empty.
  bool ExpectMapping(const Value& v, std::string_view path);
  // A sequence; null is empty.
  bool ExpectSequence(const Value& v, std::string_view path);

  bool ReadString(const Value& v, std::string_view path, std::string* out);
  bool ReadNonEmptyString(const Value& v, std::string_view path, std::string* out);
  bool ReadBool(const Value& v, std::string_view path, bool* out);
  // A whole number in [min, max].
  bool ReadInt(const Value& v, std::string_view path, int64_t min, int64_t max, int64_t* out);
  // A Kubernetes quantity written as a string or a number.
  bool ReadQuantity(const Value& v, std::string_view path, Quantity* out);
  // A number from 0 to 100 with at most three decimals, as thousandths.
  bool ReadPercentMilli(const Value& v, std::string_view path, int64_t* out);
  // Every item, or member, is read, each wrong one an error.
  bool ReadStringList(const Value& v, std::string_view path, std::vector<std::string>* out);
  bool ReadStringMap(const Value& v, std::string_view path,
                     std::map<std::string, std::string>* out);

 private:
  bool WrongType(const Value& v, std::string_view path, std::string_view expected);

  std::string file_;
  Error* first_ = nullptr;
  std::vector<Error> errors_;
};

}  // namespace gpulint

#endif  // GPULINT_ENGINE_BASE_DECODER_H_
