// The host's sums along a dimension that is not the innermost: out[o, i] =
// the sum over r of in[o, r, i], for a tensor seen as [outer, folded,
// inner] (a column sum is outer 1; BiasAddGrad's NHWC sum over the rows,
// Sum and Mean over any axis but the last). Floats add eight rows at a time
// in float, each such sum into an accumulator in double (SumAccumulator<float>);
// double adds in double.
// Each thread folds a block of columns of one outer index over every row
// (acc[chunk] += the sum of eight rows' chunks: contiguous reads a vector wide,
// at the width of cpu_vector_loops.h), so no thread waits for another and
// the result does not depend on how many threads there are.
//
//   functor::SumMiddleAxis<float>(ctx->eigen_cpu_device(), in, outer, folded, inner, out);
#ifndef MINITF_OPS_KERNELS_CPU_COLUMN_SUM_H_
#define MINITF_OPS_KERNELS_CPU_COLUMN_SUM_H_

#include <cstdint>

#ifndef EIGEN_USE_THREADS
#define EIGEN_USE_THREADS
#endif
#include "unsupported/Eigen/CXX11/Tensor"

namespace minitf::functor {

// For T float or double. `in` holds outer * folded * inner values, `out`
// outer * inner; with folded 0 every output is 0.
template <typename T>
void SumMiddleAxis(const Eigen::ThreadPoolDevice& d, const T* in, int64_t outer, int64_t folded,
                   int64_t inner, T* out);

}  // namespace minitf::functor

#endif  // MINITF_OPS_KERNELS_CPU_COLUMN_SUM_H_
