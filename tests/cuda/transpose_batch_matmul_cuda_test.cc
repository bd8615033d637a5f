// CPU/CUDA parity of Transpose (ranks 2 to 5, every dtype CUDA keeps in
// device memory (int32 has none: cuda_kernel_registration_test), int32 and
// int64 perms, identities, moves of size-1 dimensions, empty tensors, bad perms)
// and of BatchMatMul (cuBLAS; ranks 2 to 5, every adjoint combination, empty
// operands, and the shape errors, batch dimensions that would broadcast
// included, since the CPU kernel does not broadcast them). Those need a GPU
// and skip without one; the tests of TransposeLayout, the dimension merging
// the CUDA Transpose walks, run everywhere.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "ops/kernels/cuda/transpose_layout.h"
#include "tests/cuda/cuda_test_device.h"

namespace minitf {
namespace {

using gpu::MakeTransposeLayout;
using gpu::TransposeLayout;
using test::ExpectCudaMatchesCpu;
using test::MakeNodeDef;
using test::RandomTensor;
using test::VisibleCudaDevices;

// ---------------------------------------------------------------------------
// TransposeLayout (no GPU needed).

// The offset in x of output element `index`, as the CUDA kernel finds it.
int64_t LayoutOffset(const TransposeLayout& layout, int64_t index) {
  int64_t offset = 0;
  for (int d = layout.rank - 1; d >= 0; --d) {
    offset += (index % layout.out_dims[d]) * layout.in_strides[d];
    index /= layout.out_dims[d];
  }
  return offset;
}

// The offset in x of output element `index` by the definition of Transpose:
// output coordinate i is input coordinate perm[i].
int64_t DefinitionOffset(const std::vector<int64_t>& in_dims, const std::vector<int>& perm,
                         int64_t index) {
  const int rank = static_cast<int>(in_dims.size());
  std::vector<int64_t> in_strides(rank, 1);
  for (int d = rank - 2; d >= 0; --d) in_strides[d] = in_strides[d + 1] * in_dims[d + 1];
  int64_t offset = 0;
  for (int i = rank - 1; i >= 0; --i) {
    const int64_t size = in_dims[perm[i]];
    offset += (index % size) * in_strides[perm[i]];
    index /= size;
  }
  return offset;
}

TransposeLayout LayoutOf(const std::vector<int64_t>& in_dims, const std::vector<int>& perm) {
  return MakeTransposeLayout(static_cast<int>(in_dims.size()), in_dims.data(), perm.data());
}

TEST(TransposeLayoutTest, MergesInputDimensionsThatStayAdjacentInTheOutput) {
  // [A, B, C] -> [C, A, B] is a matrix transpose of [A*B, C].
  const TransposeLayout merged = LayoutOf({2, 3, 4}, {2, 0, 1});
  ASSERT_EQ(merged.rank, 2);
  EXPECT_EQ(merged.out_dims[0], 4);
  EXPECT_EQ(merged.out_dims[1], 6);
  EXPECT_EQ(merged.in_strides[0], 1);
  EXPECT_EQ(merged.in_strides[1], 4);
  // Splitting attention heads, [B, T, H, D] -> [B, H, T, D]: nothing merges.
  const TransposeLayout heads = LayoutOf({2, 3, 4, 5}, {0, 2, 1, 3});
  ASSERT_EQ(heads.rank, 4);
  EXPECT_FALSE(heads.IsCopy());
}

TEST(TransposeLayoutTest, MovingOnlyDimensionsOfSizeOneIsACopy) {
  EXPECT_TRUE(LayoutOf({1, 7}, {1, 0}).IsCopy());
  EXPECT_TRUE(LayoutOf({3, 1, 5}, {0, 2, 1}).IsCopy());
  EXPECT_TRUE(LayoutOf({1, 1, 1}, {2, 0, 1}).IsCopy());
  EXPECT_TRUE(LayoutOf({}, {}).IsCopy());
  // Dimensions of size 1 between two others do not keep them apart.
  EXPECT_FALSE(LayoutOf({3, 1, 5}, {2, 1, 0}).IsCopy());
  EXPECT_EQ(LayoutOf({3, 1, 5}, {2, 1, 0}).rank, 2);
}

TEST(TransposeLayoutTest, EveryOutputElementComesFromWhereTheDefinitionSays) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int64_t> size(1, 3);
  for (int rank = 0; rank <= gpu::kMaxTransposeRank; ++rank) {
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<int64_t> in_dims(rank);
      for (int64_t& d : in_dims) d = size(rng);
      std::vector<int> perm(rank);
      std::iota(perm.begin(), perm.end(), 0);
      std::shuffle(perm.begin(), perm.end(), rng);
      SCOPED_TRACE(absl::StrCat("dims [", absl::StrJoin(in_dims, ","), "] perm {",
                                absl::StrJoin(perm, ","), "}"));
      const TransposeLayout layout = LayoutOf(in_dims, perm);
      int64_t n = 1;
      for (int64_t d : in_dims) n *= d;
      int64_t layout_n = 1;
      for (int d = 0; d < layout.rank; ++d) layout_n *= layout.out_dims[d];
      ASSERT_EQ(layout_n, n);
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(LayoutOffset(layout, i), DefinitionOffset(in_dims, perm, i)) << "element " << i;
      }
      if (layout.IsCopy()) {
        for (int64_t i = 0; i < n; ++i) ASSERT_EQ(DefinitionOffset(in_dims, perm, i), i);
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Transpose on a CUDA device.

NodeDef TransposeNode(DataType t, DataType tperm = DT_INT32) {
  return MakeNodeDef("tr", "Transpose", {{"T", t}, {"Tperm", tperm}});
}

Tensor Perm(const std::vector<int>& values, DataType tperm = DT_INT32) {
  const TensorShape shape({static_cast<int64_t>(values.size())});
  if (tperm == DT_INT64) {
    const std::vector<int64_t> wide(values.begin(), values.end());
    return Tensor::FromVector<int64_t>(absl::Span<const int64_t>(wide), shape);
  }
  const std::vector<int32_t> narrow(values.begin(), values.end());
  return Tensor::FromVector<int32_t>(absl::Span<const int32_t>(narrow), shape);
}

// Distinct values of `dtype` (bool alternates), so a misplaced element shows.
Tensor Distinct(DataType dtype, const TensorShape& shape) {
  Tensor t(dtype, shape);
  MINITF_SWITCH_ALL_TYPES(dtype, T, ADD_FAILURE() << "unsupported dtype", {
    auto flat = t.flat<T>();
    for (int64_t i = 0; i < flat.size(); ++i) {
      flat(i) = std::is_same_v<T, bool> ? static_cast<T>(i % 3 == 0) : static_cast<T>(i + 1);
    }
  });
  return t;
}

void ExpectTransposeMatchesCpu(const TensorShape& shape, const std::vector<int>& perm,
                               DataType dtype = DT_FLOAT, DataType tperm = DT_INT32) {
  SCOPED_TRACE(absl::StrCat(DataTypeString(dtype), " ", shape.DebugString(), " perm {",
                            absl::StrJoin(perm, ","), "}"));
  ExpectCudaMatchesCpu(TransposeNode(dtype, tperm), {Distinct(dtype, shape), Perm(perm, tperm)},
                       0.0, 0.0);
}

TEST(TransposeCudaTest, MatchesCpuForEveryPermOfRanksTwoToFour) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  const std::vector<TensorShape> shapes = {{37, 53}, {5, 7, 9}, {3, 4, 5, 6}};
  for (const TensorShape& shape : shapes) {
    std::vector<int> perm(shape.dims());
    std::iota(perm.begin(), perm.end(), 0);
    do {
      ExpectTransposeMatchesCpu(shape, perm);
    } while (std::next_permutation(perm.begin(), perm.end()));
  }
}

TEST(TransposeCudaTest, MatchesCpuForRankFiveAndAttentionHeadSplits) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  for (const std::vector<int>& perm : std::vector<std::vector<int>>{
           {4, 3, 2, 1, 0}, {0, 2, 1, 4, 3}, {1, 2, 3, 4, 0}, {3, 0, 4, 1, 2}}) {
    ExpectTransposeMatchesCpu({2, 3, 4, 5, 6}, perm);
  }
  // [B, T, H, D] -> [B, H, T, D] and back, as attention splits and merges heads.
  ExpectTransposeMatchesCpu({4, 33, 8, 16}, {0, 2, 1, 3});
  ExpectTransposeMatchesCpu({4, 8, 33, 16}, {0, 2, 1, 3});
  // Large enough for the grid to stride over the elements.
  ExpectTransposeMatchesCpu({512, 1031, 3}, {2, 0, 1});
}

TEST(TransposeCudaTest, MatchesCpuForEveryDtypeAndBothPermTypes) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE, DT_INT64, DT_BOOL}) {
    for (DataType tperm : {DT_INT32, DT_INT64}) {
      ExpectTransposeMatchesCpu({3, 5, 7}, {2, 0, 1}, dtype, tperm);
      ExpectTransposeMatchesCpu({6, 5}, {1, 0}, dtype, tperm);
    }
  }
}

