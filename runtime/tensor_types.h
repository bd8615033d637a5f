// TTypes<T, N>: the Eigen TensorMap types through which kernels see a Tensor's
// memory (row-major, aligned, as TensorFlow's kernels see theirs).
#ifndef MINITF_RUNTIME_TENSOR_TYPES_H_
#define MINITF_RUNTIME_TENSOR_TYPES_H_

#include "unsupported/Eigen/CXX11/Tensor"

namespace minitf {

template <typename T, int NDIMS = 1, typename IndexType = Eigen::DenseIndex>
struct TTypes {
  using Tensor = Eigen::TensorMap<Eigen::Tensor<T, NDIMS, Eigen::RowMajor, IndexType>,
                                  Eigen::Aligned>;
  using ConstTensor =
      Eigen::TensorMap<Eigen::Tensor<const T, NDIMS, Eigen::RowMajor, IndexType>,
                       Eigen::Aligned>;
  using Scalar = Eigen::TensorMap<
      Eigen::TensorFixedSize<T, Eigen::Sizes<>, Eigen::RowMajor, IndexType>, Eigen::Aligned>;
  using ConstScalar = Eigen::TensorMap<
      Eigen::TensorFixedSize<const T, Eigen::Sizes<>, Eigen::RowMajor, IndexType>,
      Eigen::Aligned>;
  using Flat = Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor, IndexType>,
                                Eigen::Aligned>;
  using ConstFlat = Eigen::TensorMap<Eigen::Tensor<const T, 1, Eigen::RowMajor, IndexType>,
                                     Eigen::Aligned>;
  using Vec = Flat;
  using ConstVec = ConstFlat;
  using Matrix = Eigen::TensorMap<Eigen::Tensor<T, 2, Eigen::RowMajor, IndexType>,
                                  Eigen::Aligned>;
  using ConstMatrix =
      Eigen::TensorMap<Eigen::Tensor<const T, 2, Eigen::RowMajor, IndexType>, Eigen::Aligned>;
};

}  // namespace minitf

#endif  // MINITF_RUNTIME_TENSOR_TYPES_H_
