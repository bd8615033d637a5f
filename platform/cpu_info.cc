#include "platform/cpu_info.h"

#include <sched.h>

#include <algorithm>
#include <thread>

namespace minitf {

int NumSchedulableCPUs() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof(mask), &mask) == 0) {
    const int count = CPU_COUNT(&mask);
    if (count > 0) return count;
  }
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace minitf
