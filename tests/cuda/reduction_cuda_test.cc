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

// Long folds into few outputs are cut into chunks folded side by side, then
// their partials folded (reduction_ops_gpu.cu): a whole-tensor sum (BERT's
// global norm), long columns into few outputs, and lengths no chunk count
// divides, so the last chunks are short or empty.
TEST(ReductionCudaTest, FoldsCutIntoChunksMatchCpu) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  struct Case {
    TensorShape shape;
    std::vector<int32_t> axes;
  };
  const std::vector<Case> cases = {
      {TensorShape({1000, 3001}), {0, 1}},  // One row of 3,001,000.
      {TensorShape({2, 1000003}), {1}},     // Two long rows, a prime length.
      {TensorShape({20011, 7}), {0}},       // Seven long columns.
      {TensorShape({4, 4099, 3}), {1}},     // Twelve columns, a prime length.
      {TensorShape({5000, 768}), {0}},      // A bias gradient's shape.
  };
  for (const Case& c : cases) {
    const Tensor input = RandomTensor(c.shape, -1, 1, 11);
    const Tensor axes = Tensor::FromVector<int32_t>(
        absl::Span<const int32_t>(c.axes), TensorShape({static_cast<int64_t>(c.axes.size())}));
    for (const char* op : {"Sum", "Mean", "Max"}) {
      SCOPED_TRACE(testing::Message() << op << " of " << c.shape.DebugString() << " over "
                                      << testing::PrintToString(c.axes));
      ExpectCudaMatchesCpu(ReductionNode(op, false), {input, axes}, 1e-3, 1e-4);
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
