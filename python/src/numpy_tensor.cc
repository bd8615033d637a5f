#include "python/src/numpy_tensor.h"

#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/tensor_shape.h"
#include "runtime/types.h"

namespace minitf::python {
namespace py = pybind11;

namespace {

absl::StatusOr<DataType> DataTypeOf(const py::dtype& dtype, const std::string& what) {
  const char kind = dtype.kind();
  const size_t size = static_cast<size_t>(dtype.itemsize());
  if (kind == 'f' && size == 4) return DT_FLOAT;
  if (kind == 'f' && size == 8) return DT_DOUBLE;
  if (kind == 'i' && size == 4) return DT_INT32;
  if (kind == 'i' && size == 8) return DT_INT64;
  if (kind == 'b' && size == 1) return DT_BOOL;
  return absl::InvalidArgumentError(
      absl::StrCat(what, ": NumPy dtype ", py::str(py::handle(dtype)).cast<std::string>(),
                   " has no minitf type (float32, float64, int32, int64 and bool have)"));
}

absl::StatusOr<py::dtype> DtypeOf(DataType type, const std::string& what) {
  switch (RemoveRefType(type)) {
    case DT_FLOAT:
      return py::dtype::of<float>();
    case DT_DOUBLE:
      return py::dtype::of<double>();
    case DT_INT32:
      return py::dtype::of<int32_t>();
    case DT_INT64:
      return py::dtype::of<int64_t>();
    case DT_BOOL:
      return py::dtype::of<bool>();
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": a tensor of type ", DataTypeString(type), " has no NumPy dtype"));
  }
}

}  // namespace

absl::StatusOr<Tensor> TensorFromArray(const py::handle& value, const std::string& what) {
  // Python scalars and lists become arrays as NumPy makes them (a Python
  // float is float64, as tf.compat.v1's feed of a float to a float64
  // placeholder; a float32 placeholder wants float32).
  py::array array = py::array::ensure(value, py::array::c_style);
  if (!array) {
    PyErr_Clear();
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": the fed value is not convertible to a NumPy array"));
  }
  absl::StatusOr<DataType> type = DataTypeOf(array.dtype(), what);
  if (!type.ok()) return type.status();
  std::vector<int64_t> dims(array.shape(), array.shape() + array.ndim());
  Tensor tensor(*type, TensorShape(dims));
  if (!tensor.IsInitialized()) {
    return absl::ResourceExhaustedError(
        absl::StrCat(what, ": could not allocate ", array.nbytes(), " bytes for the fed array"));
  }
  if (array.nbytes() > 0) std::memcpy(tensor.raw_data(), array.data(), array.nbytes());
  return tensor;
}

absl::StatusOr<py::object> ArrayFromTensor(const Tensor& tensor, const std::string& what) {
  absl::StatusOr<py::dtype> dtype = DtypeOf(tensor.dtype(), what);
  if (!dtype.ok()) return dtype.status();
  if (!tensor.IsInitialized()) {
    return absl::InternalError(absl::StrCat(what, ": the fetched tensor has no value"));
  }
  std::vector<py::ssize_t> shape(tensor.dims());
  for (int d = 0; d < tensor.dims(); ++d) shape[d] = tensor.dim_size(d);
  if (tensor.NumElements() == 0) return py::array(*dtype, shape);
  // The capsule owns a Tensor sharing the buffer: the array keeps it alive.
  auto* owner = new Tensor(tensor);
  py::capsule base(owner, [](void* p) { delete static_cast<Tensor*>(p); });
  return py::array(*dtype, shape, {}, owner->raw_data(), base);
}

}  // namespace minitf::python
