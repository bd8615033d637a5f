// Launchers of the random ops' CUDA kernel (random_ops_gpu.cu): an output
// of n values of a distribution (random_distributions.h), drawn from the
// generator `start` with the layout the CPU uses (FillGroup), so a seeded op
// gives the same numbers on every device. Each enqueues on `stream` and
// returns the launch's error.
//
//   cudaError_t e = LaunchRandom(stream, random::Normal<float>(), start, n, out);
#ifndef MINITF_OPS_KERNELS_RANDOM_OPS_GPU_H_
#define MINITF_OPS_KERNELS_RANDOM_OPS_GPU_H_

#include <cuda_runtime_api.h>

#include <cstdint>

#include "ops/kernels/philox_random.h"
#include "ops/kernels/random_distributions.h"

namespace minitf::gpu {

// Instantiated (random_ops_gpu.cu) for Uniform, Normal and TruncatedNormal of
// float and double, and UniformInt<int64_t>.
template <typename Dist, typename T>
cudaError_t LaunchRandom(cudaStream_t stream, const Dist& dist, PhiloxRandom start, int64_t n,
                         T* out);

}  // namespace minitf::gpu

#endif  // MINITF_OPS_KERNELS_RANDOM_OPS_GPU_H_
