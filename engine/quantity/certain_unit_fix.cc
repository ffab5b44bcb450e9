#include "engine/quantity/certain_unit_fix.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "engine/quantity/quantity.h"

namespace gpulint {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t'; }
bool IsNumberChar(char c) { return (c >= '0' && c <= '9') || c == '.' || c == '+' || c == '-'; }

// A binary suffix in any case, maybe with a byte sign: "Mi", "mi", "MIB",
// "MiB". A lowercase "b" is left alone: "Mib" is a mebibit.
bool BinarySuffix(std::string_view s, char* letter) {
  if (s.size() < 2 || s.size() > 3 || (s[1] != 'i' && s[1] != 'I')) return false;
  if (s.size() == 3 && s[2] != 'B') return false;
  char upper = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  if (std::string_view("KMGTPE").find(upper) == std::string_view::npos) return false;
  *letter = upper;
  return true;
}

}  // namespace

bool CertainUnitFix(std::string_view text, std::string* fixed, std::string* why) {
  if (Quantity::Parse(text, nullptr, nullptr)) return false;
  std::vector<std::string> reasons;
  size_t begin = 0, end = text.size();
  while (begin < end && IsSpace(text[begin])) ++begin;
  while (end > begin && IsSpace(text[end - 1])) --end;
  std::string_view core = text.substr(begin, end - begin);
  size_t number_end = 0;
  while (number_end < core.size() && IsNumberChar(core[number_end])) ++number_end;
  std::string number(core.substr(0, number_end));
  size_t suffix_begin = number_end;
  while (suffix_begin < core.size() && IsSpace(core[suffix_begin])) ++suffix_begin;
  std::string_view suffix = core.substr(suffix_begin);
  // "8 0Gi" is not "80Gi" for certain: only letters may follow the number.
  if (!std::all_of(suffix.begin(), suffix.end(),
                   [](char c) { return std::isalpha(static_cast<unsigned char>(c)); }))
    return false;
  if (begin > 0 || end < text.size() || suffix_begin > number_end)
    reasons.push_back("spaces are not part of a quantity");
  std::string new_suffix(suffix);
  char letter;
  if (suffix == "B") {
    new_suffix.clear();
    reasons.push_back("B is a byte, which Kubernetes writes with no suffix");
  } else if (BinarySuffix(suffix, &letter) && suffix != std::string{letter, 'i'}) {
    new_suffix = std::string{letter, 'i'};
    reasons.push_back("the \"i\" makes " + std::string(suffix) + " the binary unit " + new_suffix +
                      ", which Kubernetes writes " + new_suffix);
  }
  std::string candidate = number + new_suffix;
  if (reasons.empty() || !Quantity::Parse(candidate, nullptr, nullptr)) return false;
  *fixed = candidate;
  *why = reasons[0];
  for (size_t i = 1; i < reasons.size(); ++i) *why += "; " + reasons[i];
  return true;
}

}  // namespace gpulint
