// The one command-line parser of both binaries (flags.h).
#include "common/flags.h"

#include <algorithm>

namespace gpulint {
namespace {

bool LooksLikeNumber(std::string_view arg) {
  return arg.size() > 1 && arg[0] == '-' && ((arg[1] >= '0' && arg[1] <= '9') || arg[1] == '.');
}

const OptionSpec* FindSpec(const std::vector<OptionSpec>& specs, std::string_view name) {
  for (const OptionSpec& spec : specs)
    if (spec.name == name || (!spec.short_name.empty() && spec.short_name == name)) return &spec;
  return nullptr;
}

std::string UnknownOption(const std::string& name, std::string_view program,
                          const std::vector<OptionSpec>& specs, ClosestName closest) {
  std::string out = "unknown option '" + name + "'";
  if (name.size() > 2) {
    std::vector<std::string_view> names = {"--help"};
    for (const OptionSpec& spec : specs) names.push_back(spec.name);
    std::string close = closest(name, names);
    if (!close.empty()) out += "; did you mean '" + close + "'?";
  }
  return out + " (see '" + std::string(program) + " --help')";
}

}  // namespace

bool ParsedArgs::Has(std::string_view name) const {
  return std::any_of(options.begin(), options.end(),
                     [&](const auto& o) { return o.first == name; });
}

std::string ParsedArgs::Get(std::string_view name, std::string fallback) const {
  for (const auto& [option, value] : options)
    if (option == name) return value;
  return fallback;
}

std::vector<std::string> ParsedArgs::All(std::string_view name) const {
  std::vector<std::string> out;
  for (const auto& [option, value] : options)
    if (option == name) out.push_back(value);
  return out;
}

bool ParseArgs(const std::vector<std::string>& args, std::string_view program,
               const std::vector<OptionSpec>& specs, bool negative_numbers, ClosestName closest,
               ParsedArgs* out, std::string* error) {
  bool options_done = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (options_done || arg == "-" || arg.empty() || arg[0] != '-' ||
        (negative_numbers && LooksLikeNumber(arg))) {
      out->positional.push_back(arg);
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    if (arg == "-h" || arg == "--help") {
      out->help = true;
      return true;
    }
    // A value in the same argument: "--name=value", or "-jVALUE" for a short
    // option that takes one (as getopt reads it).
    size_t eq = std::string::npos, value_at = std::string::npos;
    if (arg.rfind("--", 0) == 0) {
      eq = arg.find('=');
      if (eq != std::string::npos) value_at = eq + 1;
    } else if (const OptionSpec* s = FindSpec(specs, arg.substr(0, 2));
               arg.size() > 2 && s != nullptr && s->takes_value) {
      eq = value_at = 2;
    }
    std::string name = arg.substr(0, eq);
    const OptionSpec* spec = FindSpec(specs, name);
    if (spec == nullptr) {
      *error = UnknownOption(name, program, specs, closest);
      return false;
    }
    const std::string long_name(spec->name);
    std::string value;
    if (!spec->takes_value && eq != std::string::npos) {
      *error = "option '" + long_name + "' takes no value";
      return false;
    }
    if (spec->takes_value) {
      if (value_at != std::string::npos) {
        value = arg.substr(value_at);
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        *error = "option '" + long_name + "' needs a value";
        return false;
      }
      if (!spec->repeatable && out->Has(long_name)) {
        *error = "option '" + long_name + "' given twice";
        return false;
      }
    }
    out->options.emplace_back(long_name, std::move(value));
  }
  return true;
}

bool ParseDuration(std::string_view text, std::chrono::milliseconds* out) {
  if (text == "0") {
    *out = std::chrono::milliseconds(0);
    return true;
  }
  constexpr long long kMaxMs = 365LL * 24 * 3600 * 1000;
  long long total = 0;
  size_t i = 0;
  if (text.empty()) return false;
  while (i < text.size()) {
    size_t start = i;
    long long n = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      n = n * 10 + (text[i] - '0');
      if (n > kMaxMs) return false;
      ++i;
    }
    if (i == start) return false;
    long long unit;
    if (text.substr(i, 2) == "ms") {
      unit = 1, i += 2;
    } else if (i < text.size() && text[i] == 's') {
      unit = 1000, ++i;
    } else if (i < text.size() && text[i] == 'm') {
      unit = 60 * 1000, ++i;
    } else if (i < text.size() && text[i] == 'h') {
      unit = 3600 * 1000, ++i;
    } else {
      return false;
    }
    total += n * unit;
    if (total > kMaxMs) return false;
  }
  *out = std::chrono::milliseconds(total);
  return true;
}

std::string FormatDuration(std::chrono::milliseconds d) {
  long long ms = d.count();
  if (ms == 0) return "0s";
  std::string out;
  auto part = [&](long long unit, const char* name) {
    if (ms >= unit) {
      out += std::to_string(ms / unit) + name;
      ms %= unit;
    }
  };
  part(3600 * 1000, "h");
  part(60 * 1000, "m");
  part(1000, "s");
  part(1, "ms");
  return out;
}

}  // namespace gpulint
