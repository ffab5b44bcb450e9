#include "engine/workload/removed_apis.h"

namespace gpulint {
namespace {

constexpr const char* kKubernetes = "Kubernetes";

constexpr RemovedApi kRemoved[] = {
    {"extensions/v1beta1", "DaemonSet", kKubernetes, "1.16",
     "apps/v1 (which also requires spec.selector)"},
    {"extensions/v1beta1", "Deployment", kKubernetes, "1.16",
     "apps/v1 (which also requires spec.selector)"},
    {"extensions/v1beta1", "ReplicaSet", kKubernetes, "1.16",
     "apps/v1 (which also requires spec.selector)"},
    {"extensions/v1beta1", "NetworkPolicy", kKubernetes, "1.16", "networking.k8s.io/v1"},
    {"extensions/v1beta1", "PodSecurityPolicy", kKubernetes, "1.16",
     "nothing (PodSecurityPolicy is gone since 1.25)"},
    {"extensions/v1beta1", "Ingress", kKubernetes, "1.22", "networking.k8s.io/v1"},
    {"apps/v1beta1", "*", kKubernetes, "1.16", "apps/v1"},
    {"apps/v1beta2", "*", kKubernetes, "1.16", "apps/v1"},
    {"batch/v1beta1", "CronJob", kKubernetes, "1.25", "batch/v1"},
    {"batch/v2alpha1", "CronJob", kKubernetes, "1.21", "batch/v1"},
    {"policy/v1beta1", "PodDisruptionBudget", kKubernetes, "1.25", "policy/v1"},
    {"policy/v1beta1", "PodSecurityPolicy", kKubernetes, "1.25", "Pod Security admission"},
    {"networking.k8s.io/v1beta1", "Ingress", kKubernetes, "1.22", "networking.k8s.io/v1"},
    {"scheduling.k8s.io/v1beta1", "PriorityClass", kKubernetes, "1.22", "scheduling.k8s.io/v1"},
    {"rbac.authorization.k8s.io/v1beta1", "*", kKubernetes, "1.22",
     "rbac.authorization.k8s.io/v1"},
    {"node.k8s.io/v1beta1", "RuntimeClass", kKubernetes, "1.25", "node.k8s.io/v1"},
    {"autoscaling/v2beta1", "HorizontalPodAutoscaler", kKubernetes, "1.25", "autoscaling/v2"},
    {"autoscaling/v2beta2", "HorizontalPodAutoscaler", kKubernetes, "1.26", "autoscaling/v2"},
    {"flowcontrol.apiserver.k8s.io/v1beta2", "*", kKubernetes, "1.29",
     "flowcontrol.apiserver.k8s.io/v1"},
    {"resource.k8s.io/v1alpha2", "*", kKubernetes, "1.31", "resource.k8s.io/v1"},
    // The MPI Operator's CRD: v0.2 served v1alpha1, v0.3 v1alpha2, v1 and
    // v2beta1, v0.4 on only v2beta1 (the Training Operator serves MPIJob
    // kubeflow.org/v1).
    {"kubeflow.org/v1alpha1", "MPIJob", "the MPI Operator", "v0.3.0",
     "kubeflow.org/v2beta1 (the MPI Operator) or kubeflow.org/v1 (the Training Operator)"},
    {"kubeflow.org/v1alpha2", "MPIJob", "the MPI Operator", "v0.4.0",
     "kubeflow.org/v2beta1 (the MPI Operator) or kubeflow.org/v1 (the Training Operator)"},
    // KFServing became KServe (0.7): its group was renamed.
    {"serving.kubeflow.org/v1alpha1", "*", "KServe", "v0.7.0", "serving.kserve.io/v1beta1"},
    {"serving.kubeflow.org/v1alpha2", "*", "KServe", "v0.7.0", "serving.kserve.io/v1beta1"},
    {"serving.kubeflow.org/v1alpha3", "*", "KServe", "v0.7.0", "serving.kserve.io/v1beta1"},
    {"serving.kubeflow.org/v1beta1", "*", "KServe", "v0.7.0", "serving.kserve.io/v1beta1"},
};

}  // namespace

const RemovedApi* FindRemovedApi(std::string_view api_version, std::string_view kind) {
  for (const RemovedApi& r : kRemoved)
    if (api_version == r.api_version && (std::string_view(r.kind) == "*" || kind == r.kind))
      return &r;
  return nullptr;
}

}  // namespace gpulint
