// The one command-line parser of both binaries, so that `gpulint` and
// `gpulint-webhook` read flags alike and word their usage errors alike.
#ifndef GPULINT_COMMON_FLAGS_H_
#define GPULINT_COMMON_FLAGS_H_

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpulint {

struct OptionSpec {
  std::string_view name;        // "--policy"
  std::string_view short_name;  // "-q", or empty
  bool takes_value = false;
  bool repeatable = false;
};

struct ParsedArgs {
  bool help = false;
  std::vector<std::string> positional;
  // Options as given, by their long name; flags have an empty value.
  std::vector<std::pair<std::string, std::string>> options;

  bool Has(std::string_view name) const;
  // The value of an option given once, or `fallback`.
  std::string Get(std::string_view name, std::string fallback = "") const;
  std::vector<std::string> All(std::string_view name) const;
};

// The known name an unknown one is most likely a typo of, or "" for none.
// Both binaries hand in the engine's one rule (ClosestWord, in
// engine/base/edit_distance.h): common builds on no layer of the engine.
using ClosestName = std::string (*)(std::string_view word,
                                    const std::vector<std::string_view>& candidates);

// Reads `args`: options and positionals may be mixed; "--name=value" and
// "--name value" both work, and "-jN" as "-j N" for a short option that takes
// a value; "-" is a positional (stdin); "--" ends the options.
// -h/--help sets `help` and stops. With `negative_numbers`, "-1" and "-.5" are
// positionals. An option that takes a value and is not `repeatable` may be
// given once (which of two values was meant cannot be known); a flag without a
// value may be repeated, as it says the same thing each time. On a
// usage error returns false with *error, worded as
//   unknown option '--x' (see 'PROGRAM --help')
//   unknown option '--node'; did you mean '--nodes'? (see 'PROGRAM --help')
// where `program` is what the user typed before the options ("gpulint check",
// "gpulint-webhook"), and the long option named is the one `closest` picks
// among the long options and --help (none for a one-letter option: any other
// letter is as close).
bool ParseArgs(const std::vector<std::string>& args, std::string_view program,
               const std::vector<OptionSpec>& specs, bool negative_numbers, ClosestName closest,
               ParsedArgs* out, std::string* error);

// A duration as Go's time.ParseDuration and kubectl's --request-timeout
// write it: a sequence of whole numbers each with a unit, ms, s, m or h
// ("90s", "1m30s", "2h"); "0" alone is zero. No fractions, signs or blanks.
// False on anything else, or past a day times 365.
bool ParseDuration(std::string_view text, std::chrono::milliseconds* out);
// The other way: "15m", "1m30s", "500ms", "0s".
std::string FormatDuration(std::chrono::milliseconds d);

}  // namespace gpulint

#endif  // GPULINT_COMMON_FLAGS_H_