TEST(TransposeCudaTest, IdentitiesSizeOneMovesAndEmptyTensorsMatchCpu) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  ExpectTransposeMatchesCpu({}, {});
  ExpectTransposeMatchesCpu({9}, {0});
  ExpectTransposeMatchesCpu({4, 5, 6}, {0, 1, 2});
  ExpectTransposeMatchesCpu({1, 9}, {1, 0});
  ExpectTransposeMatchesCpu({4, 1, 6}, {0, 2, 1});
  ExpectTransposeMatchesCpu({4, 1, 6}, {2, 1, 0});
  ExpectTransposeMatchesCpu({0, 5, 3}, {2, 0, 1});
  ExpectTransposeMatchesCpu({4, 0}, {1, 0});
}

TEST(TransposeCudaTest, BadPermsFailAsOnCpu) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  ExpectTransposeMatchesCpu({2, 3}, {0, 0});
  ExpectTransposeMatchesCpu({2, 3}, {0, 2});
  ExpectTransposeMatchesCpu({2, 3}, {1, -1});
  ExpectTransposeMatchesCpu({2, 3, 4}, {1, 0});
  ExpectTransposeMatchesCpu({2, 3}, {1, 0, 2}, DT_FLOAT, DT_INT64);
  // Above the highest rank: Unimplemented, unless the perm is an identity.
  const TensorShape rank9({1, 2, 1, 2, 1, 2, 1, 2, 1});
  ExpectTransposeMatchesCpu(rank9, {8, 7, 6, 5, 4, 3, 2, 1, 0});
  ExpectTransposeMatchesCpu(rank9, {0, 1, 2, 3, 4, 5, 6, 7, 8});
}

