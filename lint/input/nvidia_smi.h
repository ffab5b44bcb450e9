// Reads what `nvidia-smi --query-gpu=index,name,memory.total,memory.reserved
// --format=csv,noheader,nounits` prints: one line per GPU,
//   0, NVIDIA H200, 143771, 616
// with memory.total and memory.reserved (what the driver keeps of it) in MiB.
// The query without memory.reserved (three columns), a header line and " MiB"
// units (when someone left out noheader or nounits) are accepted too.
#ifndef GPULINT_LINT_INPUT_NVIDIA_SMI_H_
#define GPULINT_LINT_INPUT_NVIDIA_SMI_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/finding.h"

namespace gpulint {

struct GpuRecord {
  int64_t index = 0;
  std::string name;
  int64_t memory_mib = 0;
  // memory.reserved; none in the three-column query, or where the driver
  // cannot say ("[N/A]": drivers before R510).
  std::optional<int64_t> reserved_mib;
  uint32_t line = 0;  // 1-based
};

inline constexpr char kNvidiaSmiQuery[] =
    "nvidia-smi --query-gpu=index,name,memory.total,memory.reserved "
    "--format=csv,noheader,nounits";

// Appends one record per GPU line. Blank lines are skipped. On a line that is
// not what nvidia-smi prints, returns false with *error positioned at its
// line and column in `file`.
bool ParseNvidiaSmi(std::string_view text, const std::string& file, std::vector<GpuRecord>* gpus,
                    Error* error);

}  // namespace gpulint

#endif  // GPULINT_LINT_INPUT_NVIDIA_SMI_H_
