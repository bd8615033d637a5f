#include "platform/tensor_float_32.h"

#include <atomic>

#include "platform/env.h"

namespace minitf {
namespace {

std::atomic<bool>& Enabled() {
  static std::atomic<bool> enabled{true};
  return enabled;
}

// Read once, as NVIDIA's libraries read it when they load: the query is on
// the launch path of every convolution and matrix product.
bool OverriddenOff() {
  static const bool off = GetEnvOr("NVIDIA_TF32_OVERRIDE", "") == "0";
  return off;
}

}  // namespace

void EnableTensorFloat32Execution(bool enabled) {
  Enabled().store(enabled, std::memory_order_relaxed);
}

bool TensorFloat32ExecutionEnabled() {
  return !OverriddenOff() && Enabled().load(std::memory_order_relaxed);
}

}  // namespace minitf
