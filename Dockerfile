# gpulint-webhook (the chart's image) with the gpulint CLI beside it.
#
#   docker build -t gpulint-webhook:0.1.0 .
#   docker run --rm --entrypoint gpulint -v "$PWD:/work:ro" gpulint-webhook:0.1.0 check /work/k8s
#
# The build stage is ./dev itself: `./dev deps` installs the Debian packages
# the build needs (alone first, so that layer is rebuilt only when dev
# changes), `./dev build` builds the two shipped targets as `./dev package`
# builds them, so the binaries are the ones the tarball ships: gpulint static
# (cmake/shipped_binary.cmake). tests/dockerfile_test.sh holds this file to
# dev, the CMake build and the chart.
#
# The runtime stage is Debian, not scratch or distroless/static, for two
# reasons, each checked by that test: gpulint-webhook links libcpp-httplib,
# which Debian ships only as a shared library, so it is linked dynamically and
# needs its libraries, installed here by their Debian packages so image
# scanners see them; and the chart's preStop hook runs /bin/sleep.

FROM debian:bookworm-slim AS build
WORKDIR /src
COPY dev ./
RUN ./dev deps
COPY . .
ARG BUILD_TYPE=RelWithDebInfo
ARG JOBS=
RUN ./dev build gpulint gpulint-webhook \
 && install -D -s -m 0755 -t /out/usr/local/bin build/gpulint build/webhook/gpulint-webhook

FROM debian:bookworm-slim
# The Debian packages of the shared libraries gpulint-webhook needs (readelf
# -d: NEEDED); libc6, libstdc++6 and libgcc-s1 are in the base image.
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      libyaml-0-2 libre2-9 libcpp-httplib0.11 libssl3 libtcmalloc-minimal4 \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/ /
# The nonroot uid of distroless images; the Helm chart runs the pod as it too.
USER 65532:65532
EXPOSE 8443
ENTRYPOINT ["gpulint-webhook"]
