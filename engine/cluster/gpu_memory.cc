#include "engine/cluster/gpu_memory.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace gpulint {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

// Where each row of the table comes from, for messages; docs/gpus.md says
// more of each.
constexpr std::string_view kH200Capture = "nvidia-smi mig -lgip on an H200, 2026-11-28";
constexpr std::string_view kH100Public = "public nvidia-smi mig -lgip outputs and GFD labels";
constexpr std::string_view kA100_80Public = "public GFD labels and nvidia-smi mig -lgip outputs";
constexpr std::string_view kA100_40Public = "public nvidia-smi mig -lgip outputs";

// nvidia-smi mig -lgip prints GiB with two decimals: 19.62 stands for 19.625
// GiB (20096 MiB), and each figure here is the largest the printed one can
// stand for, so that a declaration found larger surely is.
constexpr MigProfileSize kTable[] = {
    {"NVIDIA-H200", "1g.18gb", 16384, kH200Capture},
    {"NVIDIA-H200", "1g.35gb", 33280, kH200Capture},
    {"NVIDIA-H200", "2g.35gb", 33280, kH200Capture},
    {"NVIDIA-H200", "3g.71gb", 71424, kH200Capture},
    {"NVIDIA-H200", "4g.71gb", 71424, kH200Capture},
    {"NVIDIA-H200", "7g.141gb", 143360, kH200Capture},
    {"NVIDIA-H100-80GB-HBM3", "1g.10gb", 9984, kH100Public},
    {"NVIDIA-H100-80GB-HBM3", "1g.20gb", 20096, kH100Public},
    {"NVIDIA-H100-80GB-HBM3", "2g.20gb", 20096, kH100Public},
    {"NVIDIA-H100-80GB-HBM3", "3g.40gb", 40448, kH100Public},
    {"NVIDIA-H100-80GB-HBM3", "4g.40gb", 40448, kH100Public},
    {"NVIDIA-H100-80GB-HBM3", "7g.80gb", 81152, kH100Public},
    {"NVIDIA-A100-80GB-PCIe", "1g.10gb", 9728, kA100_80Public},
    {"NVIDIA-A100-80GB-PCIe", "1g.20gb", 19968, kA100_80Public},
    {"NVIDIA-A100-80GB-PCIe", "2g.20gb", 19968, kA100_80Public},
    {"NVIDIA-A100-80GB-PCIe", "3g.40gb", 40192, kA100_80Public},
    {"NVIDIA-A100-80GB-PCIe", "4g.40gb", 40192, kA100_80Public},
    {"NVIDIA-A100-80GB-PCIe", "7g.80gb", 80896, kA100_80Public},
    {"NVIDIA-A100-SXM4-80GB", "1g.10gb", 9728, kA100_80Public},
    {"NVIDIA-A100-SXM4-80GB", "1g.20gb", 19968, kA100_80Public},
    {"NVIDIA-A100-SXM4-80GB", "2g.20gb", 19968, kA100_80Public},
    {"NVIDIA-A100-SXM4-80GB", "3g.40gb", 40192, kA100_80Public},
    {"NVIDIA-A100-SXM4-80GB", "4g.40gb", 40192, kA100_80Public},
    {"NVIDIA-A100-SXM4-80GB", "7g.80gb", 80896, kA100_80Public},
    {"NVIDIA-A100-SXM4-40GB", "1g.5gb", 4864, kA100_40Public},
    {"NVIDIA-A100-SXM4-40GB", "1g.10gb", 9984, kA100_40Public},
    {"NVIDIA-A100-SXM4-40GB", "2g.10gb", 9984, kA100_40Public},
    {"NVIDIA-A100-SXM4-40GB", "3g.20gb", 20096, kA100_40Public},
    {"NVIDIA-A100-SXM4-40GB", "4g.20gb", 20096, kA100_40Public},
    {"NVIDIA-A100-SXM4-40GB", "7g.40gb", 40448, kA100_40Public},
};

