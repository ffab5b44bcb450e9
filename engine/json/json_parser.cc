// JSON (an AdmissionReview body) to a Value: RapidJSON's SAX reader first, as
// nlohmann's lexer took a third of the webhook's parse-and-evaluate time; when
// it refuses the text, nlohmann's parser (json_parser_nlohmann.cc) reads it
// again, so errors keep nlohmann's words and positions, and anything the two
// disagree on is settled by nlohmann. Where RapidJSON 1.1 accepts what
// nlohmann refuses, the handler below refuses it: lone low surrogates, floats
// beyond a double. RapidJSON stops at a NUL byte as at the end of the text;
// such text goes to nlohmann too, which refuses a NUL anywhere.
#include "engine/json/json_parser.h"

#include <rapidjson/error/error.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "engine/json/json_tree_builder.h"

namespace gpulint {
namespace {

// RapidJSON's events, handed to the tree builder. Every refusal only sends the
// text to nlohmann, so none needs a message.
class RapidSax {
 public:
  // `escapes`: the text has a \u escape, which may spell a lone low surrogate.
  RapidSax(JsonTreeBuilder* tree, bool escapes) : tree_(*tree), escapes_(escapes) {}

  bool Null() { return tree_.Add(Value()); }
  bool Bool(bool b) { return tree_.Add(Value::Scalar(Value::Type::kBool, b ? "true" : "false")); }
  // Numbers come as text (kParseNumbersAsStringsFlag): these are never called.
  bool Int(int) { return false; }
  bool Uint(unsigned) { return false; }
  bool Int64(int64_t) { return false; }
  bool Uint64(uint64_t) { return false; }
  bool Double(double) { return false; }
  bool RawNumber(const char* text, rapidjson::SizeType length, bool copy);
  bool String(const char* s, rapidjson::SizeType length, bool) {
    return Utf8(s, length) && tree_.Add(Value::String(std::string(s, length)));
  }
  bool StartObject() { return tree_.Open(Value::Type::kMapping); }
  bool Key(const char* s, rapidjson::SizeType length, bool) {
    return Utf8(s, length) && tree_.Key(std::string(s, length));
  }
  bool EndObject(rapidjson::SizeType) { return tree_.Close(); }
  bool StartArray() { return tree_.Open(Value::Type::kSequence); }
  bool EndArray(rapidjson::SizeType) { return tree_.Close(); }

 private:
  // RapidJSON encodes an escaped lone low surrogate ("\udc00") as ED B0 80,
  // which is not UTF-8; nlohmann refuses it.
  bool Utf8(const char* s, size_t length) const {
    if (!escapes_) return true;  // the bytes of the text were checked before
    const char* end = s + length;
    for (const char* p = s; (p = static_cast<const char*>(std::memchr(p, 0xED, end - p)));) {
      if (++p < end && static_cast<unsigned char>(*p) >= 0xA0) return false;
    }
    return true;
  }

