# The packages (./dev package, or `cpack` in the build directory), both from
# one install:
# - DEB: gpulint_VERSION_ARCH.deb with both binaries, a man page for each, the
#   default policy and the docs. The dependencies are read off the built
#   binaries by dpkg-shlibdeps, so they follow whatever the build linked
#   instead of a list kept by hand.
# - TGZ: gpulint-VERSION-linux-ARCH.tar.gz, the portable binaries for any
#   Linux of that architecture (cmake/shipped_binary.cmake), with their man
#   pages, the default policy and README.md, under a top directory of the same
#   name; with its SHA-256 in sha256sum's format beside it (.sha256).
# The version is project()'s. Each install() names its component: `shipped`
# goes into both, `tarball` only into the tarball; anything else (the docs)
# only into the .deb (cmake/package_generators.cmake). tests/package_test.sh
# checks both.
include(GNUInstallDirs)

# Everything of the component `shipped`, for a build of it alone (./dev image
# and ./dev rootfs install that component; the tests need not be built).
add_custom_target(gpulint_shipped)
add_dependencies(gpulint_shipped gpulint)
if(TARGET gpulint-webhook)
  add_dependencies(gpulint_shipped gpulint-webhook)
endif()

install(TARGETS gpulint RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT shipped)
# kubectl's plugin: `kubectl gpulint audit` runs kubectl-gpulint, a link to gpulint.
file(CREATE_LINK gpulint ${CMAKE_BINARY_DIR}/kubectl-gpulint SYMBOLIC)
install(FILES ${CMAKE_BINARY_DIR}/kubectl-gpulint DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT shipped)
if(TARGET gpulint-webhook)
  install(TARGETS gpulint-webhook RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT shipped)
endif()
# The binaries carry this policy compiled in; the copy is the starting point
# for a --policy file of one's own.
install(FILES policies/default.yaml DESTINATION ${CMAKE_INSTALL_DATADIR}/gpulint COMPONENT shipped)
install(FILES README.md LICENSE DESTINATION . COMPONENT tarball)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
# The licence of everything in the package, the statically linked libraries'
# included, in Debian's machine-readable format (packaging/copyright): where
# Debian keeps it in the .deb, and the same path under the tarball's top.
install(FILES packaging/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT shipped)
install(FILES policies/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} RENAME policy-reference.md)

# Man pages from each binary's own --help (help2man), so they cannot drift from
# it. Not in sanitizer or fuzzer builds: no package is made from those, and
# running their binaries at build time would only add noise.
find_program(GPULINT_HELP2MAN help2man)
if(GPULINT_HELP2MAN AND NOT GPULINT_SANITIZE AND NOT GPULINT_FUZZ)
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/man)
  function(gpulint_man_page target name)
    set(page ${CMAKE_BINARY_DIR}/man/${target}.1)
    # help2man runs the program by the path it is given, and names the page
    # after it: in a cross build, a script of the program's name that runs it
    # under the emulator (qemu-aarch64, cmake/aarch64-linux-gnu.cmake).
    set(program $<TARGET_FILE:${target}>)
    if(CMAKE_CROSSCOMPILING)
      set(program ${CMAKE_BINARY_DIR}/man/run/${target})
      file(GENERATE OUTPUT ${program}
           CONTENT "#!/bin/sh\nexec ${CMAKE_CROSSCOMPILING_EMULATOR} $<TARGET_FILE:${target}> \"$@\"\n"
           FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
    endif()
    # The version is project()'s: the page names no revision.
    add_custom_command(
      OUTPUT ${page}.gz
      COMMAND ${GPULINT_HELP2MAN} --no-info --no-discard-stderr
              --version-string=${PROJECT_VERSION} --name=${name} --output=${page}
              ${program}
      COMMAND gzip -9nf ${page}
      DEPENDS ${target}
      COMMENT "man page of ${target}"
      VERBATIM)
    add_custom_target(${target}_man ALL DEPENDS ${page}.gz)
    add_dependencies(gpulint_shipped ${target}_man)
    install(FILES ${page}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT shipped)
  endfunction()
  gpulint_man_page(gpulint "lint Kubernetes manifests for GPU workloads")
  if(TARGET gpulint-webhook)
    gpulint_man_page(gpulint-webhook "Kubernetes admission webhook for GPU workloads")
  endif()
elseif(NOT GPULINT_SANITIZE AND NOT GPULINT_FUZZ)
  message(STATUS "help2man not found: the package will have no man pages "
                 "(apt-get install help2man; ./dev installs it)")
endif()

set(GPULINT_PACKAGE_MAINTAINER
    "gpulint maintainers <maintainers@users.noreply.a-seed-718d134a.example>"
    CACHE STRING "Maintainer field of the Debian package")
set(CPACK_GENERATOR DEB TGZ)
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_CURRENT_LIST_DIR}/package_generators.cmake)
set(CPACK_PACKAGE_NAME gpulint)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT ${GPULINT_PACKAGE_MAINTAINER})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Kubernetes GPU manifest linter (gpulint) and admission webhook (gpulint-webhook)")
set(CPACK_PACKAGE_DESCRIPTION
    "Catches GPU workloads that would take Kubernetes nodes down: missing or fractional GPU "
    "limits, VRAM and memory that do not fit, removed APIs. gpulint lints manifests in CI "
    "and pre-commit; gpulint-webhook applies the same rules at admission.")
