#include "stream/sm_partition.h"

#include <algorithm>

namespace minitf::se {
namespace {

double Clamped(double fraction) {
  // NaN compares false both ways: it becomes the whole device.
  if (!(fraction > SmPartition::kSmallest)) {
    return fraction != fraction ? 1.0 : SmPartition::kSmallest;
  }
  return std::min(fraction, 1.0);
}

uint32_t NextId() {
  static std::atomic<uint32_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

SmPartition::SmPartition(double fraction) : id_(NextId()), fraction_(Clamped(fraction)) {}

void SmPartition::set_fraction(double fraction) {
  fraction_.store(Clamped(fraction), std::memory_order_relaxed);
}

}  // namespace minitf::se
