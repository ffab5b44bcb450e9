// What ratcheting (--allow-existing-violations) costs a review: the same
// Deployment with an error, judged as a CREATE, as an UPDATE whose oldObject
// has the error too (judged twice: the old object only because the new one
// has an error), and as that UPDATE with ratcheting off; and a clean UPDATE,
// which judges one object either way.
// Usage: ratchet [ITERATIONS]   One line per case: microseconds per review.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "engine/engine.h"
#include "webhook/server/admission.h"

namespace {

std::string Deployment(const std::string& memory, const std::string& restarted) {
  return R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"ml"},)"
         R"("spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":)"
         R"({"labels":{"app":"web"},"annotations":{"kubectl.kubernetes.io/restartedAt":")" +
         restarted +
         R"("}},"spec":{"containers":[{"name":"web","image":"busybox:1.36","resources":)"
         R"({"requests":{"memory":")" +
         memory + R"(","cpu":"1"},"limits":{"memory":")" + memory + R"("}}}]}}}})";
}

std::string Review(const std::string& op, const std::string& object, const std::string& old) {
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1",)"
         R"("kind":{"group":"apps","version":"v1","kind":"Deployment"},"namespace":"ml","name":"web",)"
         R"("operation":")" +
         op + R"(","userInfo":{"username":"alice"},"object":)" + object + R"(,"oldObject":)" + old +
         "}}";
}

}  // namespace

int main(int argc, char** argv) {
  using gpulint::HandleReview;
  int n = argc > 1 ? std::atoi(argv[1]) : 20000;
  const gpulint::Inventory inventory = gpulint::BuildInventory(gpulint::DefaultPolicy(), {});
  gpulint::Snapshot snap{
      std::shared_ptr<const gpulint::Policy>(std::shared_ptr<const gpulint::Policy>(),
                                             &gpulint::DefaultPolicy()),
      std::shared_ptr<const gpulint::Inventory>(std::shared_ptr<const gpulint::Inventory>(),
                                                &inventory)};
  std::string bad_old = Deployment("500m", "a"), bad_new = Deployment("500m", "b");
  std::string good_old = Deployment("512Mi", "a"), good_new = Deployment("512Mi", "b");
  struct Case {
    const char* name;
    std::string body;
    bool ratchet;
  } cases[] = {
      {"create, an error", Review("CREATE", bad_new, "null"), true},
      {"update, the same error, ratcheting on", Review("UPDATE", bad_new, bad_old), true},
      {"update, the same error, ratcheting off", Review("UPDATE", bad_new, bad_old), false},
      {"update, clean, ratcheting on", Review("UPDATE", good_new, good_old), true},
      {"update, clean, ratcheting off", Review("UPDATE", good_new, good_old), false},
  };
  for (const Case& c : cases) {
    gpulint::ReviewOptions options;
    options.allow_existing_violations = c.ratchet;
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i)
      if (HandleReview(gpulint::Endpoint::kValidate, c.body, snap, gpulint::Mode::kDeny, options)
              .http_status != 200)
        return 1;
    double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
                    .count() / n;
    std::printf("%-42s %7.1f us/review\n", c.name, us);
  }
  return 0;
}
