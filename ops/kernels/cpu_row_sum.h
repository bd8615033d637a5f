// The host's sums along the innermost dimension: out[o] = the sum over j of
// in[o, j], for a tensor seen as [outer, folded] (Sum and Mean over the last
// axes, or over every axis as outer 1). Floats add in blocks of eight in
// float and into accumulators in double (SumAccumulator<float>), at the
// width of cpu_vector_loops.h. A row longer than one chunk is cut into
// chunks of a fixed length, which threads add separately and which are then
// added in order, so the result does not depend on how many threads there
// are.
//
//   functor::SumInnerAxis<float>(ctx->eigen_cpu_device(), in, outer, folded, out);
#ifndef MINITF_OPS_KERNELS_CPU_ROW_SUM_H_
#define MINITF_OPS_KERNELS_CPU_ROW_SUM_H_

#include <cstdint>

#ifndef EIGEN_USE_THREADS
#define EIGEN_USE_THREADS
#endif
#include "unsupported/Eigen/CXX11/Tensor"

namespace minitf::functor {

// For T float or double. `in` holds outer * folded values, `out` outer; with
// folded 0 every output is 0.
template <typename T>
void SumInnerAxis(const Eigen::ThreadPoolDevice& d, const T* in, int64_t outer, int64_t folded,
                  T* out);

}  // namespace minitf::functor

#endif  // MINITF_OPS_KERNELS_CPU_ROW_SUM_H_
