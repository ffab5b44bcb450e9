# How the shipped binaries (gpulint, gpulint-webhook) link; the tests, the
# benchmarks and the fuzz targets link as CMake does by default.
#
#   gpulint_shipped_binary(<target>)
#
# Static (GPULINT_STATIC): one file that runs on any x86-64 Linux (kernel 3.2
# or later), in an empty root or a `FROM scratch` image, whatever glibc the
# machine has, or none. Fully static rather than static but for glibc: built
# on bookworm, a binary linked against its glibc 2.36 needs 2.34 or later
# (RHEL 8 and Ubuntu 20.04 have older), and Debian has no older sysroot to
# build against; the costs are measured in bench/RESULTS.md ("Static
# binaries"). What a static glibc cannot do, neither binary needs: they load
# no NSS module and no locale but C, and call no getpwnam or iconv;
# posix_spawn (helm, kubectl) is a system call. Their TLS (the API server
# client of kube/, the webhook's server) links libssl.a and libcrypto.a, and
# their HTTP/1.1 is their own (common/http1.h): Debian ships cpp-httplib only
# as a shared library. A static glibc resolves names through /etc/hosts and
# DNS without a module (the files and dns modules are in libc since glibc
# 2.34; the link warns about getaddrinfo, and OpenSSL's unused dlopen and
# gethostbyname, all the same). Where no CA is configured (a kubeconfig
# without one) OpenSSL trusts SSL_CERT_FILE's, else its compiled-in store,
# /usr/lib/ssl, which is Debian's path: the image sets SSL_CERT_FILE
# (Dockerfile; tests/portable_test.sh checks it in an empty root). Static PIE (-static-pie): loaded at a random address, as the
# dynamic build is (Debian's compilers make position-independent code). Every
# library is linked by the name the layers give (-lyaml), so the linker takes
# its archive (libyaml.a, libre2.a, libtcmalloc_minimal.a).
#
# tcmalloc (GPULINT_TCMALLOC): both binaries build and free a tree of small
# nodes per document or review. It takes 12% off the CPU time of `gpulint
# check` on a 20 MB stream and 9 to 13% off each review at 16 connections, on
# many threads (bench/RESULTS.md), linked static or not.
#
# Never in sanitizer or fuzzer builds: those bring their own allocator and
# runtimes, which link only dynamically.
option(GPULINT_STATIC "Link gpulint and gpulint-webhook fully static" ON)
option(GPULINT_TCMALLOC "Link gpulint and gpulint-webhook with tcmalloc_minimal" ON)

function(gpulint_shipped_binary target)
  if(GPULINT_SANITIZE OR GPULINT_FUZZ)
    return()
  endif()
  if(GPULINT_TCMALLOC)
    pkg_check_modules(TCMALLOC REQUIRED libtcmalloc_minimal)
    target_link_libraries(${target} PRIVATE ${TCMALLOC_LIBRARIES})
  endif()
  if(GPULINT_STATIC)
    # And a link map beside the binary: which archives, and which of their
    # members, went into it; the SBOM is read off it (cmake/package.cmake).
    set(map ${CMAKE_CURRENT_BINARY_DIR}/${target}.map)
    target_link_options(${target} PRIVATE -static-pie LINKER:-Map=${map})
    # No build ID: the linker hashes it over the whole file, debug info and
    # its paths included, so the same commit built in another directory (or
    # with or without -g) would differ in those 20 bytes alone once stripped,
    # and so would the image's digest. --version names the commit instead.
    target_link_options(${target} PRIVATE LINKER:--build-id=none)
    set_target_properties(${target} PROPERTIES GPULINT_LINK_MAP ${map})
    set_property(TARGET ${target} APPEND PROPERTY ADDITIONAL_CLEAN_FILES ${map})
  endif()
  # Read by the tests that check the binaries (tests/CMakeLists.txt).
  set_target_properties(${target} PROPERTIES GPULINT_STATIC ${GPULINT_STATIC})
endfunction()
