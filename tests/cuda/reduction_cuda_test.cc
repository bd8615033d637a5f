// CPU/CUDA parity of Sum, Mean and Max over contiguous, split and negative
// axes, with and without keep_dims, int32 and int64 axes, empty reduced
// dimensions, and bad axes. Skipped without a GPU.
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

NodeDef ReductionNode(const std::string& op, bool keep_dims, DataType tidx = DT_INT32) {
  return MakeNodeDef("r", op, {{"T", DT_FLOAT}, {"Tidx", tidx}, {"keep_dims", keep_dims}});
}

TEST(ReductionCudaTest, MatchesCpuOverManyAxisSets) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  const Tensor input = RandomTensor(TensorShape({3, 4, 1, 5, 6}), -2, 2, 7);
  const std::vector<std::vector<int32_t>> axis_sets = {
      {0}, {4}, {1, 3}, {0, 2, 4}, {-1}, {1, 2}, {0, 1, 2, 3, 4}, {}, {2}};
  for (const char* op : {"Sum", "Mean", "Max"}) {
    for (bool keep_dims : {false, true}) {
      for (const std::vector<int32_t>& axes : axis_sets) {
        SCOPED_TRACE(testing::Message() << op << " keep_dims=" << keep_dims << " axes="
                                        << testing::PrintToString(axes));
        const Tensor axes_tensor = Tensor::FromVector<int32_t>(
            absl::Span<const int32_t>(axes), TensorShape({static_cast<int64_t>(axes.size())}));
        ExpectCudaMatchesCpu(ReductionNode(op, keep_dims), {input, axes_tensor}, 1e-5, 1e-5);
      }
    }
  }
}

TEST(ReductionCudaTest, ReducesLongRowsAndColumns) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  const Tensor input = RandomTensor(TensorShape({3, 100000}), -1, 1, 8);
  for (int64_t axis : {0, 1}) {
    for (const char* op : {"Sum", "Mean", "Max"}) {
      SCOPED_TRACE(testing::Message() << op << " axis " << axis);
      ExpectCudaMatchesCpu(ReductionNode(op, false, DT_INT64),
                           {input, Tensor::Scalar<int64_t>(axis)}, 1e-3, 1e-4);
    }
  }
}

TEST(ReductionCudaTest, EmptyReducedDimensionGivesTheIdentity) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  const Tensor input = RandomTensor(TensorShape({3, 0}));
  for (const char* op : {"Sum", "Mean", "Max"}) {
    SCOPED_TRACE(op);
    ExpectCudaMatchesCpu(ReductionNode(op, false), {input, Tensor::Scalar<int32_t>(1)});
  }
}

TEST(ReductionCudaTest, BadAxesFailAsOnCpu) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  const Tensor input = RandomTensor(TensorShape({3, 4}));
  ExpectCudaMatchesCpu(ReductionNode("Sum", false), {input, Tensor::Scalar<int32_t>(2)});
  ExpectCudaMatchesCpu(ReductionNode("Max", false), {input, Tensor::FromVector<int32_t>({1, -1})});
}

}  // namespace
}  // namespace minitf
