// What the server serves with, and its hot reloads: the policy (a mounted
// ConfigMap), the certificate pair (a mounted Secret) and the nodes file. A
// file that fails to load is logged and counted, and the last good version
// keeps serving.
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <filesystem>

#include "engine/cluster/nodes_file.h"
#include "engine/engine.h"
#include "webhook/server/server.h"

namespace gpulint {
namespace {

std::string TimeText(int64_t unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

void WebhookServer::ReloadPolicy() {
  if (!policy_watch_.enabled()) {
    std::lock_guard<std::mutex> lock(state_mu_);
    if (!policy_) {
      // The compiled-in policy lives for the whole process: borrow it.
      policy_ = std::shared_ptr<const Policy>(std::shared_ptr<const Policy>(), &DefaultPolicy());
    }
    metrics_.SetPolicyLoaded(true);
    return;
  }
  policy_watch_.Mark();  // before reading: a change made while loading is seen next time
  auto policy = std::make_shared<Policy>();
  Error error;
  if (!LoadPolicyFile(policy_watch_.path(), policy.get(), &error)) {
    metrics_.CountReload("policy", false);
    bool none;
    {
      std::lock_guard<std::mutex> lock(state_mu_);
      none = !policy_;
      if (none) {
        // The file's directory says nothing to a user reading kubectl's warning.
        Error shown = error;
        shown.file = std::filesystem::path(error.file).filename().string();
        policy_problem_ = shown.ToString();
      }
    }
    LogLine("error", none ? "policy refused, and no valid policy has loaded: every review is "
                            "allowed, with a warning, until one does"
                          : "policy refused, the last good one keeps serving")
        .Add("file", policy_watch_.path())
        .Add("error", error.ToString())
        .Emit(options_.log);
    metrics_.SetPolicyLoaded(!none);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(state_mu_);
    policy_ = std::move(policy);
    policy_problem_.clear();
  }
  metrics_.SetPolicyLoaded(true);
  metrics_.CountReload("policy", true);
  LogLine("info", "policy loaded").Add("file", policy_watch_.path()).Emit(options_.log);
}

void WebhookServer::ReloadCertificate() {
  cert_watch_.Mark();
  key_watch_.Mark();
  client_ca_watch_.Mark();
  std::string error;
  int64_t not_after = 0;
  SslCtxPtr ctx = MakeServerContext(options_.tls, &error, &not_after);
  if (!ctx) {
    metrics_.CountReload("certificate", false);
    LogLine("error", "certificate refused, the last good one keeps serving")
        .Add("cert", options_.tls.cert)
        .Add("key", options_.tls.key)
        .Add("error", error)
        .Emit(options_.log);
    return;
  }
  http_->SetContext(std::move(ctx));
  {
    std::lock_guard<std::mutex> lock(state_mu_);
    cert_loaded_ = true;
  }
  metrics_.SetCertificateExpiry(not_after);
  metrics_.CountReload("certificate", true);
  LogLine("info", "certificate loaded")
      .Add("cert", options_.tls.cert)
      .Add("not_after", TimeText(not_after))
      .Emit(options_.log);
  cert_not_after_ = not_after;
  cert_expiry_logged_ = false;
  CheckCertificateExpiry();
}

// An expired certificate still serves (nothing better is at hand, and a
// client may not check dates), but kube-apiserver refuses it and every review
// then fails: say so once, loaded expired or expiring while loaded.
void WebhookServer::CheckCertificateExpiry() {
  cert_expired_ = cert_not_after_ != 0 && std::time(nullptr) >= cert_not_after_;
  if (cert_expiry_logged_ || !cert_expired_) return;
  cert_expiry_logged_ = true;
  LogLine("error", "certificate expired")
      .Add("cert", options_.tls.cert)
      .Add("not_after", TimeText(cert_not_after_))
      .Emit(options_.log);
}

void WebhookServer::ReloadNodesFile() {
  if (!nodes_watch_.enabled()) return;
  nodes_watch_.Mark();
  std::vector<NodeClass> nodes;
  Error problem;
  if (!LoadNodesFile(nodes_watch_.path(), STDIN_FILENO, &nodes, &problem)) {
    metrics_.CountReload("nodes", false);
    LogLine("error", "nodes file refused, the last good one keeps serving")
        .Add("file", nodes_watch_.path())
        .Add("error", problem.ToString())
        .Emit(options_.log);
    return;
  }
  size_t count = nodes.size();
  {
    std::lock_guard<std::mutex> lock(state_mu_);
    file_nodes_ = std::move(nodes);
  }
  metrics_.CountReload("nodes", true);
  LogLine("info", "nodes loaded")
      .Add("file", nodes_watch_.path())
      .Add("nodes", static_cast<int64_t>(count))
      .Emit(options_.log);
}

void WebhookServer::ReplaceNodes(std::vector<NodeClass> nodes) {
  std::lock_guard<std::mutex> publishing(publish_mu_);
  watched_.Clear();
  for (NodeClass& node : nodes) watched_.Put(std::move(node), kWatchedNodeOrder);
  PublishLocked();
}

void WebhookServer::PutNode(NodeClass node) {
  std::lock_guard<std::mutex> publishing(publish_mu_);
  if (watched_.Put(std::move(node), kWatchedNodeOrder)) PublishLocked();
}

void WebhookServer::RemoveNode(const std::string& name) {
  std::lock_guard<std::mutex> publishing(publish_mu_);
  if (watched_.Remove(name)) PublishLocked();
}

void WebhookServer::Publish() {
  std::lock_guard<std::mutex> publishing(publish_mu_);
  std::vector<NodeClass> file_nodes;
  {
    std::lock_guard<std::mutex> lock(state_mu_);
    base_policy_ = policy_;
    base_problem_ = policy_problem_;
    file_nodes = file_nodes_;
  }
  base_ = base_policy_ ? BuildInventory(*base_policy_, std::move(file_nodes)) : Inventory();
  PublishLocked();
}

void WebhookServer::PublishLocked() {
  Snapshot snapshot;
  snapshot.problem = base_problem_;
  if (base_policy_) {
    // Copies the groups' pointers, not the nodes: a change costs the number
    // of groups, whatever the number of nodes.
    auto inventory = std::make_shared<Inventory>(base_);
    inventory->Append(watched_.inventory());
    metrics_.CountInventoryPublish(inventory->size(), inventory->groups.size());
    snapshot = Snapshot{base_policy_, std::move(inventory), {}};
  }
  std::lock_guard<std::mutex> lock(state_mu_);
  snapshot_ = std::move(snapshot);
}

// When the process runs out of descriptors, httplib's accept loop retries
// quietly every millisecond and new connections wait in the listen backlog
// (or time out) without a word: say so, once per episode, with the limit.
void WebhookServer::CheckOpenFiles() {
  int probe = ::fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 0);
  bool exhausted = probe < 0 && errno == EMFILE;
  if (probe >= 0) ::close(probe);
  if (exhausted == out_of_files_) return;
  out_of_files_ = exhausted;
  rlimit limit{};
  ::getrlimit(RLIMIT_NOFILE, &limit);
  LogLine(exhausted ? "error" : "info",
          exhausted ? "out of file descriptors: new connections wait until some close"
                    : "file descriptors available again")
      .Add("limit", static_cast<int64_t>(limit.rlim_cur))
      .Emit(options_.log);
}

void WebhookServer::ReloadLoop() {
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(stop_mu_);
      stop_cv_.wait_for(lock, options_.reload_interval, [this] { return stopping_.load(); });
      if (stopping_) return;
    }
    bool changed = false;
    if (policy_watch_.Changed()) {
      ReloadPolicy();
      changed = true;
    }
    if (nodes_watch_.Changed()) {
      ReloadNodesFile();
      changed = true;
    }
    if (cert_watch_.Changed() || key_watch_.Changed() || client_ca_watch_.Changed())
      ReloadCertificate();
    CheckCertificateExpiry();
    CheckOpenFiles();
    if (changed) Publish();
    metrics_.SetReady(ready());
  }
}

}  // namespace gpulint
