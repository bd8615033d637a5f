// CopyStrided (ops/kernels/strided_copy.h), the array kernels' data mover,
// against an element-by-element reference: contiguous, strided, reversed
// and repeated (stride 0, as Tile and BroadcastTo repeat) innermost runs,
// for every element size the dtypes have (1, 2, 4, 8, 16 bytes) and one
// they do not (3).
#include "ops/kernels/strided_copy.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"

namespace minitf {
namespace {

struct Layout {
  std::vector<int64_t> shape, src_strides, dst_strides;
  int64_t src_offset = 0;
};

// Every index of `layout`'s shape, element by element, as bytes.
std::vector<uint8_t> Reference(size_t esize, const Layout& l, const std::vector<uint8_t>& src,
                               std::vector<uint8_t> dst) {
  std::vector<int64_t> index(l.shape.size(), 0);
  int64_t count = 1;
  for (int64_t n : l.shape) count *= n;
  for (int64_t i = 0; i < count; ++i) {
    int64_t s = l.src_offset, d = 0, rest = i;
    for (int dim = static_cast<int>(l.shape.size()) - 1; dim >= 0; --dim) {
      const int64_t at = rest % l.shape[dim];
      rest /= l.shape[dim];
      s += at * l.src_strides[dim];
      d += at * l.dst_strides[dim];
    }
    std::memcpy(&dst[d * esize], &src[s * esize], esize);
  }
  return dst;
}

void Expect(size_t esize, const Layout& l, int64_t src_elements, int64_t dst_elements) {
  SCOPED_TRACE(testing::Message() << "element size " << esize);
  std::vector<uint8_t> src(src_elements * esize);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 7 + 3);
  std::vector<uint8_t> dst(dst_elements * esize, 0xEE);
  const std::vector<uint8_t> want = Reference(esize, l, src, dst);
  CopyStrided(esize, l.shape, src.data(), l.src_offset, l.src_strides, dst.data(), 0,
              l.dst_strides);
  EXPECT_EQ(dst, want);
}

TEST(CopyStridedTest, RepeatedInnermostElementAsTileOfAColumnMakesIt) {
  // Tile of a [5, 1] column by [1, 9]: the innermost source stride is 0.
  for (size_t esize : {1, 2, 3, 4, 8, 16}) {
    Expect(esize, Layout{{5, 9}, {1, 0}, {9, 1}, 0}, 5, 45);
  }
}

TEST(CopyStridedTest, StridedAndReversedInnermostRuns) {
  for (size_t esize : {1, 2, 3, 4, 8, 16}) {
    // Every third element of each row of a [4, 12] source.
    Expect(esize, Layout{{4, 4}, {12, 3}, {4, 1}, 0}, 48, 16);
    // Each row reversed (a negative stride from the row's end).
    Expect(esize, Layout{{3, 6}, {6, -1}, {6, 1}, 5}, 18, 18);
    // A transpose: the innermost destination stride is the row's length.
    Expect(esize, Layout{{4, 5}, {1, 4}, {5, 1}, 0}, 20, 20);
  }
}

TEST(CopyStridedTest, ContiguousRunsAndASingleElement) {
  for (size_t esize : {1, 4, 16}) {
    Expect(esize, Layout{{3, 4, 5}, {40, 5, 1}, {20, 5, 1}, 2}, 120, 60);
    Expect(esize, Layout{{1, 1}, {7, 1}, {1, 1}, 6}, 7, 1);
  }
}

}  // namespace
}  // namespace minitf
