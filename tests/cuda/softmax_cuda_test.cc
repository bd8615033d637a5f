// CPU/CUDA parity of Softmax and SparseSoftmaxCrossEntropyWithLogits (int32
// and int64 labels), including large logits and the out-of-range label
// error. Skipped without a GPU.
#include <vector>

#include "gtest/gtest.h"
#include "tests/cuda/cuda_test_device.h"

namespace minitf {
namespace {

using test::ExpectCudaMatchesCpu;
using test::MakeNodeDef;
using test::RandomTensor;
using test::VisibleCudaDevices;

TEST(SoftmaxCudaTest, MatchesCpu) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  const NodeDef def = MakeNodeDef("s", "Softmax", {{"T", DT_FLOAT}});
  ExpectCudaMatchesCpu(def, {RandomTensor(TensorShape({5, 10}), -3, 3, 1)});
  ExpectCudaMatchesCpu(def, {RandomTensor(TensorShape({2, 3, 1000}), -3, 3, 2)});
  ExpectCudaMatchesCpu(def, {RandomTensor(TensorShape({4, 7}), 500, 1000, 3)});  // no overflow
  ExpectCudaMatchesCpu(def, {RandomTensor(TensorShape({7}), -1, 1, 4)});
  ExpectCudaMatchesCpu(def, {RandomTensor(TensorShape({0, 3}))});
}

template <typename Label>
Tensor Labels(std::initializer_list<Label> values) {
  return Tensor::FromVector<Label>(values);
}

TEST(SoftmaxCudaTest, SparseCrossEntropyMatchesCpu) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  const Tensor features = RandomTensor(TensorShape({4, 300}), -4, 4, 5);
  ExpectCudaMatchesCpu(MakeNodeDef("x", "SparseSoftmaxCrossEntropyWithLogits",
                                   {{"T", DT_FLOAT}, {"Tlabels", DT_INT32}}),
                       {features, Labels<int32_t>({0, 299, 17, 17})}, 1e-5, 1e-4);
  ExpectCudaMatchesCpu(MakeNodeDef("x", "SparseSoftmaxCrossEntropyWithLogits",
                                   {{"T", DT_FLOAT}, {"Tlabels", DT_INT64}}),
                       {features, Labels<int64_t>({3, 2, 1, 0})}, 1e-5, 1e-4);
}

TEST(SoftmaxCudaTest, LabelOutOfRangeFailsAsOnCpu) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  ExpectCudaMatchesCpu(MakeNodeDef("x", "SparseSoftmaxCrossEntropyWithLogits",
                                   {{"T", DT_FLOAT}, {"Tlabels", DT_INT32}}),
                       {RandomTensor(TensorShape({2, 3})), Labels<int32_t>({1, 3})});
}

}  // namespace
}  // namespace minitf
