#include "lint/input/inputs.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/base/objects.h"
#include "engine/yaml/loader.h"
#include "tests/temp_dir.h"

namespace gpulint {
namespace {

std::vector<std::string> Paths(const std::vector<InputFile>& files, const std::string& prefix) {
  std::vector<std::string> out;
  for (const InputFile& f : files) {
    out.push_back(f.path.substr(0, prefix.size()) == prefix ? f.path.substr(prefix.size())
                                                            : f.path);
  }
  return out;
}

struct Result {
  bool ok = false;
  Error error;
  std::vector<std::string> docs;  // JSON of each document, or its error
};

Result Load(const std::string& path) {
  Result r;
  r.ok = LoadYamlFile(
      path, {},
      [&](Document&& d) {
        r.docs.push_back(d.ok ? ToJson(d.root) : d.error.ToString());
        return true;
      },
      &r.error);
  return r;
}

TEST_CASE("ExpandPaths: directories, sorted, loops not followed", "[inputs]") {
  TempDir dir;
  dir.Write("b.yaml", "");
  dir.Write("a.yml", "");
  dir.Write("c.json", "");
  dir.Write("notes.txt", "");
  dir.Write("yaml", "");
  REQUIRE(mkdir(dir.Path("sub").c_str(), 0755) == 0);
  dir.Write("sub/z.yaml", "");
  REQUIRE(mkdir(dir.Path("sub/deeper").c_str(), 0755) == 0);
  dir.Write("sub/deeper/x.yml", "");
  REQUIRE(symlink("..", dir.Path("sub/loop").c_str()) == 0);
  REQUIRE(symlink("sub", dir.Path("sub2").c_str()) == 0);
  REQUIRE(symlink("missing", dir.Path("dangling.yaml").c_str()) == 0);
  REQUIRE(mkfifo(dir.Path("fifo.yaml").c_str(), 0644) == 0);
  std::string other = dir.Write("other.txt", "");

  std::vector<Error> errors;
  std::vector<InputFile> files =
      ExpandPaths({dir.path().string(), "-", other, dir.Path("nope.yaml")}, &errors);
  // sub2 links to a directory already walked; sub/loop back to the root.
  CHECK(Paths(files, dir.path().string()) == std::vector<std::string>{
                                        "/a.yml",
                                        "/b.yaml",
                                        "/c.json",
                                        "/sub/deeper/x.yml",
                                        "/sub/z.yaml",
                                        "-",
                                        "/other.txt",
                                    });
  REQUIRE(errors.size() == 2);
  CHECK(errors[0].ToString() == dir.Path("dangling.yaml") + ": no such file or directory");
  CHECK(errors[1].ToString() == dir.Path("nope.yaml") + ": no such file or directory");
}

// "chart:PATH", "kustomization:PATH" or the file's path, under `prefix`.
std::vector<std::string> Described(const std::vector<InputFile>& files, const std::string& prefix) {
  std::vector<std::string> out = Paths(files, prefix);
  for (size_t i = 0; i < files.size(); ++i) {
    if (files[i].kind == InputKind::kHelmChart) out[i] = "chart:" + out[i];
    if (files[i].kind == InputKind::kKustomization) out[i] = "kustomization:" + out[i];
  }
  return out;
}

// A repository with a chart (a subchart under its charts/), a kustomization
// and plain manifests.
void WriteSources(const TempDir& dir) {
  for (const char* sub : {"app", "app/templates", "app/charts", "app/charts/db",
                          "app/charts/db/templates", "overlay", "plain"})
    REQUIRE(mkdir(dir.Path(sub).c_str(), 0755) == 0);
  dir.Write("app/Chart.yaml", "name: app\n");
  dir.Write("app/values.yaml", "");
  dir.Write("app/templates/deploy.yaml", "{{ if .Values.x }}\n");
  dir.Write("app/templates/svc.yaml", "");
  dir.Write("app/charts/db/Chart.yaml", "name: db\n");
  dir.Write("app/charts/db/templates/sts.yaml", "");
  dir.Write("overlay/kustomization.yaml", "resources: [deploy.yaml]\n");
  dir.Write("overlay/deploy.yaml", "");
  dir.Write("plain/pod.yaml", "");
}

TEST_CASE("ExpandPaths: a chart or kustomization met in a walk is one input, not walked",
          "[inputs]") {
  TempDir dir;
  WriteSources(dir);
  std::vector<Error> errors;
  std::vector<InputFile> files = ExpandPaths({dir.path().string()}, &errors);
  CHECK(errors.empty());
  CHECK(Described(files, dir.path().string()) ==
        std::vector<std::string>{"chart:/app", "kustomization:/overlay", "/plain/pod.yaml"});
}

TEST_CASE("ExpandPaths: files named inside a chart stand for the chart, listed once, a "
          "kustomization's resources are files",
          "[inputs]") {
  TempDir dir;
  WriteSources(dir);
  std::vector<Error> errors;
  // As pre-commit passes them: templates, values, a subchart's template, and
  // the chart itself again.
  std::vector<InputFile> files =
      ExpandPaths({dir.Path("app/templates/deploy.yaml"), dir.Path("plain/pod.yaml"),
                   dir.Path("app/templates/svc.yaml"), dir.Path("app/values.yaml"),
                   dir.Path("app/charts/db/templates/sts.yaml"), dir.Path("app/templates"),
                   dir.Path("app"), dir.Path("overlay/deploy.yaml"),
                   dir.Path("overlay/kustomization.yaml")},
                  &errors);
  CHECK(errors.empty());
  CHECK(Described(files, dir.path().string()) ==
        std::vector<std::string>{"chart:/app", "/plain/pod.yaml", "/overlay/deploy.yaml",
                                 "kustomization:/overlay"});
}

TEST_CASE("ExpandPaths: what each path gave, so that a path that gave nothing can be told",
          "[inputs]") {
  TempDir dir;
  WriteSources(dir);
  REQUIRE(mkdir(dir.Path("empty").c_str(), 0755) == 0);
  dir.Write("empty/README.md", "");
  std::vector<Error> errors;
  std::vector<PathYield> yields;
  std::vector<InputFile> files =
      ExpandPaths({dir.Path("app/templates/deploy.yaml"), dir.Path("empty"), dir.Path("plain"), "-",
                   dir.Path("nope.yaml"), dir.Path("app/values.yaml"), dir.path().string()},
                  &errors, &yields);
  CHECK(Described(files, dir.path().string()) ==
        std::vector<std::string>{"chart:/app", "/plain/pod.yaml", "-", "kustomization:/overlay",
                                 "/plain/pod.yaml"});
  REQUIRE(yields.size() == 7);
  CHECK(yields[0].inputs == std::vector<size_t>{0});
  CHECK(yields[1].inputs.empty());  // nothing there, and no error either
  CHECK(yields[1].errors == 0);
  CHECK(yields[2].inputs == std::vector<size_t>{1});
  CHECK(yields[3].inputs == std::vector<size_t>{2});
  CHECK(yields[4].inputs.empty());
  CHECK(yields[4].errors == 1);
  CHECK(yields[5].inputs == std::vector<size_t>{0});  // the chart, listed once
  // The walk meets the chart again: it is this path's too.
  CHECK(yields[6].inputs == std::vector<size_t>{0, 3, 4});
  CHECK(errors.size() == 1);
}

TEST_CASE("ExpandPaths: a relative path looks for its chart up to the working directory",
          "[inputs]") {
  TempDir dir;
  WriteSources(dir);
  char old[4096];
  REQUIRE(getcwd(old, sizeof old) != nullptr);
  REQUIRE(chdir(dir.Path("app").c_str()) == 0);
  std::vector<Error> errors;
  std::vector<InputFile> inside = ExpandPaths({"templates/deploy.yaml"}, &errors);
  REQUIRE(chdir(dir.path().c_str()) == 0);
  std::vector<InputFile> beside = ExpandPaths({"app/templates/svc.yaml", "plain"}, &errors);
  REQUIRE(chdir(old) == 0);
  CHECK(errors.empty());
  CHECK(Described(inside, "") == std::vector<std::string>{"chart:."});
  CHECK(Described(beside, "") == std::vector<std::string>{"chart:app", "plain/pod.yaml"});
}

TEST_CASE("LoadYamlFile: a regular file and an empty one", "[inputs]") {
  TempDir dir;
  Result r = Load(dir.Write("pods.yaml", "a: 1\n---\nb: [\n---\nc: 3\n"));
  CHECK(r.ok);
  CHECK(r.docs == std::vector<std::string>{
                      R"({"a":1})",
                      dir.Path("pods.yaml") + ":4:1: did not find expected node content "
                          "before the end of the document",
                      R"({"c":3})",
                  });
  Result empty = Load(dir.Write("empty.yaml", ""));
  CHECK(empty.ok);
  CHECK(empty.docs.empty());
}

TEST_CASE("LoadYamlFile: what is not a file", "[inputs]") {
  TempDir dir;
  Result d = Load(dir.path().string());
  CHECK_FALSE(d.ok);
  CHECK(d.error.ToString() == dir.path().string() + ": is a directory");

  Result zero = Load("/dev/zero");
  CHECK_FALSE(zero.ok);
  CHECK(zero.error.ToString() == "/dev/zero: is a character device, not a file");
  CHECK(zero.docs.empty());

  Result missing = Load(dir.Path("nope.yaml"));
  CHECK_FALSE(missing.ok);
  CHECK(missing.error.ToString() == dir.Path("nope.yaml") + ": no such file or directory");
}

TEST_CASE("LoadYamlFile: an unreadable file", "[inputs]") {
  TempDir dir;
  std::string path = dir.Write("secret.yaml", "a: 1\n");
  REQUIRE(chmod(path.c_str(), 0) == 0);
  Result r = Load(path);
  if (geteuid() == 0) {
    SUCCEED("root reads any file: nothing to refuse");
    return;
  }
  CHECK_FALSE(r.ok);
  CHECK(r.error.ToString() == path + ": permission denied");
}

TEST_CASE("LoadYamlFile: a FIFO, as process substitution gives", "[inputs]") {
  TempDir dir;
  std::string fifo = dir.Path("in.yaml");
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  std::thread writer([&] { std::ofstream(fifo) << "kind: Pod\n---\nkind: Node\n"; });
  Result r = Load(fifo);
  writer.join();
  CHECK(r.ok);
  CHECK(r.docs == std::vector<std::string>{R"({"kind":"Pod"})", R"({"kind":"Node"})"});
}

TEST_CASE("ForEachObject: lists and single objects", "[inputs]") {
  auto kinds = [](const std::string& yaml) {
    std::vector<std::string> out;
    Error error;
    LoadYamlString(
        yaml, "m.yaml", {},
        [&](Document&& d) {
          ForEachObject(
              d.root, [&](const Value& v) { out.push_back(std::string(v.StringAt("kind", "?"))); });
          return true;
        },
        &error);
    return out;
  };
  CHECK(kinds("kind: List\nitems: [{kind: Pod}, {kind: Service}]\n") ==
        std::vector<std::string>{"Pod", "Service"});
  CHECK(kinds("kind: NodeList\nitems: [{kind: Node}]\n") == std::vector<std::string>{"Node"});
  CHECK(kinds("kind: List\nitems: []\n").empty());
  CHECK(kinds("kind: Pod\nitems: [{kind: X}]\n") == std::vector<std::string>{"Pod"});
  CHECK(kinds("kind: List\nitems: {kind: X}\n") == std::vector<std::string>{"List"});
  CHECK(kinds("kind: List\n") == std::vector<std::string>{"List"});
  CHECK(kinds("- kind: Pod\n") == std::vector<std::string>{"?"});
}

}  // namespace
}  // namespace gpulint
