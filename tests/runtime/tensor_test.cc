#include "runtime/tensor.h"

#include "gtest/gtest.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf {
namespace {

TEST(TensorTest, ShapeAndTypedViews) {
  Tensor t(DT_FLOAT, TensorShape({2, 3}));
  EXPECT_EQ(t.dtype(), DT_FLOAT);
  EXPECT_EQ(t.NumElements(), 6);
  EXPECT_EQ(t.TotalBytes(), 24u);
  auto m = t.matrix<float>();
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) m(i, j) = static_cast<float>(i * 10 + j);
  EXPECT_EQ(t.flat<float>()(4), 11.0f);
  EXPECT_EQ((t.tensor<float, 2>()(1, 2)), 12.0f);
  EXPECT_EQ(t.DebugString(), "Tensor<type: float shape: [2,3] values: [[0 1 2][10 11 12]]>");
}

TEST(TensorTest, CopiesShareTheBufferAndFreeItOnce) {
  const int64_t before = cpu_allocator()->GetStats()->bytes_in_use;
  {
    Tensor a(DT_INT32, TensorShape({16}));
    Tensor b = a;
    EXPECT_TRUE(a.SharesBufferWith(b));
    EXPECT_FALSE(a.RefCountIsOne());
    Tensor c;
    ASSERT_TRUE(c.CopyFrom(a, TensorShape({4, 4})));
    EXPECT_EQ(c.dims(), 2);
    EXPECT_FALSE(c.CopyFrom(a, TensorShape({5})));
    EXPECT_EQ(cpu_allocator()->GetStats()->bytes_in_use, before + 64);
  }
  EXPECT_EQ(cpu_allocator()->GetStats()->bytes_in_use, before);
}

TEST(TensorTest, AllocateReportsExhaustion) {
  auto t = Tensor::Allocate(cpu_allocator(), DT_FLOAT, TensorShape({int64_t{1} << 60}));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(t.status().message().find("OOM"), absl::string_view::npos);
}

TEST(TensorTest, PointersAreAligned) {
  for (int n : {1, 3, 17, 1000}) {
    Tensor t(DT_DOUBLE, TensorShape({n}));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % Allocator::kAllocatorAlignment, 0u);
  }
}

TEST(TensorTest, ScalarAndVectorHelpers) {
  Tensor s = Tensor::Scalar<double>(2.5);
  EXPECT_EQ(s.dims(), 0);
  EXPECT_EQ(s.scalar<double>()(), 2.5);
  Tensor v = Tensor::FromVector<int64_t>({1, 2, 3});
  EXPECT_EQ(v.shape(), TensorShape({3}));
  test::ExpectTensorEqual(v.DeepCopy(), v);
  EXPECT_FALSE(v.DeepCopy().SharesBufferWith(v));
}

TEST(TensorShapeTest, BuildRejectsNegativeDims) {
  EXPECT_FALSE(TensorShape::Build({2, -1}).ok());
  EXPECT_TRUE(TensorShape::Build({2, 0}).ok());
}

TEST(PartialTensorShapeTest, MergeAndCompatibility) {
  PartialTensorShape a({2, -1});
  PartialTensorShape b({-1, 3});
  auto m = a.MergeWith(b);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->DebugString(), "[2,3]");
  EXPECT_FALSE(a.IsCompatibleWith(PartialTensorShape({3, 3})));
  EXPECT_TRUE(PartialTensorShape().IsCompatibleWith(a));
}

}  // namespace
}  // namespace minitf
