// Owner references: an object reported under its top owner in view.
#include "engine/base/owners.h"

#include <catch2/catch.hpp>
#include <string>

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

}  // namespace
}  // namespace gpulint
