#include "lint/fix/unit_fix.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/yaml/loader.h"

namespace gpulint {
namespace {

TEST_CASE("CertainUnitFix: the rewrites with one reading", "[unit-fix]") {
  struct Case {
    const char* in;
    const char* out;
    const char* why;
  };
  const Case cases[] = {
      {"5MiB", "5Mi", "the \"i\" makes MiB the binary unit Mi, which Kubernetes writes Mi"},
      {"2GIB", "2Gi", "the \"i\" makes GIB the binary unit Gi, which Kubernetes writes Gi"},
      {"8gi", "8Gi", "the \"i\" makes gi the binary unit Gi, which Kubernetes writes Gi"},
      {"1.5kiB", "1.5Ki", "the \"i\" makes kiB the binary unit Ki, which Kubernetes writes Ki"},
      {"3TiB", "3Ti", "the \"i\" makes TiB the binary unit Ti, which Kubernetes writes Ti"},
      {"512B", "512", "B is a byte, which Kubernetes writes with no suffix"},
      {" 8Gi", "8Gi", "spaces are not part of a quantity"},
      {"8Gi\t", "8Gi", "spaces are not part of a quantity"},
      {"8 Gi", "8Gi", "spaces are not part of a quantity"},
      {"5 MiB", "5Mi",
       "spaces are not part of a quantity; the \"i\" makes MiB the binary unit Mi, which "
       "Kubernetes writes Mi"},
  };
  for (const Case& c : cases) {
    INFO(c.in);
    std::string fixed, why;
    REQUIRE(CertainUnitFix(c.in, &fixed, &why));
    CHECK(fixed == c.out);
    CHECK(why == c.why);
  }
}

TEST_CASE("CertainUnitFix: what needs a person stays as it is", "[unit-fix]") {
  // GB, g, K, M as memory: decimal or binary? b: a bit. A comma: a decimal
  // point or a thousands separator? Valid quantities need nothing.
  for (const char* in : {"500GB", "500gb", "40g", "1K", "1KB", "5Mib", "5b", "1,5", "5 GB", "8 0Gi",
                         "abc", "", "0x10", "5Mi", "500m", "1e3", "5MiBB", "5XiB"}) {
    INFO(in);
    std::string fixed = "untouched", why = "untouched";
    CHECK_FALSE(CertainUnitFix(in, &fixed, &why));
    CHECK(fixed == "untouched");
    CHECK(why == "untouched");
  }
}

Value Yaml(std::string_view text) {
  Value root;
  Error error;
  LoadYamlString(
      text, "<test>", LoadLimits{},
      [&](Document&& d) {
        INFO(d.error.ToString());
        REQUIRE(d.ok);
        root = std::move(d.root);
        return false;
      },
      &error);
  return root;
}

TEST_CASE("UnitFixes: byte-sized resources and VRAM annotations, nothing else", "[unit-fix]") {
  Value pod = Yaml(R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  template:
    metadata:
      annotations: {gpulint.io/vram: 12GiB, gpulint.io/vram.b: 4gi, other: 5MiB}
    spec:
      initContainers:
      - name: a
        resources: {limits: {memory: 1GiB}}
      containers:
      - name: b
        resources:
          requests: {cpu: 1MiB, ephemeral-storage: 512B, memory: 500GB, example.com/x: 2KiB}
          limits: {hugepages-2Mi: 2MiB, gpulint.io/vram: 8GIB, nvidia.com/gpu: 1}
)");
  std::vector<std::string> got;
  for (const UnitFix& f : UnitFixes(pod, DefaultPolicy(), Inventory())) {
    got.push_back(f.op.op + " " + f.op.path + " " + f.op.value.text() + " (" + f.field + ": " +
                  f.at->text() + ")");
  }
  CHECK(got == std::vector<std::string>{
                   "replace /spec/template/metadata/annotations/gpulint.io~1vram 12Gi "
                   "(gpulint.io/vram: 12GiB)",
                   "replace /spec/template/metadata/annotations/gpulint.io~1vram.b 4Gi "
                   "(gpulint.io/vram.b: 4gi)",
                   "replace /spec/template/spec/initContainers/0/resources/limits/memory 1Gi "
                   "(memory: 1GiB)",
                   "replace /spec/template/spec/containers/0/resources/requests/"
                   "ephemeral-storage 512 (ephemeral-storage: 512B)",
                   "replace /spec/template/spec/containers/0/resources/limits/hugepages-2Mi 2Mi "
                   "(hugepages-2Mi: 2MiB)",
                   "replace /spec/template/spec/containers/0/resources/limits/gpulint.io~1vram "
                   "8Gi (gpulint.io/vram: 8GIB)",
               });
}

TEST_CASE("UnitFixes: none in an exempt namespace", "[unit-fix]") {
  Policy policy;
  Error error;
  REQUIRE(
      LoadPolicyText("apiVersion: gpulint.io/v1alpha1\nkind: Policy\nspec:\n  exemptions:\n"
                     "    namespaces: [legacy]\n",
                     "<policy>", &policy, &error));
  const char* pod = R"(apiVersion: v1
kind: Pod
metadata: {name: p, namespace: %s}
spec:
  containers:
  - {name: c, resources: {limits: {memory: 1GiB}}}
)";
  char text[256];
  std::snprintf(text, sizeof text, pod, "legacy");
  CHECK(UnitFixes(Yaml(text), policy, Inventory()).empty());
  std::snprintf(text, sizeof text, pod, "ml");
  CHECK(UnitFixes(Yaml(text), policy, Inventory()).size() == 1);
}

}  // namespace
}  // namespace gpulint
