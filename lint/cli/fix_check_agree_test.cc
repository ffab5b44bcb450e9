// `gpulint fix` leaves exactly what `gpulint check` then reports, on every
// manifest of testdata/: both read an input through one stream of judged
// objects (engine/object_stream.h). Before it, fix judged the pods a
// ReplicaSet owns in a cluster dump, which check folds under their owner:
// check said 5 findings and fix "12 findings not fixed".
#include <catch2/catch.hpp>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "engine/base/objects.h"
#include "engine/base/owners.h"
#include "engine/yaml/loader.h"
#include "lint/cli/cli_test_util.h"
#include "tests/golden.h"

namespace gpulint {
namespace {

using testing::Lines;
using testing::Result;
using testing::Run;
using testing::TempDir;

// The findings fix -q says it left: each is followed by its note. A document
// fix cannot read is said as an error of its own, which check says as a
// parse-error finding; neither is a finding left.
std::vector<std::string> LeftByFix(const std::string& err) {
  std::vector<std::string> lines = Lines(err), out;
  for (size_t i = 0; i + 1 < lines.size(); ++i)
    if (lines[i + 1].find(": note: not fixed: ") != std::string::npos) out.push_back(lines[i]);
  return out;
}

std::vector<std::string> ReportedByCheck(const std::string& out) {
  std::vector<std::string> found;
  for (std::string& line : Lines(out))
    if (line.find("[parse-error]") == std::string::npos) found.push_back(std::move(line));
  return found;
}

// Every YAML and JSON file of testdata/, each fixed in a copy of its own and
// checked after, with and without a node inventory.
void FixThenCheckEveryFile(const std::vector<std::string>& nodes_args) {
  namespace fs = std::filesystem;
  TempDir dir;
  size_t files = 0, left = 0;
  for (const auto& entry : fs::recursive_directory_iterator(testing::SourceDir() + "/testdata")) {
    std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".yaml" && ext != ".yml" && ext != ".json")) continue;
    std::string copy =
        dir.Write(std::to_string(files++) + ext, testing::ReadFile(entry.path().string()));
    std::vector<std::string> fix = {"fix", "-q", "--write"}, check = {"check", "-q"};
    fix.insert(fix.end(), nodes_args.begin(), nodes_args.end());
    check.insert(check.end(), nodes_args.begin(), nodes_args.end());
    fix.push_back(copy);
    check.push_back(copy);
    Result fixed = Run(fix);
    Result checked = Run(check);
    INFO(entry.path().string() << "\nfix:\n" << fixed.err << "check:\n" << checked.out);
    std::vector<std::string> after = ReportedByCheck(checked.out);
    CHECK(LeftByFix(fixed.err) == after);
    left += after.size();
  }
  // The walk found the manifests, and they hold findings fix leaves.
  CHECK(files > 400);
  CHECK(left > 100);
}

TEST_CASE("fix leaves what check reports, on every file of testdata", "[cli][fix]") {
  FixThenCheckEveryFile({});
}

TEST_CASE("fix leaves what check reports, on every file of testdata, with nodes", "[cli][fix]") {
  FixThenCheckEveryFile({"--nodes", testing::SourceDir() + "/testdata/nodes/incidents.yaml"});
}

// The items of a List document that another item owns, as JSON.
std::vector<std::string> OwnedItems(const std::string& text) {
  std::vector<std::string> owned;
  Error error;
  bool ok = LoadYamlString(
      text, "dump.json", LoadLimits{},
      [&](Document&& doc) {
        OwnerIndex owners = OwnerIndex::OfDocument(doc.root);
        ForEachObject(doc.root, [&](const Value& item) {
          if (owners.TopOwner(item)) owned.push_back(ToJson(item));
        });
        return true;
      },
      &error);
  REQUIRE(ok);
  return owned;
}

TEST_CASE("fix leaves a cluster dump's owned pods to their owners, as check does", "[cli][fix]") {
  TempDir dir;
  const std::string original =
      testing::ReadFile(testing::SourceDir() + "/testdata/cluster-dump/kubectl-get-all.json");
  std::string dump = dir.Write("dump.json", original);
  Result before = Run({"check", "-q", dump});
  CHECK(ReportedByCheck(before.out).size() == 5);  // the owned pods folded under their owners
  Result fix = Run({"fix", "--write", dump});
  Result after = Run({"check", "-q", dump});
  CHECK(LeftByFix(fix.err) == ReportedByCheck(after.out));
  // Fix changed the dump, but nothing of a pod a ReplicaSet of it owns.
  const std::string fixed = dir.Read("dump.json");
  CHECK(fixed != original);
  std::vector<std::string> owned = OwnedItems(original);
  CHECK(owned.size() >= 2);
  CHECK(OwnedItems(fixed) == owned);
}

}  // namespace
}  // namespace gpulint
