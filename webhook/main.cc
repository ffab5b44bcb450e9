// gpulint-webhook: flags in (flags.h), WebhookServer (and optionally a NodeWatcher, and
// the VRAM advertiser it feeds) up, until SIGTERM or SIGINT.
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include "common/version.h"
#include "kube/kubeconfig.h"
#include "webhook/flags.h"
#include "webhook/kube/dra_watch.h"
#include "webhook/kube/node_watch.h"
#include "webhook/kube/registrar.h"
#include "webhook/kube/vram_advertiser.h"
#include "webhook/server/server.h"

namespace gpulint {
namespace {

constexpr const char* kHelp =
    R"(gpulint-webhook: a Kubernetes admission webhook that keeps GPU workloads from
taking nodes down, with the same rules and verdicts as `gpulint check`.

Usage: gpulint-webhook --cert FILE --key FILE [flags]

Endpoints (HTTPS only):
  POST /validate  AdmissionReview (admission.k8s.io/v1 or v1beta1): denied when
                  a rule of error severity fires, warnings for the rest
  POST /mutate    AdmissionReview: a JSONPatch (VRAM resource, memory headroom,
                  NVIDIA_VISIBLE_DEVICES=void for containers without GPUs)
  GET  /healthz   200 while the process runs
  GET  /readyz    200 once a valid certificate is loaded; 503 from SIGTERM on;
                  its "ok" notes what it runs without: no valid policy, a
                  stale node, DeviceClass or ResourceSlice watch

Each review path also takes a mode (the chart chooses it per namespace):
  /validate/deny, /mutate/deny    what /validate and /mutate do
  /validate/warn, /mutate/warn    allowed; would-be denials and patches are
                                  warnings kubectl prints
  /validate/audit, /mutate/audit  allowed; would-be denials and patches go to
                                  the log, the metrics and the audit log only
Without a valid policy (the --policy file does not load and none loaded
before), every review is allowed with a warning that names the problem.
In deny mode an UPDATE is denied only for errors its oldObject did not
already have (a `kubectl rollout restart` of a Deployment that predates a
rule goes through): see --allow-existing-violations.
  GET  /metrics   Prometheus metrics

Flags:
  --listen ADDR:PORT  where to serve (default 0.0.0.0:8443; [::]:8443 for IPv6)
  --cert FILE         serving certificate chain, PEM; reloaded when it changes
                      (a Secret volume's symlink swap or an atomic rename)
  --key FILE          its private key, PEM; reloaded with the certificate
  --client-ca FILE    /validate and /mutate require a client certificate signed
                      by this CA (probes and /metrics do not)
  --policy FILE       a gpulint Policy (YAML) instead of the built-in one;
                      reloaded when it changes, an invalid one is refused and
                      the last good one keeps serving (none: every review is
                      allowed, with a warning)
  --nodes FILE        a Node list, with DeviceClasses and ResourceSlices
                      (kubectl get nodes,deviceclasses,resourceslices -o yaml),
                      for the inventory; reloaded when it changes
  --kubeconfig FILE   list and watch Nodes, and DRA's DeviceClasses and
                      ResourceSlices where resource.k8s.io is served, from the
                      API server of this kubeconfig's current context (token,
                      client certificate or exec credential plugin)
  --in-cluster        the same with the pod's service account (RBAC: get, list
                      and watch nodes, deviceclasses and resourceslices)
  --advertise-vram    keep each GPU node's status advertising its VRAM (GPU
                      count x nvidia.com/gpu.memory) as the policy's vram
                      resource, which /mutate adds to GPU containers; needs
                      --kubeconfig or --in-cluster (RBAC: patch nodes/status)
  --register FILE     keep the webhook configurations in FILE (the chart's,
                      one YAML document each) registered with the API server
                      while this webhook can answer (a valid, unexpired
                      certificate), and withdrawn (no webhooks) while it
                      cannot, so that it never leaves the cluster refusing
                      pods it cannot check; server-side apply, field manager
                      gpulint-webhook; needs --kubeconfig or --in-cluster
                      (RBAC: get and patch on those configurations)
  --ca-bundle FILE    the CA put in each registered webhook's caBundle (the
                      Secret's ca.crt); reread when it changes
  --watch-stale-after DURATION
                      a watch (nodes, deviceclasses, resourceslices) that has
                      not synced for this long (its list or watch failing) is
                      stale: /readyz says so and gpulint_webhook_watch_stale
                      is 1, but the webhook stays ready and judges against
                      what it last read
                      (default 3m)
  --allow-existing-violations=true|false
                      true (default): an error the object already had does
                      not deny. On UPDATE, one its oldObject has too (same
                      rule, path and message); on CREATE of an object that
                      a workload controller of kube-controller-manager
                      (deployment, replicaset, statefulset, daemonset, job,
                      cronjob, replication) makes for the owner controlling
                      it, every error: the owner's template was judged when
                      it was written, and refusing its pods only hangs a
                      rollout or a drain. Such errors are warnings and an
                      `existing` audit annotation. false: each request is
                      judged alone, as `gpulint check` judges a file
  --workers N         threads serving connections, each an event loop over many
                      (default: one per CPU this process may run on)
  --drain-seconds N   after SIGTERM, serve N more seconds with /readyz at 503
                      before closing the listener (default 5)
  --version           the version and the git commit it was built from
  --help              this text

