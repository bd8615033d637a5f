// The vector width of the host loops (platform/cpu_isa.h): the values
// MINITF_MAX_CPU_ISA takes, and the active width never above what the
// processor supports, nor above the cap the environment gives. ctest runs
// this binary again under MINITF_MAX_CPU_ISA=avx2 and =baseline
// (tests/CMakeLists.txt), where the cap is checked too.
#include "platform/cpu_isa.h"

#include <algorithm>
#include <cstdlib>

#include "gtest/gtest.h"

namespace minitf {
namespace {

TEST(CpuIsaTest, ParsesTheLevelsInAnyCase) {
  EXPECT_EQ(ParseCpuIsa("baseline").value(), CpuIsa::kBaseline);
  EXPECT_EQ(ParseCpuIsa("SSE2").value(), CpuIsa::kBaseline);
  EXPECT_EQ(ParseCpuIsa("avx2").value(), CpuIsa::kAvx2);
  EXPECT_EQ(ParseCpuIsa("AVX512").value(), CpuIsa::kAvx512);
}

TEST(CpuIsaTest, RefusesOtherValuesNamingTheVariable) {
  for (const char* bad : {"avx", "avx-512", "avx512f ", "native", "2"}) {
    const absl::StatusOr<CpuIsa> parsed = ParseCpuIsa(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(parsed.status().message().find("MINITF_MAX_CPU_ISA"), std::string::npos);
    EXPECT_NE(parsed.status().message().find(bad), std::string::npos);
  }
}

TEST(CpuIsaTest, NamesRoundTrip) {
  for (CpuIsa isa : {CpuIsa::kBaseline, CpuIsa::kAvx2, CpuIsa::kAvx512}) {
    EXPECT_EQ(ParseCpuIsa(CpuIsaName(isa)).value(), isa);
  }
}

TEST(CpuIsaTest, ActiveIsTheDetectedLevelCappedByTheEnvironment) {
  EXPECT_LE(ActiveCpuIsa(), DetectedCpuIsa());
  const char* cap = std::getenv("MINITF_MAX_CPU_ISA");
  if (cap == nullptr || *cap == '\0') {
    EXPECT_EQ(ActiveCpuIsa(), DetectedCpuIsa());
  } else {
    EXPECT_EQ(ActiveCpuIsa(), std::min(ParseCpuIsa(cap).value(), DetectedCpuIsa())) << cap;
  }
}

#if defined(__x86_64__)
TEST(CpuIsaTest, DetectionAgreesWithTheProcessorsFlags) {
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  EXPECT_EQ(DetectedCpuIsa() >= CpuIsa::kAvx2, avx2);
  if (DetectedCpuIsa() == CpuIsa::kAvx512) {
    EXPECT_TRUE(__builtin_cpu_supports("avx512f"));
  }
}
#endif

}  // namespace
}  // namespace minitf
