#include "lint/output/fingerprint.h"

#include <cstdint>
#include <filesystem>

namespace gpulint {
namespace {

class Fnv1a64 {
 public:
  // Each field ends with a NUL, so ("ab", "c") and ("a", "bc") differ.
  void Field(std::string_view text) {
    for (char c : text) Byte(static_cast<unsigned char>(c));
    Byte(0);
  }
  uint64_t value() const { return hash_; }

 private:
  void Byte(unsigned char c) {
    hash_ ^= c;
    hash_ *= 0x100000001b3ULL;
  }
  uint64_t hash_ = 0xcbf29ce484222325ULL;
};

// "... starts at line 6, column 1" -> "... starts at line #, column #".
std::string WithoutPositions(std::string_view message) {
  std::string out;
  out.reserve(message.size());
  size_t i = 0;
  while (i < message.size()) {
    bool blanked = false;
    for (std::string_view word : {std::string_view("line "), std::string_view("column ")}) {
      if (message.substr(i, word.size()) != word) continue;
      size_t j = i + word.size();
      size_t digits = j;
      while (digits < message.size() && message[digits] >= '0' && message[digits] <= '9') ++digits;
      if (digits == j) continue;
      out.append(word);
      out.push_back('#');
      i = digits;
      blanked = true;
      break;
    }
    if (!blanked) out.push_back(message[i++]);
  }
  return out;
}

}  // namespace

std::string FingerprintFile(std::string_view file, std::string_view work_dir,
                            std::string_view root) {
  namespace fs = std::filesystem;
  if (file.empty() || file.front() == '<') return std::string(file);  // <stdin>
  fs::path path = (fs::path(work_dir) / file).lexically_normal();
  fs::path base = fs::path(root).lexically_normal();
  if (!base.has_filename() && base != base.root_path()) base = base.parent_path();  // "/repo/"
  fs::path relative = path.lexically_relative(base);
  if (relative.empty() || *relative.begin() == "..") {
    // Outside, as written: perhaps only through a link on the way there.
    std::error_code ec;
    fs::path real = fs::weakly_canonical(path, ec);
    if (!ec) relative = real.lexically_relative(base);
  }
  return relative.empty() ? path.generic_string() : relative.generic_string();
}

const std::string& FingerprintFiles::Name(const std::string& file) {
  if (!named_ || file != last_file_) {
    last_file_ = file;
    last_name_ = FingerprintFile(file, work_dir_, root_);
    named_ = true;
  }
  return last_name_;
}

std::string Fingerprint(const Finding& f, std::string_view file) {
  Fnv1a64 h;
  h.Field(kFingerprintKey);
  h.Field(f.rule);
  h.Field(file);
  h.Field(f.object.api_version);
  h.Field(f.object.kind);
  h.Field(f.object.namespace_name);
  h.Field(f.object.name);
  h.Field(f.path);
  h.Field(WithoutPositions(f.message));
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(16, '0');
  uint64_t v = h.value();
  for (int i = 15; i >= 0; --i, v >>= 4) out[i] = kHex[v & 15];
  return out;
}

}  // namespace gpulint