Limits (each refusal is logged as "refused" with its reason and counted in
gpulint_webhook_refusals_total; docs/webhook.md says what memory they need):
  --max-body-bytes N        a request's body, as a quantity (default 3Mi, the
                            API server's own); larger: 413 before it is read
  --max-buffered-bytes N    bytes of requests held at once: being read,
                            waiting for a review worker or being judged
                            (default 32Mi); past it: 503
  --max-connections N       open at once (default 1024); past it a new one is
                            closed at once
  --review-workers N        threads judging reviews, apart from the threads
                            serving connections, so probes never wait behind
                            a review (default: one per CPU)
  --max-reviews-in-flight N waiting for a worker or being judged (default 64);
                            past it: 503
  --parse-budget N          a review's parsed tree may take N times its body's
                            bytes (at least 1 MiB; default 12, 0: no limit);
                            past it: 400, refused while it is parsed
  --read-timeout-seconds N  to finish the TLS handshake, and to send a whole
                            request from its first byte (default 10)
  --idle-timeout-seconds N  a keep-alive connection idle between requests
                            (default 30)

Try it by hand:
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 \
    -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 \
    -keyout key.pem -out cert.pem
  gpulint-webhook --listen 127.0.0.1:8443 --cert cert.pem --key key.pem &
  curl --cacert cert.pem https://127.0.0.1:8443/readyz
  curl --cacert cert.pem -H 'Content-Type: application/json' \
    --data-binary @review.json https://127.0.0.1:8443/validate

Logs: one JSON object per line on stderr, one line per admission decision.
Exit status: 0 after SIGTERM or SIGINT, 1 when it cannot serve, 2 on a usage
error.
)";

// The policy's vram resource and GPU memory model, or no resource while no
// policy has loaded.
VramTarget VramTargetOf(const Snapshot& snapshot) {
  if (!snapshot.policy) return VramTarget{};
  return VramTarget{snapshot.policy->vram_resource, snapshot.policy->vram_model};
}

int Run(WebhookFlags flags) {
  // Signals are taken by one thread with sigwait; every other thread, the
  // server's included, inherits this mask.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);

  KubeEndpoint endpoint;
  std::string error;
  bool watch = flags.in_cluster || !flags.kubeconfig.empty();
  if (watch && !(flags.in_cluster ? InClusterEndpoint(kServiceAccountDir, &endpoint, &error)
                                  : KubeconfigEndpoint(flags.kubeconfig, &endpoint, &error))) {
    LogLine("error", "cannot watch nodes").Add("error", error).Emit(StderrLogSink);
    return 1;
  }
  WebhookServer server(flags.server);
  if (!server.Start(&error)) {
    LogLine("error", "cannot start").Add("error", error).Emit(StderrLogSink);
    return 1;
  }
  std::unique_ptr<NodeWatcher> watcher;
  std::unique_ptr<DraWatcher> dra_watcher;
  std::unique_ptr<VramAdvertiser> advertiser;
  if (watch) {
    watcher = std::make_unique<NodeWatcher>(endpoint, &server, StderrLogSink, &server.metrics(),
                                            NodeWatcher::Options{});
    dra_watcher = std::make_unique<DraWatcher>(endpoint, &server, StderrLogSink,
                                               DraWatcher::Options{});
    server.AwaitDra();
    server.AddWatch(&watcher->sync());
    server.AddWatch(&dra_watcher->class_sync());
    server.AddWatch(&dra_watcher->slice_sync());
    if (flags.advertise_vram) {
      advertiser = std::make_unique<VramAdvertiser>(
          endpoint, [&server] { return VramTargetOf(server.CurrentSnapshot()); }, StderrLogSink,
          &server.metrics(), VramAdvertiser::Options{});
      watcher->SetObserver(advertiser.get());
      advertiser->Start();
    }
    watcher->Start();
    dra_watcher->Start();
  }
  std::unique_ptr<Registrar> registrar;
  if (!flags.register_file.empty()) {
    registrar = std::make_unique<Registrar>(
        endpoint, flags.register_file, flags.ca_bundle, [&server] { return server.can_answer(); },
        StderrLogSink, &server.metrics(), Registrar::Options{});
    registrar->Start();
  }
  std::atomic<bool> listener_died{false};
  std::thread signals([&] {
    int sig = 0;
    sigwait(&set, &sig);
    if (listener_died) return;
    LogLine("info", "signal received").Add("signal", sig == SIGTERM ? "SIGTERM" : "SIGINT").Emit(StderrLogSink);
    server.Shutdown();
  });
  server.Wait();
  bool signalled = server.stopping();
  if (!signalled) {
    // The listener stopped on its own: wake the signal thread to join it.
    listener_died = true;
    pthread_kill(signals.native_handle(), SIGTERM);
  }
  signals.join();
  // Registered configurations stay: other replicas answer, and a rolling
  // update must not leave a gap.
  if (registrar) registrar->Stop();
  if (watcher) watcher->Stop();  // first: it calls the advertiser
  if (dra_watcher) dra_watcher->Stop();
  if (advertiser) advertiser->Stop();
  server.Shutdown();
  return signalled ? 0 : 1;
}

}  // namespace
}  // namespace gpulint

int main(int argc, char** argv) {
  gpulint::WebhookFlags flags;
  std::string error;
  if (!gpulint::ParseWebhookFlags({argv + 1, argv + argc}, &flags, &error)) {
    std::fprintf(stderr, "gpulint-webhook: error: %s\n", error.c_str());
    return 2;
  }
  if (flags.help) {
    std::fputs(gpulint::kHelp, stdout);
    return 0;
  }
  if (flags.version) {
    std::printf("%s\n", gpulint::VersionLine("gpulint-webhook").c_str());
    return 0;
  }
  return gpulint::Run(std::move(flags));
}