# Linux's name for the architecture, as Go's and Kubernetes' release files
# spell it (linux-amd64, linux-arm64); cmake/package_generators.cmake reads it.
# It is Debian's name too: a cross build (cmake/aarch64-linux-gnu.cmake)
# packages for its target, not for the machine that builds it.
string(TOLOWER ${CMAKE_SYSTEM_PROCESSOR} arch)
string(REPLACE x86_64 amd64 arch ${arch})
string(REPLACE aarch64 arm64 arch ${arch})
set(GPULINT_ARCH ${arch})
set(CPACK_GPULINT_TARBALL_NAME gpulint-${PROJECT_VERSION}-linux-${arch})
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE ${arch})

# The SBOM (scripts/sbom.py): the Debian packages the static binaries
# contain, read off their link maps, with their versions; SPDX 2.3 JSON,
# gpulint-VERSION-linux-ARCH.spdx.json beside the packages, and in each at
# share/doc/gpulint/sbom.spdx.json. Only when both are linked static, as they
# are shipped (cmake/shipped_binary.cmake).
set(GPULINT_SBOM)
if(TARGET gpulint-webhook AND GPULINT_STATIC AND NOT GPULINT_SANITIZE AND NOT GPULINT_FUZZ)
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  set(GPULINT_SBOM ${CMAKE_BINARY_DIR}/${CPACK_GPULINT_TARBALL_NAME}.spdx.json)
  # A header of each header-only library, as the compiler finds it.
  get_target_property(nlohmann_include nlohmann_json::nlohmann_json INTERFACE_INCLUDE_DIRECTORIES)
  find_file(GPULINT_NLOHMANN_HEADER nlohmann/json.hpp HINTS ${nlohmann_include} REQUIRED)
  find_file(GPULINT_RAPIDJSON_HEADER rapidjson/reader.h HINTS ${RAPIDJSON_INCLUDE_DIRS} REQUIRED)
  add_custom_command(
    OUTPUT ${GPULINT_SBOM}
    COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/scripts/sbom.py
            --name ${CPACK_GPULINT_TARBALL_NAME} --version ${PROJECT_VERSION}
            --source-dir ${CMAKE_SOURCE_DIR}
            --map $<TARGET_PROPERTY:gpulint,GPULINT_LINK_MAP>
            --map $<TARGET_PROPERTY:gpulint-webhook,GPULINT_LINK_MAP>
            --header ${GPULINT_NLOHMANN_HEADER} --header ${GPULINT_RAPIDJSON_HEADER}
            -o ${GPULINT_SBOM}
    DEPENDS gpulint gpulint-webhook ${CMAKE_SOURCE_DIR}/scripts/sbom.py
    COMMENT "SBOM of the static binaries: ${CPACK_GPULINT_TARBALL_NAME}.spdx.json"
    VERBATIM)
  add_custom_target(gpulint_sbom ALL DEPENDS ${GPULINT_SBOM})
  add_dependencies(gpulint_shipped gpulint_sbom)
  install(FILES ${GPULINT_SBOM} DESTINATION ${CMAKE_INSTALL_DOCDIR} RENAME sbom.spdx.json
          COMPONENT shipped)
endif()
set(CPACK_PACKAGE_CHECKSUM SHA256)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${GPULINT_PACKAGE_MAINTAINER})
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
include(CPack)
