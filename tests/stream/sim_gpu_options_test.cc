// Parsing and printing SimGPU option strings.
#include "stream/sim_gpu/sim_gpu_options.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "stream/sim_gpu/sim_gpu_platform.h"
#include "stream/sim_gpu/sim_gpu_profile.h"

namespace minitf::se {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kGiB = int64_t{1} << 30;

TEST(SimGPUOptionsTest, EmptyStringGivesTheV100Defaults) {
  absl::StatusOr<SimGPUOptions> o = ParseSimGPUOptions("");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->count, 1);
  EXPECT_EQ(o->memory_bytes, 16 * kGiB);
  EXPECT_EQ(o->tflops, 15.7);
  EXPECT_EQ(o->hbm_gbps, 900);
  EXPECT_EQ(o->pcie_gbps, 12);
  EXPECT_EQ(o->launch_latency_us, 5);
  EXPECT_EQ(o->mode, SimGPUOptions::Mode::kCompute);
  EXPECT_EQ(*o, SimGPUOptions());
}

TEST(SimGPUOptionsTest, ParsesEveryKey) {
  absl::StatusOr<SimGPUOptions> o = ParseSimGPUOptions(
      "count=2,memory=16GiB,tflops=100,hbm_gbps=2000,pcie_gbps=25,launch_us=3.5,mode=timing");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->count, 2);
  EXPECT_EQ(o->memory_bytes, 16 * kGiB);
  EXPECT_EQ(o->tflops, 100);
  EXPECT_EQ(o->hbm_gbps, 2000);
  EXPECT_EQ(o->pcie_gbps, 25);
  EXPECT_EQ(o->launch_latency_us, 3.5);
  EXPECT_EQ(o->mode, SimGPUOptions::Mode::kTiming);
}

TEST(SimGPUOptionsTest, AcceptsAnySubsetInAnyOrderWithSpaces) {
  absl::StatusOr<SimGPUOptions> o = ParseSimGPUOptions(" mode = functional , count=3,");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->count, 3);
  EXPECT_EQ(o->mode, SimGPUOptions::Mode::kFunctional);
  EXPECT_EQ(o->memory_bytes, 16 * kGiB);
  EXPECT_EQ(o->tflops, 15.7);
}

TEST(SimGPUOptionsTest, MemoryAcceptsEverySizeUnit) {
  const std::pair<const char*, int64_t> cases[] = {
      {"memory=4096", 4096},          {"memory=512B", 512},
      {"memory=64KiB", 64 << 10},     {"memory=64MiB", 64 * kMiB},
      {"memory=2GiB", 2 * kGiB},      {"memory=1TiB", 1024 * kGiB},
      {"memory=64KB", 64000},         {"memory=5MB", 5000000},
      {"memory=2GB", 2000000000},     {"memory=1.5GiB", 3 * kGiB / 2},
      {"memory=16gib", 16 * kGiB},
  };
  for (const auto& [text, bytes] : cases) {
    absl::StatusOr<SimGPUOptions> o = ParseSimGPUOptions(text);
    ASSERT_TRUE(o.ok()) << text << ": " << o.status();
    EXPECT_EQ(o->memory_bytes, bytes) << text;
  }
}

TEST(SimGPUOptionsTest, ToStringIsCanonicalAndParsesBack) {
  EXPECT_EQ(SimGPUOptions().ToString(),
            "gpu=v100,count=1,memory=16GiB,tflops=15.7,hbm_gbps=900,pcie_gbps=12,launch_us=5,"
            "sm_count=80,preempt_us=100,mode=compute,strict=true,kernels=cuda");
  for (const char* text : {"memory=65536KiB,mode=functional", "count=4,memory=1000B,tflops=0.1",
                           "launch_us=0,mode=timing,pcie_gbps=31.5", "preempt_us=12.5",
                           "kernels=all", "kernels=CUDA", "gpu=h100", "gpu=A100,sm_count=7",
                           "tflops=30,gpu=h100,memory=1GiB"}) {
    absl::StatusOr<SimGPUOptions> o = ParseSimGPUOptions(text);
    ASSERT_TRUE(o.ok()) << text << ": " << o.status();
    absl::StatusOr<SimGPUOptions> again = ParseSimGPUOptions(o->ToString());
    ASSERT_TRUE(again.ok()) << o->ToString() << ": " << again.status();
    EXPECT_EQ(*again, *o) << text;
    EXPECT_EQ(again->ToString(), o->ToString());
  }
  EXPECT_EQ(ParseSimGPUOptions("memory=65536KiB")->ToString(),
            ParseSimGPUOptions("memory=64MiB")->ToString());
}

