// CPU/CUDA parity of the array kernels that move elements with one strided
// copy (element_mover.h): Pad, PadV2, Slice, StridedSlice, StridedSliceGrad,
// Tile, ConcatV2, Split, SplitV, Pack, Unpack and BroadcastTo, and Select
// and SelectV2, for every
// dtype their CUDA kernels take, with int32 and int64 index arguments in
// host memory, forwarding and empty cases, and argument errors that fail as
// on the CPU. Skipped without a GPU.
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

class ArrayOpsCudaTest : public ::testing::TestWithParam<DataType> {
 protected:
  void SetUp() override {
    if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  }

  DataType T() const { return GetParam(); }

  // Distinct values of the test's dtype.
  Tensor Values(const TensorShape& shape, unsigned seed = 1) const {
    const Tensor base = RandomTensor(shape, -50, 50, seed);
    const float* in = base.data<float>();
    Tensor t(T(), shape);
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      switch (T()) {
        case DT_FLOAT:
          t.data<float>()[i] = in[i];
          break;
        case DT_DOUBLE:
          t.data<double>()[i] = static_cast<double>(in[i]) * 1.25;
          break;
        case DT_INT64:
          t.data<int64_t>()[i] = static_cast<int64_t>(in[i] * 1000);
          break;
        case DT_BOOL:
          t.data<bool>()[i] = in[i] > 0;
          break;
        default:
          ADD_FAILURE() << "no values for " << DataTypeString(T());
      }
    }
    return t;
  }

  // An index vector, int32 or int64.
  static Tensor Index(DataType index, const std::vector<int64_t>& v) {
    if (index == DT_INT64)
      return Tensor::FromVector<int64_t>(v, TensorShape({static_cast<int64_t>(v.size())}));
    std::vector<int32_t> narrow(v.begin(), v.end());
    return Tensor::FromVector<int32_t>(narrow, TensorShape({static_cast<int64_t>(v.size())}));
  }

  NodeDef Node(const std::string& op, AttrValueMap attrs = {}) const {
    attrs["T"] = T();
    return MakeNodeDef("n", op, std::move(attrs));
  }
};

TEST_P(ArrayOpsCudaTest, PadAndPadV2) {
  for (DataType index : {DT_INT32, DT_INT64}) {
    const Tensor paddings =
        index == DT_INT64 ? Tensor::FromVector<int64_t>({1, 0, 0, 2, 1, 1}, TensorShape({3, 2}))
                          : Tensor::FromVector<int32_t>({1, 0, 0, 2, 1, 1}, TensorShape({3, 2}));
    ExpectCudaMatchesCpu(Node("Pad", {{"Tpaddings", index}}), {Values({2, 3, 4}), paddings});
    const Tensor value = Values({}, 7);
    ExpectCudaMatchesCpu(Node("PadV2", {{"Tpaddings", index}}),
                         {Values({2, 3, 4}), paddings, value});
  }
  // No padding forwards the input; an empty input pads to the value alone.
  ExpectCudaMatchesCpu(Node("Pad"), {Values({3, 2}), Tensor::FromVector<int32_t>(
                                                         {0, 0, 0, 0}, TensorShape({2, 2}))});
  ExpectCudaMatchesCpu(Node("Pad"), {Values({0, 2}), Tensor::FromVector<int32_t>(
                                                         {1, 1, 0, 0}, TensorShape({2, 2}))});
  // Negative paddings fail as on the CPU.
  ExpectCudaMatchesCpu(Node("Pad"), {Values({3, 2}), Tensor::FromVector<int32_t>(
                                                         {0, -1, 0, 0}, TensorShape({2, 2}))});
}

TEST_P(ArrayOpsCudaTest, SliceAndStridedSlice) {
  for (DataType index : {DT_INT32, DT_INT64}) {
    ExpectCudaMatchesCpu(Node("Slice", {{"Index", index}}),
                         {Values({4, 5, 3}), Index(index, {1, 0, 1}), Index(index, {2, -1, 2})});
    ExpectCudaMatchesCpu(
        Node("StridedSlice", {{"Index", index}}),
        {Values({6, 5}), Index(index, {1, 4}), Index(index, {5, 0}), Index(index, {2, -2})});
    ExpectCudaMatchesCpu(Node("StridedSliceGrad", {{"Index", index}}),
                         {Index(index, {6, 5}), Index(index, {1, 4}), Index(index, {5, 0}),
                          Index(index, {2, -2}), Values({2, 2})});
  }
  // Out of range fails as on the CPU.
  ExpectCudaMatchesCpu(Node("Slice", {{"Index", DT_INT32}}),
                       {Values({4, 5}), Index(DT_INT32, {3, 0}), Index(DT_INT32, {2, 5})});
}

