#include "ops/kernels/strided_copy.h"

#include <algorithm>
#include <cstring>

namespace minitf {

FoldedCopy FoldCopy(absl::Span<const int64_t> shape, absl::Span<const int64_t> src_strides,
                    absl::Span<const int64_t> dst_strides) {
  FoldedCopy f;
  std::vector<int64_t>& dims = f.dims;
  std::vector<int64_t>& ss = f.src_strides;
  std::vector<int64_t>& ds = f.dst_strides;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0) {
      f.empty = true;
      return f;
    }
    if (shape[d] == 1) continue;
    if (!dims.empty() && ss.back() == src_strides[d] * shape[d] &&
        ds.back() == dst_strides[d] * shape[d]) {
      dims.back() *= shape[d];
      ss.back() = src_strides[d];
      ds.back() = dst_strides[d];
      continue;
    }
    dims.push_back(shape[d]);
    ss.push_back(src_strides[d]);
    ds.push_back(dst_strides[d]);
  }
  return f;
}

namespace {

// One run of `n` elements of N bytes along the innermost dimension, at
// element strides `ss` (0: the same element repeated) and `ds`. The size is
// a constant, so each move is a load and a store, not a call.
template <size_t N>
void CopyRun(const char* in, int64_t ss, char* out, int64_t ds, int64_t n) {
  constexpr auto kSize = static_cast<int64_t>(N);
  if (ss == 0) {
    char element[N];
    std::memcpy(element, in, N);
    for (int64_t k = 0; k < n; ++k) std::memcpy(out + k * ds * kSize, element, N);
    return;
  }
  for (int64_t k = 0; k < n; ++k) std::memcpy(out + k * ds * kSize, in + k * ss * kSize, N);
}

void CopyRun(size_t element_size, const char* in, int64_t ss, char* out, int64_t ds,
             int64_t n) {
  switch (element_size) {
    case 1: return CopyRun<1>(in, ss, out, ds, n);
    case 2: return CopyRun<2>(in, ss, out, ds, n);
    case 4: return CopyRun<4>(in, ss, out, ds, n);
    case 8: return CopyRun<8>(in, ss, out, ds, n);
    case 16: return CopyRun<16>(in, ss, out, ds, n);
    default:
      for (int64_t k = 0; k < n; ++k) {
        std::memcpy(out + k * ds * static_cast<int64_t>(element_size),
                    in + k * ss * static_cast<int64_t>(element_size), element_size);
      }
  }
}

}  // namespace

void CopyStrided(size_t element_size, absl::Span<const int64_t> shape, const void* src,
                 int64_t src_offset, absl::Span<const int64_t> src_strides, void* dst,
                 int64_t dst_offset, absl::Span<const int64_t> dst_strides) {
  // A plain block is one memcpy.
  const FoldedCopy folded = FoldCopy(shape, src_strides, dst_strides);
  if (folded.empty) return;
  const std::vector<int64_t>& dims = folded.dims;
  const std::vector<int64_t>& ss = folded.src_strides;
  const std::vector<int64_t>& ds = folded.dst_strides;
  const auto* in = static_cast<const char*>(src);
  auto* out = static_cast<char*>(dst);
  const auto esize = static_cast<int64_t>(element_size);
  if (dims.empty()) {
    std::memcpy(out + dst_offset * esize, in + src_offset * esize, element_size);
    return;
  }
  const int rank = static_cast<int>(dims.size());
  const bool inner_contiguous = ss[rank - 1] == 1 && ds[rank - 1] == 1;
  const int64_t inner = dims[rank - 1];
  std::vector<int64_t> index(rank, 0);
  int64_t s = src_offset, d = dst_offset;
  while (true) {
    if (inner_contiguous) {
      std::memcpy(out + d * esize, in + s * esize, static_cast<size_t>(inner * esize));
    } else {
      CopyRun(element_size, in + s * esize, ss[rank - 1], out + d * esize, ds[rank - 1], inner);
    }
    // Advance the outer dimensions like an odometer.
    int dim = rank - 2;
    for (; dim >= 0; --dim) {
      s += ss[dim];
      d += ds[dim];
      if (++index[dim] < dims[dim]) break;
      s -= ss[dim] * dims[dim];
      d -= ds[dim] * dims[dim];
      index[dim] = 0;
    }
    if (dim < 0) return;
  }
}

std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int d = static_cast<int>(dims.size()) - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * dims[d + 1];
  }
  return strides;
}

void FillWithScalar(const Tensor& value, Tensor* t) {
  const size_t esize = DataTypeSize(t->dtype());
  const int64_t n = t->NumElements();
  if (n == 0) return;
  auto* out = static_cast<char*>(t->raw_data());
  std::memcpy(out, value.raw_data(), esize);
  // Double the filled prefix until the buffer is full.
  int64_t filled = 1;
  while (filled < n) {
    const int64_t chunk = std::min(filled, n - filled);
    std::memcpy(out + filled * esize, out, static_cast<size_t>(chunk) * esize);
    filled += chunk;
  }
}

}  // namespace minitf
