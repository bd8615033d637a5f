#include "ops/kernels/fused_batch_norm_functors.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "ops/kernels/cpu_vector_loops.h"

namespace minitf::functor {
namespace {

// Calls fn(first_channel, last_channel) over blocks of channels on the
// pool; `passes` full reads of a channel's elements per channel.
template <typename Fn>
void ForChannelBlocks(const Eigen::ThreadPoolDevice& d, const BatchNormLayout& l, int passes,
                      Fn&& fn) {
  const double n = static_cast<double>(l.per_channel());
  const Eigen::TensorOpCost cost(n * passes * sizeof(float), n * sizeof(float), n * passes * 4);
  d.parallelFor(l.channels, cost,
                [&fn](Eigen::Index first, Eigen::Index last) { fn(first, last); });
}

// Visits element (o, c, i) of channels [c0, c1) as fn(c - c0, flat index),
// in memory order for the block.
template <typename Fn>
void ForEachElement(const BatchNormLayout& l, int64_t c0, int64_t c1, Fn&& fn) {
  for (int64_t o = 0; o < l.outer; ++o) {
    for (int64_t c = c0; c < c1; ++c) {
      const int64_t base = (o * l.channels + c) * l.inner;
      for (int64_t i = 0; i < l.inner; ++i) fn(c - c0, base + i);
    }
  }
}

// ---- NHWC (inner == 1): rows of `channels` contiguous elements ----
//
// The rows are cut into a fixed number of blocks (not one per thread, so a
// sum is the same on every machine); each block folds its rows into per-
// channel partial sums with the channels innermost, where the compiler
// vectorizes, and the partials are added in block order. Walking channel by
// channel instead strides through the whole tensor once per block of
// channels.
constexpr int64_t kRowBlocks = 64;

int64_t RowBlocks(const BatchNormLayout& l) { return std::min(kRowBlocks, std::max<int64_t>(l.outer, 1)); }

// Calls fn(block, first_row, last_row) for each row block on the pool;
// `passes` reads of each element.
template <typename Fn>
void ForRowBlocks(const Eigen::ThreadPoolDevice& d, const BatchNormLayout& l, int passes,
                  Fn&& fn) {
  const int64_t blocks = RowBlocks(l);
  const double elements = static_cast<double>(l.outer) * static_cast<double>(l.channels) /
                          static_cast<double>(blocks);
  const Eigen::TensorOpCost cost(elements * passes * sizeof(float), elements * sizeof(float),
                                 elements * passes * 4);
  d.parallelFor(blocks, cost, [&](Eigen::Index first, Eigen::Index last) {
    for (Eigen::Index b = first; b < last; ++b) {
      fn(static_cast<int64_t>(b), l.outer * b / blocks, l.outer * (b + 1) / blocks);
    }
  });
}

// totals[c] = the sum over blocks, in block order, of partials[b * channels + c].
void AddPartials(const std::vector<double>& partials, int64_t channels, std::vector<double>* totals) {
  totals->assign(static_cast<size_t>(channels), 0.0);
  for (size_t at = 0; at < partials.size(); ++at) (*totals)[at % channels] += partials[at];
}

// y = max(y, 0) as the Relu kernel computes it (Eigen's cwiseMax).
void ReluInPlace(float* y, int64_t n) {
  Eigen::TensorMap<Eigen::Tensor<float, 1, Eigen::RowMajor>> t(y, n);
  t = t.cwiseMax(0.0f);
}

void ReluInPlace(const Eigen::ThreadPoolDevice& d, float* y, int64_t n) {
  Eigen::TensorMap<Eigen::Tensor<float, 1, Eigen::RowMajor>> t(y, n);
  t.device(d) = t.cwiseMax(0.0f);
}

// What _FusedBatchNormEx does to n values of y after the normalization: the
// side input added (as the Add kernel adds), then the Relu.
void FinishY(const ForwardArgs& a, int64_t first, int64_t n) {
  if (a.side_input != nullptr) {
    for (int64_t i = first; i < first + n; ++i) a.y[i] += a.side_input[i];
  }
  if (a.relu) ReluInPlace(a.y + first, n);
}

void FinishY(const Eigen::ThreadPoolDevice& d, const ForwardArgs& a, int64_t n) {
  if (a.side_input != nullptr) {
    Eigen::TensorMap<Eigen::Tensor<float, 1, Eigen::RowMajor>> y(a.y, n);
    Eigen::TensorMap<Eigen::Tensor<const float, 1, Eigen::RowMajor>> side(a.side_input, n);
    y.device(d) = y + side;
  }
  if (a.relu) ReluInPlace(d, a.y, n);
}

void BatchNormTrainingRows(const Eigen::ThreadPoolDevice& d, const BatchNormLayout& l,
                           float epsilon, float factor, const ForwardArgs& a) {
  const int64_t channels = l.channels;
  const int64_t n = l.per_channel();
  const double adjust = static_cast<double>(n) / static_cast<double>(n > 1 ? n - 1 : 1);
  std::vector<double> partials(static_cast<size_t>(RowBlocks(l) * channels));
  const functor::VectorLoops& loops = functor::ActiveVectorLoops();
  ForRowBlocks(d, l, 1, [&](int64_t b, int64_t r0, int64_t r1) {
    double* sum = partials.data() + b * channels;
    std::fill_n(sum, channels, 0.0);
    loops.add_rows_float(a.x + r0 * channels, r1 - r0, channels, channels, sum);
  });
  std::vector<double> mean;
  AddPartials(partials, channels, &mean);
  for (double& m : mean) m /= static_cast<double>(n);
  ForRowBlocks(d, l, 1, [&](int64_t b, int64_t r0, int64_t r1) {
    double* squares = partials.data() + b * channels;
    std::fill_n(squares, channels, 0.0);
    loops.add_centered_squares(a.x + r0 * channels, r1 - r0, channels, mean.data(), squares);
  });
  std::vector<double> squares;
  AddPartials(partials, channels, &squares);
  std::vector<double> multiplier(static_cast<size_t>(channels));
  for (int64_t c = 0; c < channels; ++c) {
    const double variance = squares[c] / static_cast<double>(n);
    multiplier[c] = a.scale[c] / std::sqrt(variance + epsilon);
    a.reserve_1[c] = static_cast<float>(mean[c]);
    a.reserve_2[c] = static_cast<float>(variance);
    if (factor == 1.0f) {
      a.batch_mean[c] = static_cast<float>(mean[c]);
      a.batch_variance[c] = static_cast<float>(variance * adjust);
    } else {
      a.batch_mean[c] = static_cast<float>((1.0 - factor) * a.mean[c] + factor * mean[c]);
      a.batch_variance[c] =
          static_cast<float>((1.0 - factor) * a.variance[c] + factor * adjust * variance);
    }
  }
  ForRowBlocks(d, l, 1, [&](int64_t, int64_t r0, int64_t r1) {
    loops.normalize_rows(a.x + r0 * channels, r1 - r0, channels, mean.data(), multiplier.data(),
                         a.offset, a.y + r0 * channels);
    // While the block is in cache.
    FinishY(a, r0 * channels, (r1 - r0) * channels);
  });
}

void BatchNormGradRows(const Eigen::ThreadPoolDevice& d, const BatchNormLayout& l, float epsilon,
                       bool is_training, const GradArgs& a) {
  const int64_t channels = l.channels;
  const double n = static_cast<double>(l.per_channel());
  const int64_t blocks = RowBlocks(l);
  const functor::VectorLoops& loops = functor::ActiveVectorLoops();
  std::vector<double> partial_dy(static_cast<size_t>(blocks * channels));
  std::vector<double> partial_dy_xc(static_cast<size_t>(blocks * channels));
  ForRowBlocks(d, l, 2, [&](int64_t b, int64_t r0, int64_t r1) {
    double* sum_dy = partial_dy.data() + b * channels;
    double* sum_dy_xc = partial_dy_xc.data() + b * channels;
    std::fill_n(sum_dy, channels, 0.0);
    std::fill_n(sum_dy_xc, channels, 0.0);
    loops.add_dy_and_dy_xc(a.y_backprop + r0 * channels, a.x + r0 * channels, r1 - r0, channels,
                           a.mean, sum_dy, sum_dy_xc);
  });
  std::vector<double> sum_dy, sum_dy_xc;
  AddPartials(partial_dy, channels, &sum_dy);
  AddPartials(partial_dy_xc, channels, &sum_dy_xc);
  // x_backprop = coef * dy + shift + xc_coef * (x - mean), per channel.
  std::vector<double> r(static_cast<size_t>(channels)), coef(r.size()), mean_dy(r.size()),
      xc_coef(r.size());
  for (int64_t c = 0; c < channels; ++c) {
    r[c] = 1.0 / std::sqrt(static_cast<double>(a.variance[c]) + epsilon);
    a.offset_backprop[c] = static_cast<float>(sum_dy[c]);
    a.scale_backprop[c] = static_cast<float>(sum_dy_xc[c] * r[c]);
    coef[c] = a.scale[c] * r[c];
    mean_dy[c] = sum_dy[c] / n;
    xc_coef[c] = r[c] * r[c] * sum_dy_xc[c] / n;
  }
  ForRowBlocks(d, l, 2, [&](int64_t, int64_t r0, int64_t r1) {
    const float* dy = a.y_backprop + r0 * channels;
    float* dx = a.x_backprop + r0 * channels;
    if (!is_training) {
      loops.scale_rows(dy, r1 - r0, channels, coef.data(), dx);
      return;
    }
    loops.batch_norm_backprop_rows(dy, a.x + r0 * channels, r1 - r0, channels, a.mean,
                                   coef.data(), mean_dy.data(), xc_coef.data(), dx);
  });
}

}  // namespace

// ---- Any layout: blocks of channels, each walked over outer and inner ----

void BatchNormTraining(const Eigen::ThreadPoolDevice& d, const BatchNormLayout& l,
                       float epsilon, float factor, const ForwardArgs& a) {
  if (l.inner == 1) {
    BatchNormTrainingRows(d, l, epsilon, factor, a);
    return;
  }
  const int64_t n = l.per_channel();
  const double adjust = static_cast<double>(n) / static_cast<double>(n > 1 ? n - 1 : 1);
  ForChannelBlocks(d, l, 3, [&](int64_t c0, int64_t c1) {
    std::vector<double> sum(c1 - c0, 0.0), squares(c1 - c0, 0.0);
    ForEachElement(l, c0, c1, [&](int64_t k, int64_t at) { sum[k] += a.x[at]; });
    for (double& s : sum) s /= static_cast<double>(n);  // Now the mean.
    ForEachElement(l, c0, c1, [&](int64_t k, int64_t at) {
      const double centered = a.x[at] - sum[k];
      squares[k] += centered * centered;
    });
    std::vector<double> multiplier(c1 - c0);
    for (int64_t c = c0; c < c1; ++c) {
      const int64_t k = c - c0;
      const double mean = sum[k];
      const double variance = squares[k] / static_cast<double>(n);
      multiplier[k] = a.scale[c] / std::sqrt(variance + epsilon);
      a.reserve_1[c] = static_cast<float>(mean);
      a.reserve_2[c] = static_cast<float>(variance);
      if (factor == 1.0f) {
        a.batch_mean[c] = static_cast<float>(mean);
        a.batch_variance[c] = static_cast<float>(variance * adjust);
      } else {
        a.batch_mean[c] = static_cast<float>((1.0 - factor) * a.mean[c] + factor * mean);
        a.batch_variance[c] =
            static_cast<float>((1.0 - factor) * a.variance[c] + factor * adjust * variance);
      }
    }
    ForEachElement(l, c0, c1, [&](int64_t k, int64_t at) {
      a.y[at] = static_cast<float>((a.x[at] - sum[k]) * multiplier[k] + a.offset[c0 + k]);
    });
  });
  FinishY(d, a, l.outer * l.channels * l.inner);
}

void BatchNormInference(const Eigen::ThreadPoolDevice& d, const BatchNormLayout& l,
                        float epsilon, const ForwardArgs& a) {
  ForChannelBlocks(d, l, 1, [&](int64_t c0, int64_t c1) {
    std::vector<double> multiplier(c1 - c0);
    for (int64_t c = c0; c < c1; ++c) {
      multiplier[c - c0] = a.scale[c] / std::sqrt(static_cast<double>(a.variance[c]) + epsilon);
      a.batch_mean[c] = a.reserve_1[c] = a.mean[c];
      a.batch_variance[c] = a.reserve_2[c] = a.variance[c];
    }
    ForEachElement(l, c0, c1, [&](int64_t k, int64_t at) {
      a.y[at] = static_cast<float>((a.x[at] - static_cast<double>(a.mean[c0 + k])) * multiplier[k] +
                                   a.offset[c0 + k]);
    });
  });
  FinishY(d, a, l.outer * l.channels * l.inner);
}

// With xc = x - mean and r = 1 / sqrt(variance + epsilon), per channel:
//   offset_backprop = sum(dy), scale_backprop = sum(dy * xc) * r,
//   training:  x_backprop = scale * r * (dy - mean(dy) - xc * r^2 * mean(dy * xc))
//   inference: x_backprop = scale * r * dy (mean and variance are constants).
void BatchNormGrad(const Eigen::ThreadPoolDevice& d, const BatchNormLayout& l, float epsilon,
                   bool is_training, const GradArgs& a) {
  if (l.inner == 1) {
    BatchNormGradRows(d, l, epsilon, is_training, a);
    return;
  }
  const double n = static_cast<double>(l.per_channel());
  ForChannelBlocks(d, l, 2, [&](int64_t c0, int64_t c1) {
    std::vector<double> sum_dy(c1 - c0, 0.0), sum_dy_xc(c1 - c0, 0.0);
    ForEachElement(l, c0, c1, [&](int64_t k, int64_t at) {
      sum_dy[k] += a.y_backprop[at];
      sum_dy_xc[k] += static_cast<double>(a.y_backprop[at]) * (a.x[at] - a.mean[c0 + k]);
    });
    std::vector<double> r(c1 - c0);
    for (int64_t c = c0; c < c1; ++c) {
      const int64_t k = c - c0;
      r[k] = 1.0 / std::sqrt(static_cast<double>(a.variance[c]) + epsilon);
      a.offset_backprop[c] = static_cast<float>(sum_dy[k]);
      a.scale_backprop[c] = static_cast<float>(sum_dy_xc[k] * r[k]);
    }
    ForEachElement(l, c0, c1, [&](int64_t k, int64_t at) {
      const double coef = a.scale[c0 + k] * r[k];
      if (!is_training) {
        a.x_backprop[at] = static_cast<float>(coef * a.y_backprop[at]);
        return;
      }
      const double xc = static_cast<double>(a.x[at]) - a.mean[c0 + k];
      a.x_backprop[at] = static_cast<float>(
          coef * (a.y_backprop[at] - sum_dy[k] / n - xc * r[k] * r[k] * sum_dy_xc[k] / n));
    });
  });
}

}  // namespace minitf::functor
