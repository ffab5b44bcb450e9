# Cross-building the shipped binaries for 64-bit Arm (arm64) on a Debian amd64
# machine, with Debian's cross toolchain and its multiarch libraries:
#
#   dpkg --add-architecture arm64 && apt-get update
#   apt-get install g++-aarch64-linux-gnu libyaml-dev:arm64 libre2-dev:arm64 \
#     libssl-dev:arm64 libgoogle-perftools-dev:arm64      # ./dev installs them
#   cmake -S . -B build-arm64 --toolchain cmake/aarch64-linux-gnu.cmake -DGPULINT_BUILD_TESTS=OFF
#
# The compiler's own libraries (libc.a, libstdc++.a) come from its packages
# (libc6-dev-arm64-cross, libstdc++-12-dev-arm64-cross); the others from the
# :arm64 -dev packages in /usr/lib/aarch64-linux-gnu, which the compiler
# searches by itself. Header-only libraries (nlohmann-json3-dev,
# rapidjson-dev) are the host's: they are the same for every architecture.
# ./dev package and ./dev image build with it in build-arm64/; the binaries
# run on amd64 under qemu-user (qemu-aarch64), which is what the tests do.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# Programs (pkg-config, help2man, git) are the host's; libraries and headers
# the target's, which multiarch keeps apart by directory, not by a sysroot.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
# pkg-config reads the arm64 packages' .pc files, and no amd64 one.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
# Where a build step runs a target binary (help2man for the man pages).
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
