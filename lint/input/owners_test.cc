// OwnersInDocument: which objects of a document are judged under their owner.
#include "lint/input/owners.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "engine/base/objects.h"
#include "engine/yaml/loader.h"

namespace gpulint {
namespace {

// The names of the objects of `yaml` (one document) that have an owner in it.
std::vector<std::string> Owned(const std::string& yaml) {
  std::vector<std::string> out;
  Error error;
  REQUIRE(LoadYamlString(
      yaml, "t.yaml", LoadLimits{},
      [&](Document&& doc) {
        REQUIRE(doc.ok);
        OwnersInDocument owners(doc.root);
        ForEachObject(doc.root, [&](const Value& object) {
          if (owners.HasOwner(object)) out.push_back(RefOf(object).name);
        });
        return true;
      },
      &error));
  return out;
}

TEST_CASE("owners: by uid, else by kind and name in the object's namespace", "[owners]") {
  const std::string list = R"(apiVersion: v1
kind: List
items:
- {kind: Pod, metadata: {name: by-uid, namespace: ml, ownerReferences: [{kind: ReplicaSet, name: renamed, uid: u-rs}]}}
- {kind: Pod, metadata: {name: by-name, namespace: ml, ownerReferences: [{kind: ReplicaSet, name: rs}]}}
- {kind: Pod, metadata: {name: other-uid, namespace: ml, ownerReferences: [{kind: ReplicaSet, name: rs, uid: u-old}]}}
- {kind: Pod, metadata: {name: other-namespace, namespace: prod, ownerReferences: [{kind: ReplicaSet, name: rs}]}}
- {kind: Pod, metadata: {name: other-kind, namespace: ml, ownerReferences: [{kind: Job, name: rs}]}}
- {kind: Pod, metadata: {name: absent, namespace: ml, ownerReferences: [{kind: ReplicaSet, name: gone, uid: u-gone}]}}
- {kind: Pod, metadata: {name: second-ref, namespace: ml, ownerReferences: [{kind: X, name: y}, {kind: Job, name: j}]}}
- {kind: Job, metadata: {name: j, namespace: ml}}
- {kind: Pod, metadata: {name: bare, namespace: ml}}
- {kind: ReplicaSet, metadata: {name: rs, namespace: ml, uid: u-rs, ownerReferences: [{kind: Deployment, name: d, uid: u-d}]}}
- {kind: Deployment, metadata: {name: d, namespace: ml, uid: u-d}}
)";
  // An owner with a uid other than the reference's is another object (one
  // deleted and made again): the pod is no longer its.
  CHECK(Owned(list) == std::vector<std::string>{"by-uid", "by-name", "second-ref", "rs"});
}

TEST_CASE("owners: a document of one object, and ownerReferences that are no list", "[owners]") {
  // A lone object has no owner beside it, even one that names itself.
  CHECK(Owned("kind: Pod\nmetadata: {name: p, uid: u, ownerReferences: [{uid: u}]}\n").empty());
  CHECK(Owned("kind: List\nitems:\n- {kind: Pod, metadata: {name: p, ownerReferences: 3}}\n"
              "- {kind: Pod, metadata: {name: q, ownerReferences: [7, {name: p}]}}\n"
              "- 5\n")
            .empty());
}

}  // namespace
}  // namespace gpulint
