#include "runtime/tensor.h"

#include <memory>

#include "allocator/bfc_allocator.h"
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
    // What the allocator set aside for the 64 bytes: a 256-byte chunk when
    // cpu_allocator() is a BFC, whose statistics count chunks.
    const auto taken = static_cast<int64_t>(cpu_allocator()->AllocatedSize(a.raw_data()));
    EXPECT_GE(taken, 64);
    EXPECT_EQ(cpu_allocator()->GetStats()->bytes_in_use, before + taken);
  }
  EXPECT_EQ(cpu_allocator()->GetStats()->bytes_in_use, before);
}

TEST(TensorTest, AllocateReportsExhaustion) {
  auto t = Tensor::Allocate(cpu_allocator(), DT_FLOAT, TensorShape({int64_t{1} << 60}));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(t.status().message().find("OOM"), absl::string_view::npos);
}

// 2^62 doubles are 2^65 bytes: the byte count itself overflows size_t.
TEST(TensorTest, AllocateReportsAByteCountThatOverflowsAsExhaustion) {
  auto t = Tensor::Allocate(cpu_allocator(), DT_DOUBLE, TensorShape({int64_t{1} << 62}));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(t.status().message().find("shape[4611686018427387904] and type double"),
            absl::string_view::npos)
      << t.status();
}

TEST(TensorTest, AllocateNamesTheShapeTypeAndAllocator) {
  auto t = Tensor::Allocate(cpu_allocator(), DT_FLOAT, TensorShape({1024, int64_t{1} << 40}));
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("OOM when allocating tensor with shape[1024,1099511627776] "
                                      "and type float"),
            absl::string_view::npos)
      << t.status();
  EXPECT_NE(t.status().message().find(cpu_allocator()->Name()), absl::string_view::npos);
}

// As TensorFlow's: the constructor does not abort when memory runs out; the
// tensor has its type and shape but no buffer, and says so.
TEST(TensorTest, ConstructorLeavesTheTensorUninitializedWhenMemoryRunsOut) {
  Tensor t(DT_FLOAT, TensorShape({int64_t{1} << 50}));
  EXPECT_FALSE(t.IsInitialized());
  EXPECT_EQ(t.dtype(), DT_FLOAT);
  EXPECT_EQ(t.shape(), TensorShape({int64_t{1} << 50}));
  EXPECT_EQ(t.AllocatedBytes(), 0u);
  EXPECT_EQ(t.SummarizeValue(), "<uninitialized>");
  EXPECT_FALSE(t.DeepCopy().IsInitialized());
  Tensor empty(DT_FLOAT, TensorShape({0, int64_t{1} << 50}));
  EXPECT_TRUE(empty.IsInitialized());
}

// As TensorFlow's: an empty tensor asks its allocator for nothing (a BFC
// answers a zero-byte request with nullptr) and is a valid tensor anyway.
TEST(TensorTest, AnEmptyTensorTakesNothingFromABFCAndIsInitialized) {
  BFCAllocator bfc(std::make_unique<HostSubAllocator>(), size_t{1} << 20,
                   {.allow_growth = true, .name = "empty_tensor_bfc"});
  auto t = Tensor::Allocate(&bfc, DT_FLOAT, TensorShape({0, 3}));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_TRUE(t->IsInitialized());
  EXPECT_EQ(t->NumElements(), 0);
  EXPECT_EQ(t->TotalBytes(), 0u);
  EXPECT_EQ(t->AllocatedBytes(), 0u);
  EXPECT_EQ(t->flat<float>().size(), 0);
  EXPECT_EQ(t->DebugString(), "Tensor<type: float shape: [0,3] values: []>");
  const Tensor copy = t->DeepCopy();
  EXPECT_TRUE(copy.IsInitialized());
  EXPECT_EQ(copy.shape(), TensorShape({0, 3}));
  const AllocatorStats s = *bfc.GetStats();
  EXPECT_EQ(s.num_allocs, 0);
  EXPECT_EQ(s.bytes_reserved, 0);
  // And the BFC itself gives nullptr for zero bytes, which is not an OOM.
  EXPECT_EQ(bfc.AllocateRaw(Allocator::kAllocatorAlignment, 0), nullptr);
}

TEST(TensorDeathTest, ReadingTheElementsOfAnUnallocatedTensorAbortsWithAMessage) {
  Tensor t(DT_FLOAT, TensorShape({int64_t{1} << 50}));
  EXPECT_DEATH(t.flat<float>(), "has no buffer");
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

TEST(TensorShapeTest, BuildRejectsAnElementCountThatOverflows) {
  const int64_t big = int64_t{1} << 32;
  auto s = TensorShape::Build({big, big});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find("[4294967296,4294967296]"), absl::string_view::npos);
  EXPECT_FALSE(TensorShape::Build({3, int64_t{1} << 62}).ok());
  auto fits = TensorShape::Build({big, (int64_t{1} << 31) - 1});
  ASSERT_TRUE(fits.ok());
  EXPECT_EQ(fits->num_elements(), big * ((int64_t{1} << 31) - 1));
}

TEST(TensorShapeTest, AddDimWithStatusRejectsOverflowAndNegativeSizesAndChangesNothing) {
  TensorShape s({int64_t{1} << 40});
  absl::Status status = s.AddDimWithStatus(int64_t{1} << 30);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s, TensorShape({int64_t{1} << 40}));
  EXPECT_EQ(s.AddDimWithStatus(-2).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(s.AddDimWithStatus(1 << 20).ok());
  EXPECT_EQ(s.num_elements(), int64_t{1} << 60);
}

TEST(TensorShapeDeathTest, ConstructingAnOverflowingShapeAbortsInsteadOfWrapping) {
  EXPECT_DEATH((void)TensorShape({int64_t{1} << 32, int64_t{1} << 32}).dims(), "2\\^63-1 elements");
}

TEST(TensorShapeTest, MultiplyWithoutOverflow) {
  EXPECT_EQ(MultiplyWithoutOverflow(3, 4), 12);
  EXPECT_EQ(MultiplyWithoutOverflow(0, int64_t{1} << 62), 0);
  EXPECT_EQ(MultiplyWithoutOverflow(int64_t{1} << 32, int64_t{1} << 31), -1);
  EXPECT_EQ(MultiplyWithoutOverflow(-1, 2), -1);
}

TEST(PartialTensorShapeTest, ElementCountThatOverflowsIsUnknown) {
  EXPECT_EQ(PartialTensorShape({int64_t{1} << 32, int64_t{1} << 32}).num_elements(), -1);
  EXPECT_EQ(PartialTensorShape({int64_t{1} << 31, 4}).num_elements(), int64_t{1} << 33);
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
