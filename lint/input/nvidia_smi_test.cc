#include "lint/input/nvidia_smi.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "tests/golden.h"

namespace gpulint {
namespace {

std::vector<GpuRecord> Parse(std::string_view text) {
  std::vector<GpuRecord> gpus;
  Error error;
  INFO(text);
  bool ok = ParseNvidiaSmi(text, "<stdin>", &gpus, &error);
  INFO(error.ToString());
  REQUIRE(ok);
  return gpus;
}

std::string ParseError(std::string_view text) {
  std::vector<GpuRecord> gpus;
  Error error;
  CHECK_FALSE(ParseNvidiaSmi(text, "<stdin>", &gpus, &error));
  return error.ToString();
}

TEST_CASE("nvidia-smi: the recorded cards", "[nvidia-smi]") {
  struct Case {
    const char* file;
    size_t count;
    const char* name;
    int64_t mib;
  };
  const Case cases[] = {
      {"a100-sxm4-80gb-x8.csv", 8, "NVIDIA A100-SXM4-80GB", 81920},
      {"h100-80gb-hbm3-x8.csv", 8, "NVIDIA H100 80GB HBM3", 81559},
      {"t4.csv", 1, "Tesla T4", 15360},
      {"quadro-rtx-8000.csv", 1, "Quadro RTX 8000", 48601},
      {"l4-x4.csv", 4, "NVIDIA L4", 23034},
      {"a100-sxm4-40gb-x2-header-units-crlf.csv", 2, "NVIDIA A100-SXM4-40GB", 40960},
  };
  for (const Case& c : cases) {
    INFO(c.file);
    std::vector<GpuRecord> gpus =
        Parse(testing::ReadFile(testing::SourceDir() + "/testdata/nvidia-smi/" + c.file));
    REQUIRE(gpus.size() == c.count);
    for (size_t i = 0; i < gpus.size(); ++i) {
      CHECK(gpus[i].index == static_cast<int64_t>(i));
      CHECK(gpus[i].name == c.name);
      CHECK(gpus[i].memory_mib == c.mib);
    }
  }
}

TEST_CASE("nvidia-smi: header, units, blank lines and CRLF are tolerated", "[nvidia-smi]") {
  std::vector<GpuRecord> gpus = Parse(
      "index, name, memory.total [MiB]\r\n\r\n0, Tesla T4, 15360 MiB\r\n  \n"
      "1,Tesla T4,15360\n");
  REQUIRE(gpus.size() == 2);
  CHECK(gpus[0].line == 3);
  CHECK(gpus[0].memory_mib == 15360);
  CHECK(gpus[1].line == 5);
  CHECK(gpus[1].name == "Tesla T4");
  CHECK(Parse("").empty());
}

TEST_CASE("nvidia-smi: the H200 measured, with and without memory.reserved", "[nvidia-smi]") {
  // testdata/gpu/h200, captured 2026-11-28.
  const std::string dir = testing::SourceDir() + "/testdata/gpu/h200/";
  std::vector<GpuRecord> four = Parse(testing::ReadFile(dir + "query-index-name-total-reserved.csv"));
  REQUIRE(four.size() == 1);
  CHECK(four[0].name == "NVIDIA H200");
  CHECK(four[0].memory_mib == 143771);
  CHECK(four[0].reserved_mib == 616);
  std::vector<GpuRecord> three = Parse(testing::ReadFile(dir + "query-index-name-total.csv"));
  REQUIRE(three.size() == 1);
  CHECK(three[0].memory_mib == 143771);
  CHECK_FALSE(three[0].reserved_mib);
  // Its header and units, as nvidia-smi prints them without noheader,nounits.
  std::vector<GpuRecord> header = Parse(
      "index, name, memory.total [MiB], memory.reserved [MiB]\n0, NVIDIA H200, 143771 MiB, 616 MiB\n");
  REQUIRE(header.size() == 1);
  CHECK(header[0].reserved_mib == 616);
  // A driver that cannot say (before R510): unknown, not an error.
  std::vector<GpuRecord> unknown = Parse("0, Tesla T4, 15360, [N/A]\n1, Tesla T4, 15360, [Not Supported]\n");
  REQUIRE(unknown.size() == 2);
  CHECK_FALSE(unknown[0].reserved_mib);
  CHECK_FALSE(unknown[1].reserved_mib);
  // The nine-column query of the capture is another query.
  CHECK(ParseError(testing::ReadFile(dir + "query-full.csv")).starts_with(
      "<stdin>:1:1: expected 4 comma-separated fields (index, name, memory.total, "
      "memory.reserved) or the first 3, found 9"));
}

TEST_CASE("nvidia-smi: lines that are not nvidia-smi's name their line and column",
          "[nvidia-smi]") {
  const std::string query =
      " (run: nvidia-smi --query-gpu=index,name,memory.total,memory.reserved "
      "--format=csv,noheader,nounits)";
  CHECK(ParseError("0, Tesla T4, 15360\nTesla T4, 15360\n") ==
        "<stdin>:2:1: expected 4 comma-separated fields (index, name, memory.total, "
        "memory.reserved) or the first 3, found 2" +
            query);
  CHECK(ParseError("0, Tesla T4, 15360, 250, 12000\n") ==
        "<stdin>:1:1: expected 4 comma-separated fields (index, name, memory.total, "
        "memory.reserved) or the first 3, found 5" +
            query);
  CHECK(ParseError("x, Tesla T4, 15360\n") == "<stdin>:1:1: GPU index \"x\" is not a number");
  CHECK(ParseError("0, , 15360\n") == "<stdin>:1:4: the GPU name is empty");
  CHECK(ParseError("0, Tesla T4, 15.5\n") ==
        "<stdin>:1:14: memory.total \"15.5\" is not a whole number of MiB");
  CHECK(ParseError("0, Tesla T4, 15 GiB\n") ==
        "<stdin>:1:14: memory.total \"15 GiB\" is not in MiB");
  CHECK(ParseError("0, Tesla T4, [N/A]\n") ==
        "<stdin>:1:14: memory.total is \"[N/A]\": nvidia-smi could not read this GPU's memory");
  CHECK(ParseError("0, Tesla T4, 0\n") == "<stdin>:1:14: memory.total is 0 MiB");
  CHECK(ParseError("0, Tesla T4, 15360, lots\n") ==
        "<stdin>:1:21: memory.reserved \"lots\" is not a whole number of MiB");
  CHECK(ParseError("0, Tesla T4, 15360, 15360\n") ==
        "<stdin>:1:21: memory.reserved 15360 MiB is not less than memory.total 15360 MiB");
  CHECK(ParseError("index, name, memory.used [MiB]\n") ==
        "<stdin>:1:8: the header names the columns index, name, memory.used [MiB]; expected "
        "index, name, memory.total, memory.reserved" +
            query);
}

}  // namespace
}  // namespace gpulint
