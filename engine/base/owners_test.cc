// Owner references: an object reported under its top owner in view.
#include "engine/base/owners.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "engine/base/objects.h"
#include "engine/json/json_parser.h"

namespace gpulint {
namespace {

// An object of `kind` named `name` in namespace "ml" with `uid`, owned by
// `owners` (JSON ownerReferences, without brackets).
Value Object(const std::string& api_version, const std::string& kind, const std::string& name,
             const std::string& uid, const std::string& owners = "") {
  std::string text = R"({"apiVersion":")" + api_version + R"(","kind":")" + kind +
                     R"(","metadata":{"name":")" + name + R"(","namespace":"ml")";
  if (!uid.empty()) text += R"(,"uid":")" + uid + "\"";
  if (!owners.empty()) text += R"(,"ownerReferences":[)" + owners + "]";
  text += "}}";
  Value v;
  Error error;
  REQUIRE(ParseJson(text, 64, &v, &error));
  return v;
}

std::string Ref(const std::string& api_version, const std::string& kind, const std::string& name,
                const std::string& uid, bool controller = true) {
  std::string out =
      R"({"apiVersion":")" + api_version + R"(","kind":")" + kind + R"(","name":")" + name + "\"";
  if (!uid.empty()) out += R"(,"uid":")" + uid + "\"";
  if (controller) out += R"(,"controller":true,"blockOwnerDeletion":true)";
  return out + "}";
}

std::string TopName(const OwnerIndex& index, const Value& object) {
  const OwnedObject* top = index.TopOwner(object);
  return top ? top->ref.kind + "/" + top->ref.name : "none";
}

TEST_CASE("owners: a pod under its Deployment, through its ReplicaSet", "[owners]") {
  OwnerIndex index;
  index.Add(Object("apps/v1", "Deployment", "train", "d-1"));
  index.Add(Object("apps/v1", "ReplicaSet", "train-5d8f", "rs-1",
                   Ref("apps/v1", "Deployment", "train", "d-1")));
  index.Add(Object("apps/v1", "ReplicaSet", "train-5d8f", "rs-1"));  // the same, again
  CHECK(index.size() == 2);
  Value pod = Object("v1", "Pod", "train-5d8f-x2", "p-1",
                     Ref("apps/v1", "ReplicaSet", "train-5d8f", "rs-1"));
  CHECK(TopName(index, pod) == "Deployment/train");
  CHECK(TopName(index, Object("apps/v1", "ReplicaSet", "train-5d8f", "rs-1",
                              Ref("apps/v1", "Deployment", "train", "d-1"))) == "Deployment/train");
  CHECK(TopName(index, Object("apps/v1", "Deployment", "train", "d-1")) == "none");
  // A pod whose ReplicaSet is not in view stands on its own.
  CHECK(TopName(index, Object("v1", "Pod", "other", "p-2",
                              Ref("apps/v1", "ReplicaSet", "other-1", "rs-9"))) == "none");
}

TEST_CASE("owners: by kind and name in the namespace where uids are missing", "[owners]") {
  OwnerIndex index;
  index.Add(Object("batch/v1", "CronJob", "nightly", ""));
  index.Add(Object("batch/v1", "Job", "nightly-28", "", Ref("batch/v1", "CronJob", "nightly", "")));
  CHECK(TopName(index, Object("v1", "Pod", "nightly-28-abc", "",
                              Ref("batch/v1", "Job", "nightly-28", "j-1"))) == "CronJob/nightly");
  // A reference's uid that differs from the one in view: not that object (it
  // was deleted and made again).
  OwnerIndex with_uids;
  with_uids.Add(Object("batch/v1", "Job", "nightly-28", "j-2"));
  CHECK(TopName(with_uids, Object("v1", "Pod", "p", "",
                                  Ref("batch/v1", "Job", "nightly-28", "j-1"))) == "none");
  // The group counts, the version does not.
  CHECK(TopName(index, Object("v1", "Pod", "p", "",
                              Ref("batch/v1beta1", "Job", "nightly-28", ""))) == "CronJob/nightly");
  CHECK(TopName(index, Object("v1", "Pod", "p", "",
                              Ref("example.com/v1", "Job", "nightly-28", ""))) == "none");
}

TEST_CASE("owners: the controller reference first, else any owner in view", "[owners]") {
  OwnerIndex index;
  index.Add(Object("apps/v1", "StatefulSet", "db", "s-1"));
  index.Add(Object("example.com/v1", "Backup", "db-backup", "b-1"));
  std::string both = Ref("example.com/v1", "Backup", "db-backup", "b-1", false) + "," +
                     Ref("apps/v1", "StatefulSet", "db", "s-1");
  CHECK(TopName(index, Object("v1", "Pod", "db-0", "p-1", both)) == "StatefulSet/db");
  // The controller is not in view (a kind nobody listed): another owner is.
  std::string elsewhere = Ref("argoproj.io/v1alpha1", "Rollout", "web", "r-1") + "," +
                          Ref("example.com/v1", "Backup", "db-backup", "b-1", false);
  CHECK(TopName(index, Object("v1", "Pod", "web-1", "p-2", elsewhere)) == "Backup/db-backup");
}

