// Reads what `nvidia-smi --query-gpu=index,name,memory.total
// --format=csv,noheader,nounits` prints: one line per GPU,
//   0, NVIDIA A100-SXM4-80GB, 81920
// with memory.total in MiB. A header line and " MiB" units (when someone left
// out noheader or nounits) are accepted too.
#ifndef GPULINT_LINT_INPUT_NVIDIA_SMI_H_
#define GPULINT_LINT_INPUT_NVIDIA_SMI_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/finding.h"

namespace gpulint {

struct GpuRecord {
  int64_t index = 0;
  std::string name;
  int64_t memory_mib = 0;
  uint32_t line = 0;  // 1-based
};

inline constexpr char kNvidiaSmiQuery[] =
    "nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader,nounits";

// Appends one record per GPU line. Blank lines are skipped. On a line that is
// not what nvidia-smi prints, returns false with *error positioned at its
// line and column in `file`.
bool ParseNvidiaSmi(std::string_view text, const std::string& file, std::vector<GpuRecord>* gpus,
                    Error* error);

}  // namespace gpulint

#endif  // GPULINT_LINT_INPUT_NVIDIA_SMI_H_
