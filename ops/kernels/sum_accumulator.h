// The type a CPU kernel adds many values of T in: double for float, so that
// a sum of 10^8 floats keeps TensorFlow's accuracy (its Eigen reductions add
// in blocks; a float added one at a time stops growing at 2^24), and T
// itself otherwise (double, and integers, which add exactly).
//
//   using Acc = SumAccumulator<T>;
//   out.device(d) = in.template cast<Acc>().sum(axes).template cast<T>();
#ifndef MINITF_OPS_KERNELS_SUM_ACCUMULATOR_H_
#define MINITF_OPS_KERNELS_SUM_ACCUMULATOR_H_

#include <type_traits>

namespace minitf {

template <typename T>
using SumAccumulator = std::conditional_t<std::is_same_v<T, float>, double, T>;

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_SUM_ACCUMULATOR_H_
