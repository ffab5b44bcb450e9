# gpulint-webhook (and the gpulint CLI) on debian:bookworm-slim.
#
#   docker build -t gpulint-webhook:0.1.0 .
#   docker run --rm --entrypoint gpulint -v "$PWD:/work:ro" gpulint-webhook:0.1.0 check /work/k8s
#
# The build stage builds exactly as ./dev does (tests/dockerfile_test.sh
# checks the package list and the build commands against dev); the runtime
# stage holds the two binaries and the Debian packages of their shared
# libraries, and runs as a non-root user.

FROM debian:bookworm-slim AS build
# dev's PACKAGES. dev's test-only packages, not installed here: pre-commit npm unzip curl jq python3 python3-jsonschema wrk slowhttptest
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      cmake g++ make pkg-config libyaml-dev nlohmann-json3-dev rapidjson-dev libre2-dev catch2 \
      libcpp-httplib-dev libssl-dev openssl zlib1g-dev libbrotli-dev libgoogle-perftools-dev git \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
ARG BUILD_TYPE=RelWithDebInfo
ARG JOBS=
# dev's build(), line for line (less its "$@", the extra cmake arguments).
RUN BUILD_DIR=build JOBS=${JOBS:-$(nproc)} \
 && cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" >/dev/null \
 && cmake --build "$BUILD_DIR" -j "$JOBS" \
 && install -D -s -m 0755 -t /out/usr/local/bin "$BUILD_DIR/gpulint" "$BUILD_DIR/webhook/gpulint-webhook"

FROM debian:bookworm-slim
# The shared libraries the two binaries link (readelf -d: NEEDED), by their
# Debian packages so image scanners see them; libc6, libstdc++6 and
# libgcc-s1 are in the base image.
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      libyaml-0-2 libre2-9 libcpp-httplib0.11 libssl3 libtcmalloc-minimal4 \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/ /
# The nonroot uid of distroless images; the Helm chart runs the pod as it too.
USER 65532:65532
EXPOSE 8443
ENTRYPOINT ["gpulint-webhook"]
