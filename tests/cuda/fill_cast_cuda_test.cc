// CPU/CUDA parity of Fill, ZerosLike, OnesLike and Cast on CUDA GPUs (float,
// double, int64, and bool for Cast): every ordered pair of Cast types,
// forwarding casts, empty tensors, and Fill's argument errors, which match
// the CPU's. Skipped without a GPU.
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/cuda/cuda_test_device.h"

namespace minitf {
namespace {

using test::ExpectCudaMatchesCpu;
using test::MakeNodeDef;
using test::RandomTensor;
using test::VisibleCudaDevices;

class FillCastCudaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  }
};

const std::vector<DataType>& CudaTypes() {
  static const std::vector<DataType> types = {DT_FLOAT, DT_DOUBLE, DT_INT64};
  return types;
}

// Values in [-50, 50) with fractional parts (whole numbers for int64, and
// about a tenth exact zeros, so casts to bool see both outcomes).
Tensor ValuesOf(DataType dtype, const TensorShape& shape, unsigned seed = 1) {
  const Tensor base = RandomTensor(shape, -50, 50, seed);
  const float* in = base.data<float>();
  Tensor t(dtype, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    const float v = i % 10 == 3 ? 0.0f : in[i];
    switch (dtype) {
      case DT_FLOAT: t.data<float>()[i] = v; break;
      case DT_DOUBLE: t.data<double>()[i] = static_cast<double>(v) * 1.25; break;
      case DT_INT64: t.data<int64_t>()[i] = static_cast<int64_t>(v); break;
      case DT_BOOL: t.data<bool>()[i] = v > 0; break;
      default: ADD_FAILURE() << "no values for " << DataTypeString(dtype);
    }
  }
  return t;
}

template <typename T>
Tensor Scalar(DataType dtype, T value) {
  Tensor t(dtype, TensorShape({}));
  t.data<T>()[0] = value;
  return t;
}

template <typename Index>
Tensor Dims(DataType dtype, const std::vector<Index>& dims) {
  Tensor t(dtype, TensorShape({static_cast<int64_t>(dims.size())}));
  for (size_t i = 0; i < dims.size(); ++i) t.data<Index>()[i] = dims[i];
  return t;
}

Tensor ScalarOf(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT: return Scalar<float>(dtype, 2.5f);
    case DT_DOUBLE: return Scalar<double>(dtype, -0.125);
    default: return Scalar<int64_t>(dtype, int64_t{1} << 40);
  }
}

NodeDef FillNode(DataType dtype, DataType index_type) {
  return MakeNodeDef("fill", "Fill", {{"T", dtype}, {"index_type", index_type}});
}

TEST_F(FillCastCudaTest, FillMatchesCpuForEveryTypeAndIndexType) {
  for (DataType dtype : CudaTypes()) {
    SCOPED_TRACE(DataTypeString(dtype));
    ExpectCudaMatchesCpu(FillNode(dtype, DT_INT32),
                         {Dims<int32_t>(DT_INT32, {3, 5, 7}), ScalarOf(dtype)});
    ExpectCudaMatchesCpu(FillNode(dtype, DT_INT64),
                         {Dims<int64_t>(DT_INT64, {1000, 33}), ScalarOf(dtype)});
    ExpectCudaMatchesCpu(FillNode(dtype, DT_INT32), {Dims<int32_t>(DT_INT32, {}), ScalarOf(dtype)});
    ExpectCudaMatchesCpu(FillNode(dtype, DT_INT32),
                         {Dims<int32_t>(DT_INT32, {4, 0}), ScalarOf(dtype)});
  }
}

TEST_F(FillCastCudaTest, FillArgumentErrorsMatchCpu) {
  // dims not a vector, value not a scalar, a negative dimension.
  Tensor matrix_dims(DT_INT32, TensorShape({1, 2}));
  matrix_dims.data<int32_t>()[0] = 2;
  matrix_dims.data<int32_t>()[1] = 3;
  ExpectCudaMatchesCpu(FillNode(DT_FLOAT, DT_INT32), {matrix_dims, ScalarOf(DT_FLOAT)});
  ExpectCudaMatchesCpu(FillNode(DT_FLOAT, DT_INT32),
                       {Dims<int32_t>(DT_INT32, {2}), RandomTensor(TensorShape({2}))});
  ExpectCudaMatchesCpu(FillNode(DT_FLOAT, DT_INT32),
                       {Dims<int32_t>(DT_INT32, {2, -1}), ScalarOf(DT_FLOAT)});
}

TEST_F(FillCastCudaTest, ZerosLikeAndOnesLikeMatchCpu) {
  for (DataType dtype : CudaTypes()) {
    for (const char* op : {"ZerosLike", "OnesLike"}) {
      SCOPED_TRACE(std::string(op) + " " + DataTypeString(dtype));
      const NodeDef def = MakeNodeDef("n", op, {{"T", dtype}});
      ExpectCudaMatchesCpu(def, {ValuesOf(dtype, TensorShape({17, 31}))});
      ExpectCudaMatchesCpu(def, {ValuesOf(dtype, TensorShape({}))});
      ExpectCudaMatchesCpu(def, {ValuesOf(dtype, TensorShape({0, 5}))});
    }
  }
}

TEST_F(FillCastCudaTest, CastMatchesCpuForEveryOrderedPair) {
  const std::vector<DataType> types = {DT_FLOAT, DT_DOUBLE, DT_INT64, DT_BOOL};
  for (DataType src : types) {
    for (DataType dst : types) {
      SCOPED_TRACE(DataTypeString(src) + " to " + DataTypeString(dst));
      const NodeDef def = MakeNodeDef("cast", "Cast", {{"SrcT", src}, {"DstT", dst}});
      // Exact: each CUDA conversion is the same IEEE or integer operation.
      ExpectCudaMatchesCpu(def, {ValuesOf(src, TensorShape({3, 257}))}, 0, 0);
      ExpectCudaMatchesCpu(def, {ValuesOf(src, TensorShape({0}))}, 0, 0);
    }
  }
}

}  // namespace
}  // namespace minitf
