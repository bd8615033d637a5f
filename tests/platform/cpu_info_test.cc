// NumSchedulableCPUs (platform/cpu_info.h): the CPUs of the affinity mask,
// as TensorFlow's port::NumSchedulableCPUs, not every core of the host.
#include "platform/cpu_info.h"

#include <sched.h>

#include <thread>

#include "gtest/gtest.h"

namespace minitf {
namespace {

TEST(CpuInfoTest, CountsTheCallingThreadsAffinityMask) {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  ASSERT_EQ(sched_getaffinity(0, sizeof(mask), &mask), 0);
  EXPECT_EQ(NumSchedulableCPUs(), CPU_COUNT(&mask));
  EXPECT_GE(NumSchedulableCPUs(), 1);
  EXPECT_LE(NumSchedulableCPUs(), static_cast<int>(std::thread::hardware_concurrency()));
}

TEST(CpuInfoTest, AThreadPinnedToOneCpuSeesOne) {
  // As a job started under `taskset -c 0`, or in a cpuset of one core.
  int seen = 0;
  bool pinned = false;
  std::thread pinned_thread([&] {
    cpu_set_t mask;
    CPU_ZERO(&mask);
    if (sched_getaffinity(0, sizeof(mask), &mask) != 0) return;
    int first = 0;
    while (first < CPU_SETSIZE && !CPU_ISSET(first, &mask)) ++first;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    pinned = sched_setaffinity(0, sizeof(one), &one) == 0;
    seen = NumSchedulableCPUs();
  });
  pinned_thread.join();
  ASSERT_TRUE(pinned);
  EXPECT_EQ(seen, 1);
}

}  // namespace
}  // namespace minitf
