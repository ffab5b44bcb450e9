# The version and git revision both binaries print (common/version.h), written
# to a source file at every build, and rewritten only when they change, so a
# build after a commit says which commit it is without a new configure, and a
# build with nothing new recompiles nothing.
#
#   cmake -DSOURCE_DIR=... -DVERSION=... -DOUTPUT=.../version_info.cc -P cmake/version.cmake
#
# The revision is, in order: $GPULINT_REVISION (for a build from a copy
# without .git that knows its commit: the Dockerfile's build stage, a
# distribution's package); else HEAD of the git work tree at SOURCE_DIR, and
# whether tracked files differ from it; else none, which the binaries say
# plainly (a source tarball, or a copy of the files alone).
set(revision "")
set(modified false)
set(source "none")
if(NOT "$ENV{GPULINT_REVISION}" STREQUAL "")
  set(revision "$ENV{GPULINT_REVISION}")
  set(source "given")
else()
  find_program(GIT git)
  if(GIT)
    execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} rev-parse --show-toplevel
                    OUTPUT_VARIABLE top OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
    # Only gpulint's own work tree: a source tarball unpacked inside some
    # other repository is not that repository's commit.
    if(rc EQUAL 0)
      file(REAL_PATH "${top}" top)
      file(REAL_PATH "${SOURCE_DIR}" here)
    endif()
    if(rc EQUAL 0 AND top STREQUAL here)
      execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} rev-parse HEAD
                      OUTPUT_VARIABLE revision OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} status --porcelain --untracked-files=no
                      OUTPUT_VARIABLE changes ERROR_QUIET)
      if(NOT changes STREQUAL "")
        set(modified true)
      endif()
      set(source "git")
    endif()
  endif()
endif()
if(NOT revision MATCHES "^[0-9a-f]*$")
  message(FATAL_ERROR "GPULINT_REVISION '${revision}' is not a git commit (hexadecimal digits)")
endif()
file(CONFIGURE OUTPUT ${OUTPUT} CONTENT [[// Written by cmake/version.cmake at each build: not to be edited.
#include "common/version.h"

namespace gpulint {
const VersionInfo& BuildVersion() {
  static const VersionInfo info{"@VERSION@", "@revision@", @modified@};
  return info;
}
}  // namespace gpulint
]] @ONLY)
