// The CUDA kernel registrations are the CUDA kernel set SimGPU copies
// (ops/kernels/cuda_kernel_set.h), op by op, dtype by dtype and HostMemory
// argument by argument: a CUDA kernel added without its line in the list,
// or a line without a kernel, fails here. Needs no GPU (it reads the
// registry), so it runs wherever the CUDA platform is built.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/kernels/cuda_kernel_set.h"
#include "runtime/kernel_registry.h"

namespace minitf {
namespace {

std::vector<KernelDef> RegisteredFor(const std::string& platform) {
  std::vector<KernelDef> defs;
  for (const std::string& op : KernelRegistry::Global()->Ops()) {
    for (const KernelRegistration* reg : KernelRegistry::Global()->KernelsForOp(op)) {
      if (reg->def.device_type == DEVICE_GPU && reg->def.platform == platform) {
        defs.push_back(reg->def);
      }
    }
  }
  return defs;
}

TEST(CudaKernelSetTest, TheCudaRegistrationsAreTheList) {
  const std::vector<std::string> registered = ExpandKernelDefs(RegisteredFor("CUDA"));
  const std::vector<std::string> listed = ExpandKernelDefs(CudaKernelSet());
  ASSERT_FALSE(registered.empty());
  EXPECT_THAT(registered, ::testing::ContainerEq(listed));
}

TEST(CudaKernelSetTest, SimGpuHasTheSameKernelsAsCuda) {
  // The process's SimGPU set is CUDA's (no MINITF_SIMGPU here): a graph
  // places on SimGPU exactly as on a CUDA GPU.
  EXPECT_THAT(ExpandKernelDefs(RegisteredFor("SimGPU")),
              ::testing::ContainerEq(ExpandKernelDefs(RegisteredFor("CUDA"))));
}

}  // namespace
}  // namespace minitf
