// The headroom annotation: what the mutation added to each GPU container's
// memory, and what the user had written, so that validation reads a mutated
// pod as the user wrote it. Written by the mutation, read by ExtractPods.
//
//   {"trainer": {"added": "64Gi", "requests": "1T", "limits": "1Ti"}}
//
// Before 0.2 a container's record was only the text added: {"trainer": "64Gi"}.
// Its presence, not its content, keeps a second mutation from adding headroom
// again.
#ifndef GPULINT_ENGINE_WORKLOAD_HEADROOM_RECORD_H_
#define GPULINT_ENGINE_WORKLOAD_HEADROOM_RECORD_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpulint {

struct HeadroomEntry {
  std::optional<std::string> added;     // none when the record holds no string there
  std::optional<std::string> requests;  // the user's memory request, as written
  std::optional<std::string> limits;    // the user's memory limit, as written
};

// Container name -> entry, in the annotation's order.
using HeadroomRecord = std::vector<std::pair<std::string, HeadroomEntry>>;

// The annotation's text for `record`: compact JSON.
std::string WriteHeadroomRecord(const HeadroomRecord& record);

// Reads an annotation's text; false when it is not a JSON mapping (the JSON
// parser refuses a name that appears twice).
bool ReadHeadroomRecord(std::string_view text, HeadroomRecord* record);

// The entry for `container`, or null.
const HeadroomEntry* FindHeadroomEntry(const HeadroomRecord& record, std::string_view container);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_WORKLOAD_HEADROOM_RECORD_H_
