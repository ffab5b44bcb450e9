// The snapshot the webhook judges with when it runs on the built-in policy
// and no nodes: what HandleReview's tests judge against.
#ifndef GPULINT_TESTS_DEFAULT_SNAPSHOT_H_
#define GPULINT_TESTS_DEFAULT_SNAPSHOT_H_

#include <memory>

#include "engine/engine.h"
#include "webhook/server/admission.h"

namespace gpulint {

// Not owning: the built-in policy and the inventory live as long as the program.
inline Snapshot DefaultSnapshot() {
  static const Inventory inventory = BuildInventory(DefaultPolicy(), {});
  return Snapshot{std::shared_ptr<const Policy>(std::shared_ptr<const Policy>(), &DefaultPolicy()),
                  std::shared_ptr<const Inventory>(std::shared_ptr<const Inventory>(), &inventory)};
}

}  // namespace gpulint

#endif  // GPULINT_TESTS_DEFAULT_SNAPSHOT_H_