// ---------------------------------------------------------------------------
// BatchMatMul on a CUDA device.

NodeDef BatchMatMulNode(bool adj_x, bool adj_y) {
  return MakeNodeDef("bmm", "BatchMatMul", {{"T", DT_FLOAT}, {"adj_x", adj_x}, {"adj_y", adj_y}});
}

// x [batch..., M, K] and y [batch..., K, N], each stored transposed where
// its adjoint is taken.
void ExpectBatchMatMulMatchesCpu(const std::vector<int64_t>& batch, int64_t m, int64_t k,
                                 int64_t n, bool adj_x, bool adj_y) {
  SCOPED_TRACE(absl::StrCat("batch [", absl::StrJoin(batch, ","), "] m=", m, " k=", k, " n=", n,
                            adj_x ? " adj_x" : "", adj_y ? " adj_y" : ""));
  std::vector<int64_t> x_dims = batch, y_dims = batch;
  x_dims.push_back(adj_x ? k : m);
  x_dims.push_back(adj_x ? m : k);
  y_dims.push_back(adj_y ? n : k);
  y_dims.push_back(adj_y ? k : n);
  const Tensor x = RandomTensor(TensorShape(absl::Span<const int64_t>(x_dims)), -1, 1, 1);
  const Tensor y = RandomTensor(TensorShape(absl::Span<const int64_t>(y_dims)), -1, 1, 2);
  ExpectCudaMatchesCpu(BatchMatMulNode(adj_x, adj_y), {x, y}, 1e-4, 1e-4);
}

TEST(BatchMatMulCudaTest, MatchesCpuForRanksTwoToFiveAndEveryAdjointCombination) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  const std::vector<std::vector<int64_t>> batches = {{}, {7}, {2, 3}, {2, 1, 3}};
  for (const std::vector<int64_t>& batch : batches) {
    for (bool adj_x : {false, true}) {
      for (bool adj_y : {false, true}) {
        ExpectBatchMatMulMatchesCpu(batch, 13, 29, 17, adj_x, adj_y);
      }
    }
  }
}

TEST(BatchMatMulCudaTest, MatchesCpuForAttentionShapesAndVectors) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  // Scores q k^T and the mix of values, [B, H, T, D].
  ExpectBatchMatMulMatchesCpu({4, 8}, 33, 16, 33, false, true);
  ExpectBatchMatMulMatchesCpu({4, 8}, 33, 33, 16, false, false);
  // Matrix-vector and outer products.
  ExpectBatchMatMulMatchesCpu({5}, 1, 64, 1, false, false);
  ExpectBatchMatMulMatchesCpu({5}, 9, 1, 11, true, true);
}

TEST(BatchMatMulCudaTest, EmptyOperandsMatchCpu) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  ExpectBatchMatMulMatchesCpu({2}, 3, 0, 4, false, false);  // Zeros.
  ExpectBatchMatMulMatchesCpu({2}, 3, 0, 4, true, true);
  ExpectBatchMatMulMatchesCpu({0}, 3, 5, 4, false, false);  // No products.
  ExpectBatchMatMulMatchesCpu({2, 0}, 3, 5, 4, false, true);
  ExpectBatchMatMulMatchesCpu({2}, 0, 5, 4, true, false);
}

TEST(BatchMatMulCudaTest, ShapeErrorsAndBroadcastBatchDimensionsFailAsOnCpu) {
  if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  struct Case {
    TensorShape x, y;
    bool adj_x, adj_y;
  };
  const std::vector<Case> cases = {
      {{3}, {3}, false, false},
      {{2, 3}, {3}, false, false},
      {{2, 3, 4}, {2, 5, 6}, false, false},
      {{2, 3, 4}, {2, 4, 5}, true, false},
      {{2, 3, 4}, {2, 5, 4}, false, false},
      {{2, 5, 3, 4}, {2, 6, 4, 5}, false, false},
      // Batch dimensions that BatchMatMulV2 would broadcast.
      {{2, 3, 4}, {1, 4, 5}, false, false},
      {{1, 3, 4}, {6, 4, 5}, false, true},
      {{2, 3, 4}, {4, 5}, false, false},
      {{7, 2, 3, 4}, {2, 4, 5}, false, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(absl::StrCat(c.x.DebugString(), " x ", c.y.DebugString()));
    ExpectCudaMatchesCpu(BatchMatMulNode(c.adj_x, c.adj_y),
                         {RandomTensor(c.x), RandomTensor(c.y)});
  }
}

}  // namespace
}  // namespace minitf