TEST_CASE("owners: a cycle stops", "[owners]") {
  OwnerIndex index;
  index.Add(Object("example.com/v1", "A", "a", "a-1", Ref("example.com/v1", "B", "b", "b-1")));
  index.Add(Object("example.com/v1", "B", "b", "b-1", Ref("example.com/v1", "A", "a", "a-1")));
  CHECK(TopName(index, Object("v1", "Pod", "p", "", Ref("example.com/v1", "A", "a", "a-1"))) !=
        "none");
}

// The names of the objects of `json` (one document) with an owner beside
// them in it.
std::vector<std::string> OwnedInDocument(const std::string& json) {
  Value doc;
  Error error;
  REQUIRE(ParseJson(json, 64, &doc, &error));
  const OwnerIndex index = OwnerIndex::OfDocument(doc);
  std::vector<std::string> out;
  ForEachObject(doc, [&](const Value& object) {
    if (index.TopOwner(object)) out.push_back(RefOf(object).name);
  });
  return out;
}

TEST_CASE("owners: a List's items, by uid, else by kind and name in the namespace", "[owners]") {
  const std::string list = R"({"kind": "List", "items": [
  {"kind": "Pod", "metadata": {"name": "by-uid", "namespace": "ml",
   "ownerReferences": [{"kind": "ReplicaSet", "name": "renamed", "uid": "u-rs"}]}},
  {"kind": "Pod", "metadata": {"name": "by-name", "namespace": "ml",
   "ownerReferences": [{"kind": "ReplicaSet", "name": "rs"}]}},
  {"kind": "Pod", "metadata": {"name": "other-uid", "namespace": "ml",
   "ownerReferences": [{"kind": "ReplicaSet", "name": "rs", "uid": "u-old"}]}},
  {"kind": "Pod", "metadata": {"name": "other-namespace", "namespace": "prod",
   "ownerReferences": [{"kind": "ReplicaSet", "name": "rs"}]}},
  {"kind": "Pod", "metadata": {"name": "other-kind", "namespace": "ml",
   "ownerReferences": [{"kind": "Job", "name": "rs"}]}},
  {"kind": "Pod", "metadata": {"name": "absent", "namespace": "ml",
   "ownerReferences": [{"kind": "ReplicaSet", "name": "gone", "uid": "u-gone"}]}},
  {"kind": "Pod", "metadata": {"name": "second-ref", "namespace": "ml",
   "ownerReferences": [{"kind": "X", "name": "y"}, {"kind": "Job", "name": "j"}]}},
  {"kind": "Job", "metadata": {"name": "j", "namespace": "ml"}},
  {"kind": "Pod", "metadata": {"name": "bare", "namespace": "ml"}},
  {"kind": "Pod", "metadata": {"name": "self", "namespace": "ml", "uid": "u-self",
   "ownerReferences": [{"kind": "Pod", "name": "self", "uid": "u-self"}]}},
  {"kind": "ReplicaSet", "metadata": {"name": "rs", "namespace": "ml", "uid": "u-rs",
   "ownerReferences": [{"kind": "Deployment", "name": "d", "uid": "u-d"}]}},
  {"kind": "Deployment", "metadata": {"name": "d", "namespace": "ml", "uid": "u-d"}}]})";
  // An owner with a uid other than the reference's is another object (one
  // deleted and made again): the pod is no longer its. An object naming
  // itself owns nothing.
  CHECK(OwnedInDocument(list) == std::vector<std::string>{"by-uid", "by-name", "second-ref", "rs"});
}

TEST_CASE("owners: a document of one object, and owner references that are no list", "[owners]") {
  // A lone object has no owner beside it, even one that names itself.
  CHECK(OwnedInDocument(R"({"kind": "Pod", "metadata": {"name": "p", "uid": "u",
                           "ownerReferences": [{"kind": "Pod", "uid": "u"}]}})")
            .empty());
  CHECK(OwnedInDocument(R"({"kind": "List", "items": [
          {"kind": "Pod", "metadata": {"name": "p", "ownerReferences": 3}},
          {"kind": "Pod", "metadata": {"name": "q", "ownerReferences": [7, {"name": "p"}]}},
          5]})")
            .empty());
}

}  // namespace
}  // namespace gpulint
