// Tensors to and from NumPy arrays, for the Python binding.
//
// A fetched host tensor becomes an array over the tensor's own buffer (no
// copy): the array holds a reference to the buffer, which lives as long as
// the array. A fed array is copied into a new tensor (minitf's kernels may
// forward an input's buffer as an output and write into it; an array the
// caller keeps must not change under it).
#ifndef MINITF_PYTHON_SRC_NUMPY_TENSOR_H_
#define MINITF_PYTHON_SRC_NUMPY_TENSOR_H_

#include <string>

#include "absl/status/statusor.h"
#include "pybind11/numpy.h"
#include "pybind11/pybind11.h"
#include "runtime/tensor.h"

namespace minitf::python {

// The tensor with `array`'s dtype, shape and values. An error names `what`
// (the feed) when the array's dtype has no minitf type (float32, float64,
// int32, int64, bool have) or its buffer cannot be allocated. Needs the GIL.
absl::StatusOr<Tensor> TensorFromArray(const pybind11::handle& array, const std::string& what);

// An array over `tensor`'s buffer; an error for a tensor without one or of a
// type NumPy has no dtype for (resource). Needs the GIL.
absl::StatusOr<pybind11::object> ArrayFromTensor(const Tensor& tensor, const std::string& what);

}  // namespace minitf::python

#endif  // MINITF_PYTHON_SRC_NUMPY_TENSOR_H_
