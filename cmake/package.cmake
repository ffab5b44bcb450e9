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
install(FILES README.md DESTINATION . COMPONENT tarball)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES policies/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} RENAME policy-reference.md)

# Man pages from each binary's own --help (help2man), so they cannot drift from
# it. Not in sanitizer or fuzzer builds: no package is made from those, and
# running their binaries at build time would only add noise.
find_program(GPULINT_HELP2MAN help2man)
if(GPULINT_HELP2MAN AND NOT GPULINT_SANITIZE AND NOT GPULINT_FUZZ)
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/man)
  function(gpulint_man_page target name)
    set(page ${CMAKE_BINARY_DIR}/man/${target}.1)
    # gpulint-webhook has no --version: the version is project()'s for both.
    add_custom_command(
      OUTPUT ${page}.gz
      COMMAND ${GPULINT_HELP2MAN} --no-info --no-discard-stderr
              --version-string=${PROJECT_VERSION} --name=${name} --output=${page}
              $<TARGET_FILE:${target}>
      COMMAND gzip -9nf ${page}
      DEPENDS ${target}
      COMMENT "man page of ${target}"
      VERBATIM)
    add_custom_target(${target}_man ALL DEPENDS ${page}.gz)
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
string(TOLOWER ${CMAKE_SYSTEM_PROCESSOR} arch)
string(REPLACE x86_64 amd64 arch ${arch})
string(REPLACE aarch64 arm64 arch ${arch})
set(CPACK_GPULINT_TARBALL_NAME gpulint-${PROJECT_VERSION}-linux-${arch})
set(CPACK_PACKAGE_CHECKSUM SHA256)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${GPULINT_PACKAGE_MAINTAINER})
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
include(CPack)
