// gpulint-webhook's flags, read with the parser both binaries share
// (common/flags.h) and checked for what the webhook needs to serve.
#ifndef GPULINT_WEBHOOK_FLAGS_H_
#define GPULINT_WEBHOOK_FLAGS_H_

#include <string>
#include <vector>

#include "webhook/server/server.h"

namespace gpulint {

struct WebhookFlags {
  ServerOptions server;
  std::string kubeconfig;
  bool in_cluster = false;
  bool advertise_vram = false;
  std::string register_file;  // --register: the webhook configurations to keep registered
  std::string ca_bundle;      // --ca-bundle: their caBundle
  bool help = false;
  bool version = false;  // --version: print it and exit, as --help
};

// `args` without the program name. False with *error (one line, no program
// name) on a usage error: an unknown or repeated flag, an argument that is not
// a flag, a value out of range, or flags that do not go together.
bool ParseWebhookFlags(const std::vector<std::string>& args, WebhookFlags* flags,
                       std::string* error);

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_FLAGS_H_
