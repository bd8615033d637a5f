#include "ops/kernels/conv_functors.h"

#include <algorithm>
#include <functional>
#include <type_traits>

#include "Eigen/Core"
#include "ops/kernels/cpu_gemm.h"
#include "ops/kernels/cpu_vector_loops.h"

namespace minitf::functor {
namespace {

template <typename T>
using RowMajorMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using MatrixMap = Eigen::Map<RowMajorMatrix<T>>;
template <typename T>
using ConstMatrixMap = Eigen::Map<const RowMajorMatrix<T>>;

// A tile of the patch matrix holds about this many elements (2 MiB of
// floats). OpenBLAS packs both operands again on every call, the filter
// included: a product of a few hundred patch rows spends as long packing as
// multiplying (at 2^16 elements, 256 KiB, packing took 18 % of ResNet-50's
// step), one of a few thousand rows amortizes it.
constexpr int64_t kTileTargetElements = int64_t{1} << 19;
constexpr int64_t kMinTileRows = 8;
// A per-worker cost estimate high enough that Eigen gives every worker a task.
constexpr double kWorkerCycles = 1e9;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Rows of the patch matrix one worker holds at a time.
int64_t TileRows(int64_t patch_size, int64_t positions) {
  const int64_t rows =
      std::max(kMinTileRows, kTileTargetElements / std::max<int64_t>(1, patch_size));
  return std::max<int64_t>(1, std::min(rows, positions));
}

int64_t NumWorkers(const Eigen::ThreadPoolDevice& d, int64_t units) {
  return std::max<int64_t>(1, std::min<int64_t>(units, d.numThreads()));
}

// Runs fn(worker, first_unit, last_unit) for every worker in [0, workers),
// the workers sharing [0, units) in contiguous, nearly equal ranges, on d's
// pool; returns when all are done. Each worker index runs exactly once, so a
// worker may own a slice of the workspace.
void ForEachWorker(const Eigen::ThreadPoolDevice& d, int64_t workers, int64_t units,
                   const std::function<void(int64_t, int64_t, int64_t)>& fn) {
  auto run = [&](Eigen::Index first, Eigen::Index last) {
    for (Eigen::Index w = first; w < last; ++w) {
      fn(w, units * w / workers, units * (w + 1) / workers);
    }
  };
  if (workers == 1) {
    run(0, 1);
    return;
  }
  d.parallelFor(workers, Eigen::TensorOpCost(0, 0, kWorkerCycles), run);
}

// Visits the filter taps (fh, fw) of output position `position` (numbered
// over batch, out_rows, out_cols) in patch order, calling
// fn(patch_offset, input_offset): the offset of the tap's in_depth elements
// in a patch row, and in the input, or -1 when the tap lies in the padding.
template <typename Fn>
void ForEachTap(const Conv2DGeometry& g, int64_t position, Fn&& fn) {
  const int64_t out_col = position % g.out_cols;
  const int64_t out_row = (position / g.out_cols) % g.out_rows;
  const int64_t image = position / (g.out_cols * g.out_rows);
  const int64_t top = out_row * g.stride_rows - g.pad_top;
  const int64_t left = out_col * g.stride_cols - g.pad_left;
  int64_t patch_offset = 0;
  for (int64_t fh = 0; fh < g.filter_rows; ++fh) {
    const int64_t row = top + fh * g.dilation_rows;
    const bool row_inside = row >= 0 && row < g.in_rows;
    for (int64_t fw = 0; fw < g.filter_cols; ++fw, patch_offset += g.in_depth) {
      const int64_t col = left + fw * g.dilation_cols;
      const bool inside = row_inside && col >= 0 && col < g.in_cols;
      fn(patch_offset, inside ? ((image * g.in_rows + row) * g.in_cols + col) * g.in_depth : -1);
    }
  }
}

// Rows [0, count) of `patches` = the receptive fields of positions
// [first, first + count), zeros for the padding.
template <typename T>
void Im2Col(const Conv2DGeometry& g, const T* input, int64_t first, int64_t count, T* patches) {
  const int64_t depth = g.in_depth;
  for (int64_t i = 0; i < count; ++i) {
    T* row = patches + i * g.patch_size();
    ForEachTap(g, first + i, [&](int64_t patch_offset, int64_t input_offset) {
      if (input_offset < 0) {
        std::fill_n(row + patch_offset, depth, T(0));
      } else {
        std::copy_n(input + input_offset, depth, row + patch_offset);
      }
    });
  }
}

// The adjoint of Im2Col: adds each patch row's elements into the input
// elements they were copied from.
// Floats add at the machine's vector width (cpu_vector_loops.h).
template <typename T>
void Col2ImAdd(const Conv2DGeometry& g, const T* patches, int64_t first, int64_t count, T* input) {
  const int64_t depth = g.in_depth;
  const VectorLoops& loops = ActiveVectorLoops();
  for (int64_t i = 0; i < count; ++i) {
    const T* row = patches + i * g.patch_size();
    ForEachTap(g, first + i, [&](int64_t patch_offset, int64_t input_offset) {
      if (input_offset < 0) return;
      if constexpr (std::is_same_v<T, float>) {
        loops.accumulate_float(row + patch_offset, input + input_offset, depth);
      } else {
        for (int64_t k = 0; k < depth; ++k) input[input_offset + k] += row[patch_offset + k];
      }
    });
  }
}

int64_t Positions(const Conv2DGeometry& g) { return g.batch * g.out_rows * g.out_cols; }

// A 1x1 filter at stride 1 without padding (most of ResNet-50's
// convolutions): the patch matrix is the input itself, seen as [positions,
// in_depth], so each direction is one matrix product over the pool with no
// im2col or col2im copy and no workspace.
bool IsPointwise(const Conv2DGeometry& g) {
  return g.filter_rows == 1 && g.filter_cols == 1 && g.stride_rows == 1 && g.stride_cols == 1 &&
         g.pad_top == 0 && g.pad_left == 0 && g.out_rows == g.in_rows && g.out_cols == g.in_cols;
}

}  // namespace

// ---- Forward: output tile = patches tile x filter ----

template <typename T>
int64_t Conv2DFunctor<T>::WorkspaceElements(const Eigen::ThreadPoolDevice& d,
                                            const Conv2DGeometry& g) {
  const int64_t positions = Positions(g);
  if (IsPointwise(g) || positions == 0 || g.patch_size() == 0 || g.out_depth == 0) return 0;
  const int64_t tile = TileRows(g.patch_size(), positions);
  return NumWorkers(d, CeilDiv(positions, tile)) * tile * g.patch_size();
}

template <typename T>
void Conv2DFunctor<T>::operator()(const Eigen::ThreadPoolDevice& d, const Conv2DGeometry& g,
                                  const T* input, const T* filter, T* output, T* workspace) const {
  if (g.output_elements() == 0) return;
  const int64_t patch = g.patch_size();
  if (patch == 0) {
    std::fill_n(output, g.output_elements(), T(0));
    return;
  }
  const int64_t positions = Positions(g);
  if (IsPointwise(g)) {
    // output = input x filter
    Gemm<T>(&d, PackedGemm<T>(false, false, positions, g.out_depth, g.in_depth, input, filter,
                              output));
    return;
  }
  const int64_t tile = TileRows(patch, positions);
  const int64_t tiles = CeilDiv(positions, tile);
  ForEachWorker(d, NumWorkers(d, tiles), tiles, [&](int64_t worker, int64_t first, int64_t last) {
    T* patches = workspace + worker * tile * patch;
    for (int64_t t = first; t < last; ++t) {
      const int64_t begin = t * tile;
      const int64_t rows = std::min(tile, positions - begin);
      Im2Col(g, input, begin, rows, patches);
      // output rows = patches x filter
      Gemm<T>(nullptr, PackedGemm<T>(false, false, rows, g.out_depth, patch, patches, filter,
                                     output + begin * g.out_depth));
    }
  });
}

// ---- Input gradient: col2im(out_backprop x filter^T), one image per unit ----

template <typename T>
int64_t Conv2DBackpropInputFunctor<T>::WorkspaceElements(const Eigen::ThreadPoolDevice& d,
                                                         const Conv2DGeometry& g) {
  const int64_t image_positions = g.out_rows * g.out_cols;
  if (IsPointwise(g) || g.batch == 0 || image_positions == 0 || g.patch_size() == 0 ||
      g.out_depth == 0) {
    return 0;
  }
  return NumWorkers(d, g.batch) * TileRows(g.patch_size(), image_positions) * g.patch_size();
}

template <typename T>
void Conv2DBackpropInputFunctor<T>::operator()(const Eigen::ThreadPoolDevice& d,
                                               const Conv2DGeometry& g, const T* filter,
                                               const T* out_backprop, T* in_backprop,
                                               T* workspace) const {
  if (g.input_elements() == 0) return;
  const int64_t image_positions = g.out_rows * g.out_cols;
  if (image_positions == 0 || g.out_depth == 0) {
    std::fill_n(in_backprop, g.input_elements(), T(0));
    return;
  }
  if (IsPointwise(g)) {
    // in_backprop = out_backprop x filter^T
    Gemm<T>(&d, PackedGemm<T>(false, true, Positions(g), g.in_depth, g.out_depth, out_backprop,
                              filter, in_backprop));
    return;
  }
  const int64_t patch = g.patch_size();
  const int64_t image_elements = g.in_rows * g.in_cols * g.in_depth;
  const int64_t tile = TileRows(patch, image_positions);
  // Patches of one image only scatter into that image, so workers that own
  // whole images never write the same element.
  ForEachWorker(d, NumWorkers(d, g.batch), g.batch,
                [&](int64_t worker, int64_t first_image, int64_t last_image) {
                  T* patches = workspace + worker * tile * patch;
                  std::fill_n(in_backprop + first_image * image_elements,
                              (last_image - first_image) * image_elements, T(0));
                  for (int64_t b = first_image; b < last_image; ++b) {
                    for (int64_t p = 0; p < image_positions; p += tile) {
                      const int64_t begin = b * image_positions + p;
                      const int64_t rows = std::min(tile, image_positions - p);
                      // patches = out_backprop rows x filter^T
                      Gemm<T>(nullptr,
                              PackedGemm<T>(false, true, rows, patch, g.out_depth,
                                            out_backprop + begin * g.out_depth, filter, patches));
                      Col2ImAdd(g, patches, begin, rows, in_backprop);
                    }
                  }
                });
}

// ---- Filter gradient: sum over tiles of patches^T x out_backprop ----

template <typename T>
int64_t Conv2DBackpropFilterFunctor<T>::WorkspaceElements(const Eigen::ThreadPoolDevice& d,
                                                          const Conv2DGeometry& g) {
  const int64_t positions = Positions(g);
  if (IsPointwise(g) || positions == 0 || g.filter_elements() == 0) return 0;
  const int64_t tile = TileRows(g.patch_size(), positions);
  const int64_t workers = NumWorkers(d, CeilDiv(positions, tile));
  // Per worker: one tile of patches and one partial filter gradient.
  return workers * (tile * g.patch_size() + g.filter_elements());
}

template <typename T>
void Conv2DBackpropFilterFunctor<T>::operator()(const Eigen::ThreadPoolDevice& d,
                                                const Conv2DGeometry& g, const T* input,
                                                const T* out_backprop, T* filter_backprop,
                                                T* workspace) const {
  if (g.filter_elements() == 0) return;
  const int64_t positions = Positions(g);
  if (positions == 0) {
    std::fill_n(filter_backprop, g.filter_elements(), T(0));
    return;
  }
  if (IsPointwise(g)) {
    // filter_backprop = input^T x out_backprop
    Gemm<T>(&d, PackedGemm<T>(true, false, g.in_depth, g.out_depth, positions, input,
                              out_backprop, filter_backprop));
    return;
  }
  const int64_t patch = g.patch_size();
  const int64_t tile = TileRows(patch, positions);
  const int64_t tiles = CeilDiv(positions, tile);
  const int64_t workers = NumWorkers(d, tiles);
  T* partials = workspace + workers * tile * patch;
  ForEachWorker(d, workers, tiles, [&](int64_t worker, int64_t first, int64_t last) {
    T* patches = workspace + worker * tile * patch;
    MatrixMap<T> sum(partials + worker * g.filter_elements(), patch, g.out_depth);
    sum.setZero();
    for (int64_t t = first; t < last; ++t) {
      const int64_t begin = t * tile;
      const int64_t rows = std::min(tile, positions - begin);
      Im2Col(g, input, begin, rows, patches);
      // sum += patches^T x out_backprop rows
      Gemm<T>(nullptr, PackedGemm<T>(true, false, patch, g.out_depth, rows, patches,
                                     out_backprop + begin * g.out_depth, sum.data(), T(1)));
    }
  });
  // The workers' partial sums, added in worker order (deterministic for a
  // given thread count).
  MatrixMap<T> result(filter_backprop, patch, g.out_depth);
  result = ConstMatrixMap<T>(partials, patch, g.out_depth);
  for (int64_t w = 1; w < workers; ++w) {
    result += ConstMatrixMap<T>(partials + w * g.filter_elements(), patch, g.out_depth);
  }
}

template struct Conv2DFunctor<float>;
template struct Conv2DFunctor<double>;
template struct Conv2DBackpropInputFunctor<float>;
template struct Conv2DBackpropInputFunctor<double>;
template struct Conv2DBackpropFilterFunctor<float>;
template struct Conv2DBackpropFilterFunctor<double>;

}  // namespace minitf::functor
