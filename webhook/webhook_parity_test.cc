// The CLI and the webhook must agree: every manifest in testdata/ goes
// through `gpulint check --format json` and, object by object, through
// /validate and /mutate over HTTPS; and /admit answers what /mutate and
// /validate answer together.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>

#include "engine/base/objects.h"
#include "engine/base/owners.h"
#include "engine/engine.h"
#include "engine/mutate/mutate.h"
#include "engine/workload/workload.h"
#include "engine/yaml/loader.h"
#include "lint/input/inputs.h"
#include "tests/webhook_test_support.h"

namespace gpulint::webhook_test {
namespace {

// Manifests only: node lists, policies and nvidia-smi output are other inputs;
// the captured reviews and the corpora have tests of their own, and charts
// (sources/) are not YAML until helm renders them.
std::vector<std::string> Manifests() {
  std::vector<std::string> files;
  std::string root = ::gpulint::testing::SourceDir() + "/testdata";
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    std::string rel = e.path().string().substr(root.size() + 1);
    std::string ext = e.path().extension().string();
    if (!e.is_regular_file() || (ext != ".yaml" && ext != ".yml" && ext != ".json")) continue;
    if (rel.rfind("nodes/", 0) == 0 || rel.rfind("policies/", 0) == 0 ||
        rel.rfind("nvidia-smi/", 0) == 0 || rel.rfind("admission/", 0) == 0 ||
        rel.rfind("corpus/", 0) == 0 || rel.rfind("field/", 0) == 0 ||
        rel.rfind("sources/", 0) == 0 ||
        // Data, no manifest: the H200 measured, the API server's quantities,
        // heldout/classified.json's findings.
        rel.rfind("gpu/", 0) == 0 || rel.rfind("quantity/", 0) == 0 ||
        rel.rfind("heldout/", 0) == 0)
      continue;
    files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

Json RunCli(const std::string& file, const std::string& flags = "") {
  std::string command =
      std::string(GPULINT_BINARY) + " check --format json " + flags + "'" + file + "' 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof(buf), pipe)) > 0;) out.append(buf, n);
  int status = pclose(pipe);
  INFO(out);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) <= 1);  // 0 clean, 1 findings
  return Json::parse(out);
}

std::string Key(const std::string& kind, const std::string& ns, const std::string& name) {
  return kind + "/" + ns + "/" + name;
}

std::string ReviewFor(const Value& object, const ObjectRef& ref, int n) {
  Json request = {
      {"uid", "parity-" + std::to_string(n)},
      {"kind", {{"group", std::string(ApiGroupOf(ref.api_version))}, {"kind", ref.kind}}},
      {"namespace", ref.namespace_name},
      {"operation", "CREATE"},
      {"object", Json::parse(ToJson(object))}};
  return Json{
      {"apiVersion", "admission.k8s.io/v1"}, {"kind", "AdmissionReview"}, {"request", request}}
      .dump();
}

// /validate's answer carries the CLI's findings: errors whole in the message,
// the rest as warnings, cut as the webhook cuts them.
void CheckSameFindings(const Json& response, const std::vector<Json>& cli) {
  std::vector<std::string> errors, others;
  for (const Json& f : cli) {
    std::string text = f["rule"].get<std::string>() + " (" + f["path"].get<std::string>() +
                       "): " + f["message"].get<std::string>();
    (f["severity"] == "error" ? errors : others).push_back(text);
  }
  CHECK(response["allowed"] == errors.empty());
  std::string message = response.contains("status") ? response["status"]["message"] : "";
  size_t total = 0;
  for (const std::string& e : errors) total += e.size() + 2;
  if (total <= kMaxDenyMessageBytes)
    for (const std::string& e : errors) CHECK_THAT(message, Catch::Contains(e));
  std::vector<std::string> warnings;
  if (response.contains("warnings"))
    for (const auto& w : response["warnings"]) warnings.push_back(w);
  CHECK(warnings.size() == std::min(others.size(), kMaxWarnings));
  if (others.size() <= kMaxWarnings)
    for (const std::string& o : others)
      CHECK(std::count(warnings.begin(), warnings.end(), TruncateForWarning(o, kMaxWarningBytes)) ==
            std::count(others.begin(), others.end(), o));
}

TEST_CASE("every manifest in testdata gets the same findings from the CLI and from /validate",
          "[webhook][parity]") {
  TestServer s;
  Inventory no_nodes = BuildInventory(DefaultPolicy(), {});
  TempDir dir;
  int objects = 0, with_findings = 0, patched = 0, alone_checked = 0, owned_checked = 0;
  for (const std::string& file : Manifests()) {
    INFO(file);
    Json cli = RunCli(file);
    std::map<std::string, std::vector<Json>> by_object;
    bool unreadable = false;
    for (const Json& f : cli["findings"]) {
      if (f["rule"] == "parse-error") unreadable = true;
      const Json& o = f["object"];
      by_object[Key(o["kind"], o["namespace"], o["name"])].push_back(f);
    }
    if (unreadable) continue;  // the webhook never sees a document that does not parse

    std::vector<Value> roots;
    Error error;
    REQUIRE(LoadYamlFile(
        file, LoadLimits{},
        [&](Document&& doc) {
          if (doc.ok && doc.root.is_mapping()) roots.push_back(std::move(doc.root));
          return true;
        },
        &error));
    // Objects are matched by kind/namespace/name; one named twice in a file
    // cannot be told apart in the CLI's output.
    std::map<std::string, int> seen;
    // DRA claims or templates, or KServe runtimes, that the CLI resolves later
    // objects of the file with.
    bool has_claims = false;
    for (const Value& root : roots)
      ForEachObject(root, [&](const Value& object) {
        ObjectRef ref = RefOf(object);
        seen[Key(ref.kind, ref.namespace_name, ref.name)]++;
        has_claims |= ApiGroupOf(ref.api_version) == "resource.k8s.io" ||
                      ref.kind == "ServingRuntime" || ref.kind == "ClusterServingRuntime";
      });
    for (const Value& root : roots) {
      const OwnerIndex owners = OwnerIndex::OfDocument(root);
      ForEachObject(root, [&](const Value& object) {
        if (!object.is_mapping() || object.StringAt("kind").empty()) return;
        ObjectRef ref = RefOf(object);
        std::string key = Key(ref.kind, ref.namespace_name, ref.name);
        if (seen[key] > 1) return;
        INFO(key);
        std::string body = ReviewFor(object, ref, ++objects);
        // The webhook sees one object: a claim the file's templates resolve is
        // unresolved there (and a runtime the file holds is not in view), and a
        // pod whose ReplicaSet is in the file (which the
        // CLI judges under it) is judged on its own, as the CLI judges that
        // object alone.
        std::vector<Json> expected = by_object[key];
        bool owned = owners.TopOwner(object) != nullptr;
        if (has_claims || owned) {
          std::string alone = dir / "object.json";
          WriteFileAtomic(alone, ToJson(object));
          expected = RunCli(alone)["findings"].get<std::vector<Json>>();
          ++alone_checked;
          owned_checked += owned;
          if (owned) CHECK(by_object[key].empty());
        }
        CheckSameFindings(s.Review("validate", body)["response"], expected);
        with_findings += !by_object[key].empty();

        // /mutate gives the engine's patch, and the patch applies.
        std::vector<PatchOp> ops = Mutate(object, DefaultPolicy(), no_nodes);
        Json mutated = s.Review("mutate", body)["response"];
        if (ops.empty()) {
          CHECK_FALSE(mutated.contains("patch"));
          return;
        }
        ++patched;
        CHECK(DecodeBase64(mutated["patch"]) == PatchToJson(ops));
        Value copy = object;
        CHECK(ApplyPatch(ops, &copy, &error));
      });
    }
  }
  // The corpus must have been exercised, not skipped.
  CHECK(objects >= 20);
  CHECK(with_findings >= 10);
  CHECK(patched >= 3);
  CHECK(alone_checked >= 8);
  CHECK(owned_checked >= 4);  // testdata/cluster-dump
}

// An in-place resize carries the whole resized Pod: /validate gives the
// findings the CLI gives for that Pod with the same nodes, on the node it runs
// on (1.36's captures 21 and 22, a container's and a pod-level resize).
TEST_CASE("a resize review gets the CLI's findings for the resized pod", "[webhook][parity]") {
  // The same nodes for both: the API server's list for the webhook; for the
  // CLI, its items with the kind that `kubectl get -o yaml` writes in.
  std::string list = ReadFile(AdmissionDir() + "/nodes-list.json");
  TestServer s([&](ServerOptions& o, const TempDir& dir) {
    WriteFileAtomic(dir / "nodes.json", list);
    o.nodes_file = dir / "nodes.json";
  });
  TempDir dir;
  Json node_list = Json::parse(list);
  for (Json& node : node_list["items"]) node["kind"] = "Node", node["apiVersion"] = "v1";
  std::string nodes = dir / "nodes.json";
  WriteFileAtomic(nodes, node_list.dump());
  size_t resizes = 0;
  for (const std::string& set : CaptureSets()) {
    for (const std::string& file : CapturedReviews(set)) {
      std::string body = ReadFile(file);
      Json sent = Json::parse(body);
      if (sent["request"].value("subResource", "") != "resize") continue;
      INFO(file);
      ++resizes;
      std::string pod = dir / "pod.json";
      WriteFileAtomic(pod, sent["request"]["object"].dump());
      std::vector<Json> cli = RunCli(pod, "--nodes '" + nodes + "' ")["findings"];
      REQUIRE_FALSE(cli.empty());
      CheckSameFindings(s.Review("validate", body)["response"], cli);
    }
  }
  CHECK(resizes == 2);
}

// The warnings of one or more answers, sorted: /admit's come in its own order.
std::vector<std::string> Warnings(std::initializer_list<const Json*> answers) {
  std::vector<std::string> out;
  for (const Json* a : answers)
    if (a->contains("warnings"))
      for (const Json& w : a->at("warnings")) out.push_back(w);
  std::sort(out.begin(), out.end());
  return out;
}

struct AdmitCounts {
  int reviews = 0, denied = 0, patched = 0, repaired = 0;
};

// /admit (one call per pod: the chart's webhook.mutating.validatePods) must
// leave the API server where /mutate and then /validate leave it: the same
// verdict, message and warnings, and the patch when it admits. /validate is
// sent what the API server would send it, the object with /mutate's patch
// applied. Sent again what it let through (the API server reinvokes it when a
// later webhook changed the pod), /admit adds nothing and says the same.
void CheckAdmit(TestServer& s, const std::string& body, const std::string& mode,
                AdmitCounts* counts) {
  INFO(mode);
  Json sent = Json::parse(body);
  Json m = s.Review("mutate/" + mode, body)["response"];
  Json stored = sent;
  if (m.contains("patch"))
    stored["request"]["object"] =
        sent["request"]["object"].patch(Json::parse(DecodeBase64(m["patch"])));
  Json v = s.Review("validate/" + mode, stored.dump())["response"];
  Json a = s.Review("admit/" + mode, body)["response"];
  CHECK(a["uid"] == sent["request"]["uid"]);
  CHECK(a["allowed"] == v["allowed"]);
  CHECK(a.value("status", Json()) == v.value("status", Json()));
  if (v.value("warnings", Json::array()).size() + m.value("warnings", Json::array()).size() <=
      kMaxWarnings)
    CHECK(Warnings({&a}) == Warnings({&v, &m}));
  Json annotations = m.value("auditAnnotations", Json::object());
  annotations.update(v.value("auditAnnotations", Json::object()));
  CHECK(a.value("auditAnnotations", Json::object()) == annotations);
  CHECK(a.value("patch", Json()) == (v["allowed"] == true ? m.value("patch", Json()) : Json()));
  counts->reviews++;
  counts->denied += a["allowed"] == false;
  counts->patched += a.contains("patch");
  if (mode == "deny" && a["allowed"] == true &&
      s.Review("validate/deny", body)["response"]["allowed"] == false)
    counts->repaired++;

  Json again = s.Review("admit/" + mode, stored.dump())["response"];
  CHECK_FALSE(again.contains("patch"));
  CHECK(again["allowed"] == a["allowed"]);
  CHECK(again.value("status", Json()) == a.value("status", Json()));
  CHECK(again.value("warnings", Json()) == a.value("warnings", Json()));
}

TEST_CASE("/admit answers what /mutate and /validate of the patched object answer, in every mode",
          "[webhook][parity][admit]") {
  TestServer s;
  Inventory no_nodes = BuildInventory(DefaultPolicy(), {});
  AdmitCounts counts;
  std::vector<std::string> bodies;
  for (const std::string& set : CaptureSets())
    for (const std::string& file : CapturedReviews(set)) bodies.push_back(ReadFile(file));
  for (const std::string& file : Manifests()) {
    Error error;
    LoadYamlFile(
        file, LoadLimits{},
        [&](Document&& doc) {
          if (!doc.ok || !doc.root.is_mapping()) return true;
          ForEachObject(doc.root, [&](const Value& object) {
            if (object.is_mapping() && !object.StringAt("kind").empty())
              bodies.push_back(ReviewFor(object, RefOf(object), static_cast<int>(bodies.size())));
          });
          return true;
        },
        &error);
  }
  for (const std::string& body : bodies) {
    INFO(body.substr(0, 400));
    for (const char* mode : {"deny", "warn", "audit"}) CheckAdmit(s, body, mode, &counts);
  }
  // Denials, patches, and pods that only the patch makes admissible (hiding
  // GPUs from a container with no GPU limit) were all exercised.
  CHECK(counts.reviews >= 3 * 300);
  CHECK(counts.denied >= 30);
  CHECK(counts.patched >= 60);
  CHECK(counts.repaired >= 3);
}

}  // namespace
}  // namespace gpulint::webhook_test
