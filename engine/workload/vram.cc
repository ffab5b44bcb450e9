#include "engine/workload/vram.h"

namespace gpulint {

std::optional<VramAnnotation> AnnotatedVram(const PodInfo& pod, const ContainerInfo& c,
                                            const Policy& policy, int64_t gpus) {
  bool pod_annotation_applies =
      gpus > 0 || (!pod.AsksForGpus(policy) && pod.OnlyAppContainer() == &c);
  for (const std::string& key : {policy.vram_annotation + "." + c.name, policy.vram_annotation}) {
    if (key == policy.vram_annotation && !pod_annotation_applies) break;
    const Value* v = pod.Annotation(key);
    if (!v) continue;
    VramAnnotation out{Quantity(), v, key};
    QuantityError error;
    out.valid = v->is_string() && Quantity::Parse(v->text(), &out.quantity, &error) &&
                out.quantity.sign() >= 0;
    return out;
  }
  return std::nullopt;
}

}  // namespace gpulint