// The GPU instance profile whose memory a MIG device has: "1c.3g.20gb" (a
// compute instance of a 3g.20gb) and "1g.18gb+me" (media extensions) have
// the memory of 3g.20gb and 1g.18gb.
std::string_view InstanceProfile(std::string_view profile) {
  size_t dot = profile.find('.');
  if (dot != std::string_view::npos && dot > 0 && profile[dot - 1] == 'c' &&
      std::all_of(profile.begin(), profile.begin() + dot - 1,
                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    profile.remove_prefix(dot + 1);
  profile = profile.substr(0, profile.find('+'));
  if (profile.ends_with("-me")) profile.remove_suffix(3);
  return profile;
}

// The card a product label names: GFD's single strategy labels a MIG slice
// "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb", and a shared GPU "...-SHARED".
std::string_view CardOf(std::string_view product) {
  if (size_t mig = product.find("-MIG-"); mig != std::string_view::npos)
    product = product.substr(0, mig);
  if (product.ends_with("-SHARED")) product.remove_suffix(7);
  return product;
}

bool ParseMib(std::string_view text, int64_t* mib) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *mib);
  return ec == std::errc() && end == text.data() + text.size() && *mib > 0 &&
         *mib <= (int64_t{1} << 42);
}

Quantity Mib(int64_t mib) { return Quantity::FromInt(mib * kMiB, QuantityFormat::kBinarySI); }

}  // namespace

Quantity DriverReserved(const GpuInfo& gpu, const GpuMemoryModel& model) {
  if (gpu.reserved_per_gpu) return *gpu.reserved_per_gpu;
  if (gpu.mig_slice) return Quantity::FromInt(0, QuantityFormat::kBinarySI);
  return model.driver_reserved;
}

std::optional<Quantity> VramForPods(const GpuInfo& gpu, const GpuMemoryModel& model) {
  if (!gpu.vram_per_gpu) return std::nullopt;
  Quantity left = *gpu.vram_per_gpu - DriverReserved(gpu, model);
  if (left.sign() < 0) return Quantity::FromInt(0, gpu.vram_per_gpu->format());
  return left;
}

std::optional<Quantity> AdvertisedVram(const GpuInfo& gpu, const GpuMemoryModel& model) {
  std::optional<Quantity> per_gpu = VramForPods(gpu, model);
  if (gpu.count <= 0 || !per_gpu) return std::nullopt;
  int64_t bytes = 0;
  if (__builtin_mul_overflow(gpu.count, per_gpu->Value(), &bytes)) return std::nullopt;
  return Quantity::FromInt(bytes, QuantityFormat::kBinarySI);
}

std::optional<Quantity> AdvertisedVram(const NodeClass& node, const GpuMemoryModel& model) {
  return AdvertisedVram(node.gpu, model);
}

std::string_view MigProfileOf(std::string_view resource) {
  constexpr std::string_view kPrefix = "nvidia.com/mig-";
  if (!resource.starts_with(kPrefix) || resource.size() == kPrefix.size()) return "";
  return resource.substr(kPrefix.size());
}

std::span<const MigProfileSize> MigProfileTable() { return kTable; }

std::optional<SliceMemory> MigSliceMemory(const NodeClass* node, std::string_view profile) {
  if (node) {
    std::string key = "nvidia.com/mig-" + std::string(profile) + ".memory";
    auto it = node->labels.find(key);
    int64_t mib = 0;
    if (it != node->labels.end() && ParseMib(it->second, &mib))
      return SliceMemory{Mib(mib), "its label " + key};
  }
  std::string_view instance = InstanceProfile(profile);
  std::string_view card = node ? CardOf(node->gpu.model) : std::string_view();
  const MigProfileSize* largest = nullptr;
  for (const MigProfileSize& row : kTable) {
    if (row.profile != instance) continue;
    if (!card.empty() && row.product == card)
      return SliceMemory{Mib(row.mib), std::string(row.product) + ": " + std::string(row.source)};
    if (!largest || row.mib > largest->mib) largest = &row;
  }
  if (!largest) return std::nullopt;
  return SliceMemory{Mib(largest->mib), "the largest " + std::string(instance) +
                                            " slice known, " + std::string(largest->product) +
                                            ": " + std::string(largest->source)};
}

}  // namespace gpulint
