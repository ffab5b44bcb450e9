# gpulint-webhook (the chart's image) with the gpulint CLI beside it (the
# chart's audit CronJob runs it).
#
#   docker build -t gpulint-webhook:0.1.0 .
#   docker run --rm --entrypoint gpulint -v "$PWD:/work:ro" gpulint-webhook:0.1.0 check /work/k8s
#
# The build stage is ./dev itself: `./dev deps` installs the Debian packages
# the build needs (alone first, so that layer is rebuilt only when dev
# changes), `./dev build` builds the two shipped targets as `./dev package`
# builds them, so the binaries are the ones the tarball ships: both static
# (cmake/shipped_binary.cmake). tests/dockerfile_test.sh holds this file to
# dev, the CMake build and the chart.
#
# The runtime stage holds the two static binaries and nothing to run beside
# them: no shell, no package manager, no shared library. distroless/static
# rather than scratch for its three files a process may read: /etc/passwd
# (uid 65532 is `nonroot`), the CA bundle (below) and tzdata. The chart runs
# no program but these two: HTTP probes, and no preStop hook (the webhook
# drains by itself after SIGTERM, --drain-seconds).

FROM debian:bookworm-slim AS build
WORKDIR /src
COPY dev ./
RUN ./dev deps
COPY . .
ARG BUILD_TYPE=RelWithDebInfo
ARG JOBS=
RUN ./dev build gpulint gpulint-webhook \
 && install -D -s -m 0755 -t /out/usr/local/bin build/gpulint build/webhook/gpulint-webhook

FROM gcr.io/distroless/static-debian12
COPY --from=build /out/ /
# The static OpenSSL looks for the system's CAs in Debian's /usr/lib/ssl, which
# this image lacks: used only for an API server whose kubeconfig names no CA
# (in the cluster, the service account's CA is given).
ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
# The nonroot uid of distroless images; the Helm chart runs the pod as it too.
USER 65532:65532
EXPOSE 8443
ENTRYPOINT ["gpulint-webhook"]
