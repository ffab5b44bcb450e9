#include "common/base64.h"

#include <openssl/evp.h>

namespace gpulint {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

}  // namespace

std::string Base64Encode(std::string_view data) {
  // EVP_EncodeBlock pads the last group and ends with a NUL.
  std::string out((data.size() + 2) / 3 * 4 + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(data.data()),
                          static_cast<int>(data.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

bool Base64Decode(std::string_view in, std::string* out) {
  // EVP_DecodeBlock wants whole groups of four, padded, with no breaks inside,
  // and it decodes the padding as zero bytes: give it that, and cut them off.
  std::string text;
  text.reserve(in.size() + 3);
  size_t pad = 0;
  for (char c : in) {
    if (c == '\n' || c == '\r' || c == ' ') continue;
    if (c == '=') {
      ++pad;
      continue;
    }
    if (pad || kAlphabet.find(c) == std::string_view::npos) return false;  // data after padding
    text += c;
  }
  if (pad > 2) return false;
  // A lone character in the last group holds no whole byte.
  if (text.size() % 4 == 1) text.pop_back();
  size_t missing = (4 - text.size() % 4) % 4;
  text.append(missing, '=');
  std::string result(text.size() / 4 * 3, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(result.data()),
                          reinterpret_cast<const unsigned char*>(text.data()),
                          static_cast<int>(text.size()));
  if (n < 0) return false;
  result.resize(static_cast<size_t>(n) - missing);
  *out = std::move(result);
  return true;
}

}  // namespace gpulint
