// --exclude in check, baseline and fix: what it leaves out is not read,
// whether a walk meets it or it is named.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "lint/cli/cli_test_util.h"

namespace gpulint {
namespace {

using testing::InDirectory;
using testing::Result;
using testing::Run;
using testing::TempDir;

// A pod with half a GPU: one gpu-fractional error wherever it is.
constexpr char kHalfGpu[] =
    "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
    "    image: busybox\n    resources: {limits: {nvidia.com/gpu: 0.5, memory: 1Gi}}\n";

// The files check reported findings in, from its JSON.
std::set<std::string> FilesWithFindings(const Result& r) {
  INFO(r.err);
  std::set<std::string> out;
  nlohmann::json report = nlohmann::json::parse(r.out);
  for (const auto& f : report.at("findings")) out.insert(f.at("file").get<std::string>());
  return out;
}

// k8s/ with manifests at several depths, a generated folder, a JSON file and
// a broken link where an excluded folder is.
void WriteTree(const TempDir& dir) {
  for (const char* name : {"k8s/a.yaml", "k8s/team/b.yaml", "k8s/generated/c.yaml",
                           "k8s/team/generated/d.yaml", "k8s/e.json"})
    dir.Write(name, kHalfGpu);
  REQUIRE(symlink("nowhere.yaml", (dir.path() + "/k8s/generated/broken.yaml").c_str()) == 0);
}

TEST_CASE("check --exclude: a walk leaves out what matches, at any depth or below the PATH",
          "[cli][exclude]") {
  TempDir dir;
  WriteTree(dir);
  InDirectory in(dir.path());
  Result all = Run({"check", "--format", "json", "k8s"});
  CHECK(all.rc == 2);  // the broken link is an input error
  CHECK(FilesWithFindings(all).size() == 5);

  // A name: every folder called generated, and with it the broken link.
  Result names =
      Run({"check", "--format", "json", "--exclude", "generated", "--exclude=*.json", "k8s"});
  CHECK(names.rc == 1);
  CHECK(FilesWithFindings(names) == std::set<std::string>{"k8s/a.yaml", "k8s/team/b.yaml"});
  CHECK(nlohmann::json::parse(names.out).at("summary").at("files") == 2);

  // A path: below the PATH walked, so k8s/team/generated stays.
  Result path = Run({"check", "--format", "json", "--exclude", "generated/**", "k8s"});
  CHECK(path.rc == 1);
  CHECK(FilesWithFindings(path) == std::set<std::string>{"k8s/a.yaml", "k8s/e.json",
                                                         "k8s/team/b.yaml",
                                                         "k8s/team/generated/d.yaml"});
  // The same folder from another PATH: the glob follows the PATH.
  Result from_top = Run({"check", "--format", "json", "--exclude", "k8s/generated/**", "."});
  CHECK(from_top.rc == 1);
  CHECK(FilesWithFindings(from_top).count("./k8s/generated/c.yaml") == 0);
  CHECK(FilesWithFindings(from_top).size() == 4);
}

TEST_CASE("check --exclude: a PATH named is left out too, as pre-commit names files",
          "[cli][exclude]") {
  TempDir dir;
  WriteTree(dir);
  InDirectory in(dir.path());
  // The hook runs with --allow-empty: a file it passes that --exclude leaves
  // out is said on stderr, and refuses nothing.
  Result r =
      Run({"check", "--format", "json", "--allow-empty", "--exclude", "generated", "k8s/a.yaml",
           "k8s/generated/c.yaml", "k8s/team/generated/d.yaml", "k8s/generated/broken.yaml"});
  CHECK(r.rc == 1);
  CHECK(FilesWithFindings(r) == std::set<std::string>{"k8s/a.yaml"});
  const std::string kEmptied = ": no manifests found (--exclude left out all there was)\n";
  CHECK(r.err == "gpulint: warning: k8s/generated/c.yaml" + kEmptied +
                     "gpulint: warning: k8s/team/generated/d.yaml" + kEmptied +
                     "gpulint: warning: k8s/generated/broken.yaml" + kEmptied);
  // Without it, a PATH that --exclude empties is one with no manifest: an
  // error, so that a glob that takes everything does not pass in silence.
  Result emptied = Run({"check", "-q", "--exclude", "*.yaml", "k8s/generated"});
  CHECK(emptied.rc == 2);
  CHECK(emptied.err == "gpulint: error: k8s/generated" + kEmptied);
}

TEST_CASE("baseline and fix --exclude, a glob that names nothing is a usage error",
          "[cli][exclude]") {
  TempDir dir;
  dir.Write("k8s/a.yaml", kHalfGpu);
  const std::string unfixed =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: q}\nspec:\n"
      "  containers:\n  - name: c\n    image: busybox\n"
      "    resources: {limits: {memory: 5MiB}}\n";
  dir.Write("k8s/generated/q.yaml", unfixed);
  dir.Write("k8s/generated/r.yaml", kHalfGpu);
  InDirectory in(dir.path());
  Result baseline = Run({"baseline", "-q", "--exclude", "generated", "k8s"});
  CHECK(baseline.rc == 0);
  nlohmann::json accepted = nlohmann::json::parse(baseline.out);
  CHECK(accepted.at("findings").size() == 1);
  for (const auto& entry : accepted.at("findings")) CHECK(entry.at("file") == "k8s/a.yaml");

  Result fix = Run({"fix", "--write", "-q", "--exclude", "generated/", "k8s"});
  CHECK(fix.rc == 0);
  CHECK(dir.Read("k8s/generated/q.yaml") == unfixed);
  CHECK(Run({"fix", "--write", "-q", "k8s"}).rc == 1);  // without it, 5MiB is fixed
  CHECK(dir.Read("k8s/generated/q.yaml") != unfixed);

  for (const char* command : {"check", "baseline", "fix"}) {
    INFO(command);
    Result bad = Run({command, "--exclude", "/", "k8s"});
    CHECK(bad.rc == 2);
    CHECK(bad.err == "gpulint: error: --exclude: '/' names no file or directory\n");
  }
}

}  // namespace
}  // namespace gpulint
