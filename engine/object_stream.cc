#include "engine/object_stream.h"

#include "engine/base/objects.h"
#include "engine/base/owners.h"

namespace gpulint {

EvaluateOptions ObjectStream::Options() const {
  EvaluateOptions options = seen_.Options();
  options.fixes = fixes_;
  return options;
}

void ObjectStream::Judge(const Value& document, const std::string& file,
                         const std::function<void(JudgedObject&)>& each) {
  const OwnerIndex owners = OwnerIndex::OfDocument(document);
  const Value* items = document.Find("items");
  ForEachObject(document, [&](const Value& object) {
    if (!object.is_mapping()) return;
    JudgedObject judged{object, "", "", true, false, Coverage::kNoWorkload, {}};
    if (&object != &document) {
      std::string index = std::to_string(&object - &items->items()[0]);
      judged.pointer = "/items/" + index;
      judged.shown = "items[" + index + "]";
    }
    judged.kubernetes = object.Find("apiVersion") || object.Find("kind");
    if (!judged.kubernetes) return each(judged);
    seen_.Add(object);
    judged.under_owner = owners.TopOwner(object) != nullptr;
    if (!judged.under_owner) {
      EvaluateOptions options = Options();
      options.coverage = &judged.coverage;
      judged.findings = Evaluate(object, file, policy_, inventory_, options);
    }
    each(judged);
  });
}

std::vector<Finding> ObjectStream::Rejudge(const Value& object, const std::string& file) const {
  return Evaluate(object, file, policy_, inventory_, Options());
}

}  // namespace gpulint