  JsonTreeBuilder& tree_;
  bool escapes_;
};

// The Value nlohmann gives a number: an int when it fits 64 bits (signed or
// not), as std::to_string writes it ("-0" is "0"); otherwise a float with
// the text as written, refused when it overflows a double. `text` is
// NUL-terminated (RapidJSON copies numbers to its stack with a NUL).
bool RapidSax::RawNumber(const char* text, rapidjson::SizeType length, bool copy) {
  std::string_view t(text, length);
  if (!copy) return false;  // not NUL-terminated: never the case without kParseInsituFlag
  if (t.find_first_of(".eE") == std::string_view::npos) {
    bool minus = t[0] == '-';
    size_t digits = t.size() - (minus ? 1 : 0);
    if (digits < 19) {  // fits either way
      return tree_.Add(Value::Scalar(Value::Type::kInt, t == "-0" ? "0" : std::string(t)));
    }
    errno = 0;
    if (minus) {
      long long n = std::strtoll(text, nullptr, 10);
      if (errno == 0) return tree_.Add(Value::Scalar(Value::Type::kInt, std::to_string(n)));
    } else {
      unsigned long long n = std::strtoull(text, nullptr, 10);
      if (errno == 0) return tree_.Add(Value::Scalar(Value::Type::kInt, std::to_string(n)));
    }
  }
  if (!std::isfinite(std::strtod(text, nullptr))) return false;
  return tree_.Add(Value::Scalar(Value::Type::kFloat, std::string(t)));
}

// UTF-8 as RFC 3629 has it: no overlong forms, no surrogates, nothing beyond
// U+10FFFF. ASCII, most of a review, goes eight bytes at a time.
bool IsUtf8(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const unsigned char* end = p + text.size();
  while (p < end) {
    if (end - p >= 8) {
      uint64_t word;
      std::memcpy(&word, p, 8);
      if ((word & 0x8080808080808080ULL) == 0) {
        p += 8;
        continue;
      }
    }
    unsigned char c = *p;
    if (c < 0x80) {
      ++p;
      continue;
    }
    ptrdiff_t tail;  // continuation bytes; the first one's range is narrower for some leads
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      tail = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      tail = 2;
      if (c == 0xE0) lo = 0xA0;  // overlong
      if (c == 0xED) hi = 0x9F;  // surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      tail = 3;
      if (c == 0xF0) lo = 0x90;  // overlong
      if (c == 0xF4) hi = 0x8F;  // beyond U+10FFFF
    } else {
      return false;
    }
    if (end - p <= tail || p[1] < lo || p[1] > hi) return false;
    for (ptrdiff_t i = 2; i <= tail; ++i)
      if ((p[i] & 0xC0) != 0x80) return false;
    p += tail + 1;
  }
  return true;
}

// RapidJSON's recursive parser: 21.0 -> 17.4 us per review against its
// iterative one (bench/json_parse; callgrind counts the same instructions, so
// the iterative state machine's cost is in how its branches run).
// Its depth is bounded by the builder, which refuses a container past
// max_depth before RapidJSON descends into it; a caller asking for more than
// kMaxRecursion levels is served by nlohmann's parser, which keeps its own stack.
constexpr size_t kMaxRecursion = 512;

}  // namespace

JsonParse ParseJsonFastWithin(std::string_view text, const JsonLimits& limits, Value* out,
                              Error* error, const JsonItemSink& items) {
  constexpr unsigned kFlags = rapidjson::kParseNumbersAsStringsFlag;
  if (limits.max_depth > kMaxRecursion || !IsUtf8(text)) return JsonParse::kInvalid;
  JsonTreeBuilder tree(limits, items);
  RapidSax sax(&tree, text.find("\\u") != std::string_view::npos);
  rapidjson::MemoryStream in(text.data(), text.size());
  rapidjson::Reader reader;
  rapidjson::ParseResult result = reader.Parse<kFlags>(in, sax);
  if (tree.over_budget()) {
    *error = tree.error();
    return JsonParse::kOverBudget;
  }
  // The reader stops at a NUL byte as at the end: what follows must be nothing.
  if (result.IsError() || tree.failed() || in.Tell() != text.size()) return JsonParse::kInvalid;
  *out = tree.TakeRoot();
  return JsonParse::kOk;
}

bool ParseJsonFast(std::string_view text, size_t max_depth, Value* out, const JsonItemSink& items) {
  Error unused;
  return ParseJsonFastWithin(text, JsonLimits{max_depth, 0}, out, &unused, items) ==
         JsonParse::kOk;
}

JsonParse ParseJsonWithin(std::string_view text, const JsonLimits& limits, Value* out,
                          Error* error) {
  JsonParse fast = ParseJsonFastWithin(text, limits, out, error);
  if (fast != JsonParse::kInvalid) return fast;
  return ParseJsonNlohmannWithin(text, limits, out, error);
}

bool ParseJson(std::string_view text, size_t max_depth, Value* out, Error* error) {
  return ParseJsonWithin(text, JsonLimits{max_depth, 0}, out, error) == JsonParse::kOk;
}

bool ParseJsonList(std::string_view text, size_t max_depth, Value* out, Error* error,
                   const JsonItemSink& items) {
  size_t handed = 0;
  auto counted = [&](Value& item) {
    ++handed;
    items(item);
  };
  if (ParseJsonFast(text, max_depth, out, counted)) return true;
  // nlohmann reads it again, for the words of the error or where the two
  // disagree; the items the fast parser handed on are the same first ones.
  size_t skip = handed;
  auto rest = [&](Value& item) {
    if (skip > 0) {
      --skip;
      return;
    }
    items(item);
  };
  return ParseJsonNlohmann(text, max_depth, out, error, rest);
}

}  // namespace gpulint
