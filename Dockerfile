# gpulint-webhook (the chart's image) with the gpulint CLI beside it (the
# chart's audit CronJob runs it), for those who build with a container engine:
#
#   docker build --build-arg GPULINT_REVISION=$(git rev-parse HEAD) -t gpulint-webhook:0.1.0 .
#   docker run --rm --entrypoint gpulint -v "$PWD:/work:ro" gpulint-webhook:0.1.0 check /work/k8s
#
# `./dev image` makes the same image with no engine, for amd64 and arm64 (an
# OCI archive: README.md). Both hold the same files, laid out by the same
# script (scripts/oci-image.py), and say the same in their config:
# tests/dockerfile_test.sh holds this file to it, and to dev and the chart.
#
# The build stage is ./dev itself: `./dev deps` installs the Debian packages
# the build needs (alone first, so that layer is rebuilt only when dev
# changes); `./dev rootfs /out` builds the shipped binaries as `./dev package`
# builds them (static: cmake/shipped_binary.cmake) and lays out the image's
# files in /out: the two binaries and their SBOM, /etc/passwd and /etc/group
# with nonroot (65532), Debian's CA bundle, /tmp and the licence. The source
# is copied without .git (.dockerignore): GPULINT_REVISION names the commit
# that `--version` prints.
#
# The runtime stage is those files and nothing else: no shell, no package
# manager, no shared library. The chart runs no program but the two binaries:
# HTTP probes, and no preStop hook (the webhook drains by itself after
# SIGTERM, --drain-seconds).

FROM debian:bookworm-slim AS build
WORKDIR /src
COPY dev ./
RUN ./dev deps
COPY . .
ARG BUILD_TYPE=RelWithDebInfo
ARG JOBS=
ARG GPULINT_REVISION=
RUN ./dev rootfs /out

FROM scratch
COPY --from=build /out/ /
ENV PATH=/usr/local/bin:/usr/bin:/bin
# The static OpenSSL looks for the system's CAs in Debian's /usr/lib/ssl, which
# this image lacks: used only for an API server whose kubeconfig names no CA
# (in the cluster, the service account's CA is given).
ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
# nonroot; the Helm chart runs the pod as it too.
USER 65532:65532
EXPOSE 8443
ENTRYPOINT ["gpulint-webhook"]
