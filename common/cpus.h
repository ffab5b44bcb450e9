// Small facts about the machine that both binaries need, in one place.
#ifndef GPULINT_COMMON_CPUS_H_
#define GPULINT_COMMON_CPUS_H_

namespace gpulint {

// The CPUs this process may run on, at least 1: a cpuset or taskset counts, a
// CPU quota does not (hence --jobs and --workers). `gpulint check` runs this
// many files at once and `gpulint-webhook` this many event loops.
int UsableCpus();

}  // namespace gpulint

#endif  // GPULINT_COMMON_CPUS_H_
