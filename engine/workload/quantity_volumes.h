// Quantities the API server reads outside container resources: the storage a
// PersistentVolumeClaim, a volumeClaimTemplate or an ephemeral volume asks
// for, and an emptyDir's sizeLimit. Each is read as a ResourceEntry so the
// quantity rules judge it with the same messages as container resources.
#ifndef GPULINT_ENGINE_WORKLOAD_QUANTITY_VOLUMES_H_
#define GPULINT_ENGINE_WORKLOAD_QUANTITY_VOLUMES_H_

#include <vector>

#include "engine/base/value.h"
#include "engine/workload/workload.h"

namespace gpulint {

struct VolumeQuantity {
  enum class Kind {
    kClaimRequest,  // ...resources.requests.storage: the API server requires > 0
    kClaimLimit,    // ...resources.limits.storage
    kSizeLimit,     // emptyDir.sizeLimit: the API server requires >= 0
  };
  Kind kind;
  // name: "storage" or "emptyDir.sizeLimit"; quantity not milli-rounded (the
  // API server stores these as written).
  ResourceEntry entry;
};

// The object's own claim (kind PersistentVolumeClaim), its
// spec.volumeClaimTemplates when it carries pods, and the volumes of each of
// its pods, in document order per source.
std::vector<VolumeQuantity> VolumeQuantities(const Value& object, const std::vector<PodInfo>& pods);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_WORKLOAD_QUANTITY_VOLUMES_H_