TEST_P(ArrayOpsCudaTest, TileAndBroadcastTo) {
  ExpectCudaMatchesCpu(Node("Tile"), {Values({2, 3}), Index(DT_INT32, {3, 2})});
  ExpectCudaMatchesCpu(Node("Tile", {{"Tmultiples", DT_INT64}}),
                       {Values({2, 1, 3}), Index(DT_INT64, {1, 4, 0})});
  ExpectCudaMatchesCpu(Node("BroadcastTo"), {Values({3, 1}), Index(DT_INT32, {2, 3, 4})});
}

TEST_P(ArrayOpsCudaTest, ConcatSplitPackUnpack) {
  ExpectCudaMatchesCpu(
      Node("ConcatV2", {{"N", 3}}),
      {Values({2, 3}, 1), Values({2, 4}, 2), Values({2, 0}, 3), Tensor::Scalar<int32_t>(-1)});
  ExpectCudaMatchesCpu(Node("Split", {{"num_split", 3}}),
                       {Tensor::Scalar<int32_t>(1), Values({4, 6})});
  ExpectCudaMatchesCpu(Node("SplitV", {{"num_split", 3}, {"Tlen", DT_INT64}}),
                       {Values({5, 2}), Index(DT_INT64, {1, -1, 2}), Tensor::Scalar<int32_t>(0)});
  ExpectCudaMatchesCpu(Node("Pack", {{"N", 2}, {"axis", 1}}),
                       {Values({2, 3}, 1), Values({2, 3}, 2)});
  ExpectCudaMatchesCpu(Node("Unpack", {{"num", 3}, {"axis", -2}}), {Values({2, 3, 2})});
}

TEST_P(ArrayOpsCudaTest, SelectAndSelectV2) {
  auto cond = [](const TensorShape& shape, unsigned seed) {
    const Tensor r = RandomTensor(shape, -1, 1, seed);
    Tensor c(DT_BOOL, shape);
    for (int64_t i = 0; i < c.NumElements(); ++i) c.data<bool>()[i] = r.data<float>()[i] > 0;
    return c;
  };
  // Select: a condition of t's shape, a scalar, a vector of t's rows.
  ExpectCudaMatchesCpu(Node("Select"), {cond({3, 4}, 1), Values({3, 4}, 2), Values({3, 4}, 3)});
  ExpectCudaMatchesCpu(Node("Select"), {cond({}, 4), Values({3, 4}, 2), Values({3, 4}, 3)});
  ExpectCudaMatchesCpu(Node("Select"), {cond({3}, 5), Values({3, 2, 2}, 2), Values({3, 2, 2}, 3)});
  // Mismatched shapes fail as on the CPU.
  ExpectCudaMatchesCpu(Node("Select"), {cond({2}, 1), Values({3, 4}, 2), Values({3, 4}, 3)});
  // SelectV2 broadcasts all three.
  ExpectCudaMatchesCpu(Node("SelectV2"), {cond({3, 1}, 6), Values({1, 4}, 2), Values({3, 4}, 3)});
  ExpectCudaMatchesCpu(Node("SelectV2"), {cond({2, 3, 4}, 7), Values({4}, 2), Values({}, 3)});
  ExpectCudaMatchesCpu(Node("SelectV2"), {cond({2, 3}, 8), Values({3, 2}, 2), Values({3}, 3)});
}

INSTANTIATE_TEST_SUITE_P(Dtypes, ArrayOpsCudaTest,
                         ::testing::Values(DT_FLOAT, DT_DOUBLE, DT_INT64, DT_BOOL),
                         [](const ::testing::TestParamInfo<DataType>& info) {
                           return DataTypeString(info.param);
                         });

}  // namespace
}  // namespace minitf
