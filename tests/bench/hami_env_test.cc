// The limits of a cluster's container environment (bench/harness/hami_env.h),
// in the forms HAMi's device plugin writes them and the mistakes a pod spec
// can make.
#include "bench/harness/jobs/hami_env.h"

#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace minitf::harness {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<ClusterLimits> Read(const std::map<std::string, std::string>& env) {
  return ReadClusterLimits([&env](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

TEST(ClusterLimitsTest, NothingSetLeavesTheJobsOwnLimits) {
  absl::StatusOr<ClusterLimits> limits = Read({});
  ASSERT_TRUE(limits.ok()) << limits.status();
  EXPECT_FALSE(limits->memory_limit_bytes.has_value());
  EXPECT_FALSE(limits->perf_control.has_value());
}

TEST(ClusterLimitsTest, MemoryLimitsInHamisUnits) {
  for (const auto& [value, bytes] : std::map<std::string, int64_t>{
           {"4096m", int64_t{4096} << 20}, {"4096M", int64_t{4096} << 20},
           {"4g", int64_t{4} << 30}, {"512k", int64_t{512} << 10}, {"123456", 123456}}) {
    absl::StatusOr<ClusterLimits> limits = Read({{"CUDA_DEVICE_MEMORY_LIMIT_0", value}});
    ASSERT_TRUE(limits.ok()) << value << ": " << limits.status();
    EXPECT_EQ(limits->memory_limit_bytes, bytes) << value;
  }
}

TEST(ClusterLimitsTest, TheFirstGpusLimitWinsOverTheCommonOne) {
  absl::StatusOr<ClusterLimits> limits =
      Read({{"CUDA_DEVICE_MEMORY_LIMIT", "8g"}, {"CUDA_DEVICE_MEMORY_LIMIT_0", "2g"}});
  ASSERT_TRUE(limits.ok()) << limits.status();
  EXPECT_EQ(limits->memory_limit_bytes, int64_t{2} << 30);
  limits = Read({{"CUDA_DEVICE_MEMORY_LIMIT", "8g"}, {"CUDA_DEVICE_MEMORY_LIMIT_1", "2g"}});
  ASSERT_TRUE(limits.ok()) << limits.status();
  EXPECT_EQ(limits->memory_limit_bytes, int64_t{8} << 30);
}

TEST(ClusterLimitsTest, MalformedMemoryLimitsNameTheVariable) {
  for (const std::string value : {"", "m", "lots", "-1g", "1.5g", "4t", "0", "0m",
                                  "9999999999999999999", "99999999999g",
                                  // HAMi writes no spaces: each of these is refused.
                                  "4 g", " 4g", "4g ", "4 096m", "4\tg", "+4g"}) {
    absl::StatusOr<ClusterLimits> limits = Read({{"CUDA_DEVICE_MEMORY_LIMIT_0", value}});
    ASSERT_FALSE(limits.ok()) << value;
    EXPECT_EQ(limits.status().code(), absl::StatusCode::kInvalidArgument) << value;
    EXPECT_THAT(std::string(limits.status().message()),
                HasSubstr("CUDA_DEVICE_MEMORY_LIMIT_0='"))
        << value;
  }
}

TEST(ClusterLimitsTest, SmLimitIsPerfControlAndZeroIsUnrestricted) {
  for (const auto& [value, perf] :
       std::map<std::string, int>{{"30", 30}, {"1", 1}, {"100", 100}, {"0", 100}}) {
    absl::StatusOr<ClusterLimits> limits = Read({{"CUDA_DEVICE_SM_LIMIT", value}});
    ASSERT_TRUE(limits.ok()) << value << ": " << limits.status();
    EXPECT_EQ(limits->perf_control, perf) << value;
  }
  for (const std::string value : {"101", "-5", "half", "", "50%"}) {
    absl::StatusOr<ClusterLimits> limits = Read({{"CUDA_DEVICE_SM_LIMIT", value}});
    ASSERT_FALSE(limits.ok()) << value;
    EXPECT_THAT(std::string(limits.status().message()),
                HasSubstr("CUDA_DEVICE_SM_LIMIT='" + value + "': wants a percentage"));
  }
}

TEST(ClusterLimitsTest, VisibleDevicesMustLeaveAGpu) {
  absl::StatusOr<ClusterLimits> limits =
      Read({{"NVIDIA_VISIBLE_DEVICES", "GPU-8f3b5c2e-1d4a-4b7e-9c61-2a5d7e9f0b13"}});
  ASSERT_TRUE(limits.ok()) << limits.status();
  EXPECT_EQ(limits->visible_devices, "GPU-8f3b5c2e-1d4a-4b7e-9c61-2a5d7e9f0b13");
  EXPECT_TRUE(Read({{"NVIDIA_VISIBLE_DEVICES", "all"}}).ok());
  for (const std::string value : {"none", "void", "NONE", "", " "}) {
    absl::StatusOr<ClusterLimits> none = Read({{"NVIDIA_VISIBLE_DEVICES", value}});
    ASSERT_FALSE(none.ok()) << value;
    EXPECT_EQ(none.status().code(), absl::StatusCode::kFailedPrecondition) << value;
    EXPECT_THAT(std::string(none.status().message()), HasSubstr("leaves this job no GPU"));
  }
}

}  // namespace
}  // namespace minitf::harness
