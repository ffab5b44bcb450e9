// Standard base64 (RFC 4648, with padding), through OpenSSL's EVP block codec:
// the `patch` of an AdmissionReview, a webhook configuration's `caBundle`, a
// kubeconfig's `*-data` fields.
#ifndef GPULINT_COMMON_BASE64_H_
#define GPULINT_COMMON_BASE64_H_

#include <string>
#include <string_view>

namespace gpulint {

std::string Base64Encode(std::string_view data);

// Reads what Base64Encode writes, and also a value wrapped over lines (line
// breaks and spaces anywhere are skipped, as in a kubeconfig) or missing its
// padding. False on any other character, or on data after the padding.
bool Base64Decode(std::string_view in, std::string* out);

}  // namespace gpulint

#endif  // GPULINT_COMMON_BASE64_H_
