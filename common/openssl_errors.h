// OpenSSL's error queue, read for a message: the server's TLS context and the
// API server client both say why OpenSSL refused their keys and certificates.
#ifndef GPULINT_COMMON_OPENSSL_ERRORS_H_
#define GPULINT_COMMON_OPENSSL_ERRORS_H_

#include <string>

namespace gpulint {

// The last OpenSSL errors of this thread as one line (and clears them).
std::string OpenSslErrors();

}  // namespace gpulint

#endif  // GPULINT_COMMON_OPENSSL_ERRORS_H_
