// Image patterns: which images the policy takes for CUDA images.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "engine/policies.h"
#include "engine/policy/policy_test_support.h"

namespace gpulint {
namespace {

using namespace policy_testing;  // NOLINT: test helpers

TEST_CASE("a pattern list matches when any one of its patterns matches", "[policy][images]") {
  PatternList list;
  std::vector<PatternList::Bad> bad;
  REQUIRE(list.Set({"^a", "b$", "c[0-9]+d"}, &bad));
  for (const char* text : {"a", "ax", "xb", "c12d", "xc1dx", "abc"}) {
    INFO(text);
    CHECK(list.Matches(text));
  }
  for (const char* text : {"", "xa", "bx", "cd", "c1", "xbx"}) {
    INFO(text);
    CHECK_FALSE(list.Matches(text));
  }
  // A bad pattern leaves the list as it was.
  // Every bad pattern is named.
  CHECK_FALSE(list.Set({"(unclosed", "ok", "[z-a]"}, &bad));
  REQUIRE(bad.size() == 2);
  CHECK(bad[0].index == 0);
  CHECK(bad[0].error == "missing ): (unclosed");
  CHECK(bad[1].index == 2);
  CHECK(bad[1].error == "invalid character class range: z-a");
  CHECK(list.Matches("xb"));
  CHECK_FALSE(list.Matches("ok"));
  REQUIRE(list.Set({}, &bad));
  CHECK_FALSE(list.Matches("a"));
}

// An image and why it is, or is not, a CUDA image.
struct ImageCase {
  const char* image;
  const char* why;
};

TEST_CASE("the default CUDA image patterns", "[policy][images]") {
  const Policy& p = DefaultPolicy();
  const ImageCase kCuda[] = {
      {"nvidia/cuda", "the CUDA base image"},
      {"nvidia/cuda:10.1-base-ubuntu18.04", "the CUDA base image, tagged"},
      {"docker.io/nvidia/cuda:13.0.2-base-ubi8", "with its registry"},
      {"nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0", "cuda as a word of name and tag"},
      {"nvcr.io/nvidia/tritonserver:22.01-py3", "NGC"},
      {"tensorflow/tensorflow:2.13.0-gpu-jupyter", "gpu qualifies the tag"},
      {"tensorflow/tensorflow:latest-gpu", "gpu ends the tag"},
      {"tensorflow/tensorflow:gpu", "the tag is gpu"},
      {"pytorch/torchserve-gpu:0.9.0", "gpu qualifies the name"},
      {"rayproject/ray:2.37.0-gpu", "ray's GPU tag"},
      {"rayproject/ray-llm:2.52.0-py311-cu128", "a PyTorch wheel's CUDA tag"},
      {"rayproject/ray-ml", "ray-ml's plain tags are GPU builds"},
      {"rayproject/ray-ml:2.9.0", "ray-ml, a plain version"},
      {"rayproject/ray-ml:2.9.0-py310", "ray-ml, a plain version with its Python"},
      {"rayproject/ray-ml:latest", "ray-ml, latest"},
      {"registry.baidubce.com/paddlepaddle/paddle:2.4.0rc0-gpu-cuda11.2-cudnn8.1-trt8.0",
       "gpu and cuda in the tag"},
      {"us-docker.pkg.dev/deeplearning-platform-release/gcr.io/"
       "huggingface-text-generation-inference-cu124.2-3.ubuntu2204.py311",
       "cu124"},
      {"pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime", "pytorch/pytorch's -cuda tags"},
      {"pytorch/pytorch:2.5.1-cuda12.4-cudnn9-devel", "pytorch/pytorch's -cuda tags"},
      {"pytorch/pytorch", "pytorch/pytorch:latest is a CUDA build"},
      {"docker.io/pytorch/pytorch:latest", "pytorch/pytorch:latest is a CUDA build"},
      {"ghcr.io/huggingface/text-generation-inference:2.4.1", "TGI's plain tags are CUDA builds"},
      {"ghcr.io/huggingface/text-generation-inference:latest", "TGI, latest"},
      {"ghcr.io/huggingface/text-generation-inference", "TGI, no tag"},
      {"ghcr.io/huggingface/text-generation-inference:sha-0ff6ff6", "TGI, a commit build"},
      {"ollama/ollama", "ollama's default image carries CUDA"},
      {"ollama/ollama:0.3.12", "ollama, a version"},
      {"docker.io/ollama/ollama:latest", "ollama, latest"},
      {"vllm/vllm-openai:v0.8.5", "vLLM"},
      {"lmsysorg/sglang:latest", "SGLang"},
      {"pytorch_1.15_gpu_gemini_2.0:latest", "gpu as a later word of the name"},
  };
  for (const ImageCase& c : kCuda) {
    INFO(c.image << ": " << c.why);
    CHECK(p.MatchesCudaImage(c.image));
  }
  const ImageCase kNotCuda[] = {
      {"ubuntu:22.04", "no GPU word"},
      {"busybox", "no GPU word"},
      {"rayproject/ray:2.52.0", "ray's plain tags are CPU builds"},
      {"rayproject/ray-ml:2.9.0-cpu", "ray-ml's CPU tag"},
      {"gcr.io/kubeflow/tensorflow-notebook-cpu:v1", "a CPU build"},
      {"kubeflow/pytorch-dist-mnist:latest", "pytorch in a name is no CUDA"},
      {"pytorch/pytorch:2.5.1-cpu", "hypothetical CPU tag: not -cuda, not latest"},
      {"registry.cn-hangzhou.aliyuncs.com/acs/k8s-gpushare-plugin:v2-1.11-aff8a23",
       "gpushare is a word of its own"},
      {"quay.io/coreos/etcd:v3.5.19", "no GPU word"},
      {"example.com/barracuda:1.0", "cuda inside a word"},
      {"example.com/cudatext:1", "cuda starts a longer word"},
      {"example.com/finops/gpu-cost-reporter:1.4.0", "gpu first in a name names a tool"},
      {"gpu-cost-reporter", "gpu first in a name names a tool"},
      {"nvidia/gpu-operator:v24.9.0", "gpu first in a name names a tool"},
      {"cheyang/gpu-player:v2",
       "gpu first in a name: a GPU-sharing demo, missed (a policy's cudaImages can name it)"},
      {"ghcr.io/huggingface/text-generation-inference:3.0.1-rocm", "TGI for AMD GPUs"},
      {"ghcr.io/huggingface/text-generation-inference:latest-intel-cpu", "TGI for Intel CPUs"},
      {"ollama/ollama:rocm", "ollama for AMD GPUs"},
      {"ollama/ollama:0.3.12-rocm", "ollama for AMD GPUs"},
      {"example.com/text-generation-inference-proxy:1", "a longer name"},
      {"example.com/myollama/ollama-ui:1", "not ollama/ollama"},
  };
  for (const ImageCase& c : kNotCuda) {
    INFO(c.image << ": " << c.why);
    CHECK_FALSE(p.MatchesCudaImage(c.image));
  }
}

}  // namespace
}  // namespace gpulint