// Each bad option: the error is InvalidArgument and names the key, the value
// (where there is one) and the whole option string.
TEST(SimGPUOptionsTest, EachBadKeyOrValueIsAClearError) {
  const std::pair<const char*, const char*> cases[] = {
      {"colour=blue", "colour"},
      {"count", "count"},
      {"count=two", "two"},
      {"count=-1", "count"},
      {"count=65", "count"},
      {"memory=lots", "lots"},
      {"memory=12XB", "12XB"},
      {"memory=100", "memory"},
      {"tflops=fast", "fast"},
      {"tflops=0", "tflops"},
      {"hbm_gbps=-5", "hbm_gbps"},
      {"pcie_gbps=nan", "pcie_gbps"},
      {"launch_us=-1", "launch_us"},
      {"preempt_us=-3", "preempt_us"},
      {"preempt_us=soon", "soon"},
      {"mode=turbo", "turbo"},
      {"gpu=bogus", "gpu=bogus"},
      {"gpu=", "gpu="},
      {"sm_count=0", "sm_count"},
      {"sm_count=many", "many"},
      {"gpu=h100,gpu=v100", "twice"},
      {"kernels=some", "some"},
      {"count=1,count=2", "twice"},
  };
  for (const auto& [text, names] : cases) {
    absl::StatusOr<SimGPUOptions> o = ParseSimGPUOptions(text);
    ASSERT_FALSE(o.ok()) << text;
    EXPECT_EQ(o.status().code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_NE(o.status().message().find(names), absl::string_view::npos)
        << text << ": " << o.status();
    EXPECT_NE(o.status().message().find(std::string("\"") + text + "\""),
              absl::string_view::npos)
        << text << ": " << o.status();
  }
}

// gpu= sets the figures of its profile; the keys given beside it win,
// whichever comes first.
TEST(SimGPUOptionsTest, GpuProfileSetsTheFiguresAndExplicitKeysOverrideThem) {
  absl::StatusOr<SimGPUOptions> h100 = ParseSimGPUOptions("gpu=h100");
  ASSERT_TRUE(h100.ok()) << h100.status();
  EXPECT_EQ(h100->gpu, GpuModel::kH100);
  EXPECT_EQ(h100->tflops, 67);
  EXPECT_EQ(h100->hbm_gbps, 3350);
  EXPECT_EQ(h100->pcie_gbps, 50);
  EXPECT_EQ(h100->launch_latency_us, GetGpuProfile(GpuModel::kH100).launch_us);
  EXPECT_EQ(h100->sm_count, 132);
  EXPECT_EQ(h100->memory_bytes, 80 * kGiB);
  EXPECT_EQ(h100->count, 1);
  EXPECT_EQ(h100->mode, SimGPUOptions::Mode::kCompute);

  for (const char* text : {"gpu=h100,tflops=30,memory=8GiB", "tflops=30,memory=8GiB,gpu=H100"}) {
    absl::StatusOr<SimGPUOptions> o = ParseSimGPUOptions(text);
    ASSERT_TRUE(o.ok()) << text << ": " << o.status();
    EXPECT_EQ(o->gpu, GpuModel::kH100) << text;
    EXPECT_EQ(o->tflops, 30) << text;
    EXPECT_EQ(o->memory_bytes, 8 * kGiB) << text;
    EXPECT_EQ(o->hbm_gbps, 3350) << text;  // not given: the profile's
    EXPECT_EQ(o->sm_count, 132) << text;
    // The override survives the round trip.
    absl::StatusOr<SimGPUOptions> again = ParseSimGPUOptions(o->ToString());
    ASSERT_TRUE(again.ok()) << o->ToString() << ": " << again.status();
    EXPECT_EQ(*again, *o) << o->ToString();
  }
  EXPECT_EQ(ParseSimGPUOptions("gpu=h100")->ToString(),
            absl::StrCat("gpu=h100,count=1,memory=80GiB,tflops=67,hbm_gbps=3350,pcie_gbps=50,"
                         "launch_us=",
                         GetGpuProfile(GpuModel::kH100).launch_us,
                         ",sm_count=132,preempt_us=100,mode=compute,strict=true,kernels=cuda"));
  // Naming the default profile is naming the defaults.
  EXPECT_EQ(*ParseSimGPUOptions("gpu=v100"), SimGPUOptions());
  EXPECT_EQ(ParseSimGPUOptions("gpu=v100")->ToString(), ParseSimGPUOptions("")->ToString());
}

// SimGPUOptions' defaults are the v100 profile's figures, so the default
// cost model is the one SimGPU always had.
TEST(SimGPUOptionsTest, DefaultsAreTheV100ProfileWithRooflineEfficiencies) {
  const GpuProfile& v100 = GetGpuProfile(GpuModel::kV100);
  const SimGPUOptions o;
  EXPECT_EQ(o.gpu, GpuModel::kV100);
  EXPECT_EQ(o.tflops, v100.tflops);
  EXPECT_EQ(o.hbm_gbps, v100.hbm_gbps);
  EXPECT_EQ(o.pcie_gbps, v100.pcie_gbps);
  EXPECT_EQ(o.launch_latency_us, v100.launch_us);
  EXPECT_EQ(o.sm_count, v100.sm_count);
  EXPECT_EQ(o.memory_bytes, v100.memory_bytes);
  for (const FamilyEfficiency& e : v100.efficiency) {
    EXPECT_EQ(e, FamilyEfficiency{});
  }
  for (GpuModel model : {GpuModel::kV100, GpuModel::kA100, GpuModel::kH100}) {
    EXPECT_EQ(GpuModelFromName(GpuModelName(model)), model);
    for (const FamilyEfficiency& e : GetGpuProfile(model).efficiency) {
      EXPECT_GT(e.compute, 0);
      EXPECT_LE(e.compute, 1);
      EXPECT_GT(e.memory, 0);
      EXPECT_LE(e.memory, 1);
    }
  }
  EXPECT_FALSE(GpuModelFromName("p100").has_value());
}

TEST(SimGPUOptionsTest, ValidateRejectsOutOfRangeFields) {
  SimGPUOptions o;
  EXPECT_TRUE(ValidateSimGPUOptions(o).ok());
  o.memory_bytes = 0;
  EXPECT_EQ(ValidateSimGPUOptions(o).code(), absl::StatusCode::kInvalidArgument);
  o = SimGPUOptions();
  o.tflops = -1;
  EXPECT_NE(ValidateSimGPUOptions(o).message().find("tflops"), absl::string_view::npos);
}

// The kernel set: cuda unless MINITF_SIMGPU says otherwise (this process's
// environment has no MINITF_SIMGPU); an option string without the key
// takes the process's set, and a platform may not ask for the other one.
TEST(SimGPUKernelSetTest, AbsentKeyTakesTheProcessSetAndAPlatformMayNotDiffer) {
  ASSERT_EQ(SimGPUKernelSetOfProcess(), SimGPUOptions::KernelSet::kCuda);
  EXPECT_EQ(ParseSimGPUOptions("count=2")->kernels, SimGPUOptions::KernelSet::kCuda);
  EXPECT_EQ(ParseSimGPUOptions("count=2", SimGPUOptions::KernelSet::kAll)->kernels,
            SimGPUOptions::KernelSet::kAll);
  absl::StatusOr<SimGPUOptions> all = ParseSimGPUOptions("kernels=all");
  ASSERT_TRUE(all.ok()) << all.status();
  absl::StatusOr<std::unique_ptr<SimGPUPlatform>> platform = SimGPUPlatform::Create(*all);
  ASSERT_FALSE(platform.ok());
  EXPECT_EQ(platform.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(platform.status().message().find("kernels=all"), absl::string_view::npos);
  EXPECT_NE(platform.status().message().find("MINITF_SIMGPU"), absl::string_view::npos);
}

}  // namespace
}  // namespace minitf::se
