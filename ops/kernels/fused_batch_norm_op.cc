// Kernels: FusedBatchNorm, FusedBatchNormV3 and their gradients on CPU, for
// float, NHWC and NCHW. The checks are FusedBatchNormOpBase's; the
// arithmetic below walks x as [outer, channels, inner] (BatchNormLayout)
// and shares the channels out over the intra-op pool, each channel's sums
// taken in double on one thread (deterministic for any thread count).
//
// What the forward op stores for its gradient, as TensorFlow's CPU kernel:
// reserve_space_1 = the batch mean, reserve_space_2 = the biased batch
// variance (not cuDNN's inverse standard deviation); FusedBatchNormV3's
// reserve_space_3 is a scalar 0. In inference the reserve spaces hold the
// given mean and variance (TensorFlow leaves them unwritten on the CPU).
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "ops/kernels/fused_batch_norm_op_common.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

namespace minitf {
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

struct ForwardArgs {
  const float* x;
  const float* scale;
  const float* offset;
  const float* mean;      // The given (running or population) mean.
  const float* variance;  // Likewise.
  float* y;
  float* batch_mean;
  float* batch_variance;
  float* reserve_1;
  float* reserve_2;
};

void BatchNormTraining(const Eigen::ThreadPoolDevice& d, const BatchNormLayout& l,
                       float epsilon, float factor, const ForwardArgs& a) {
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
}

// FusedBatchNorm (five outputs) and FusedBatchNormV3 (six).
class FusedBatchNormOp : public FusedBatchNormOpBase {
 public:
  using FusedBatchNormOpBase::FusedBatchNormOpBase;

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<BatchNormLayout> layout = ForwardLayoutOf(ctx);
    OP_REQUIRES_OK(ctx, layout.status());
    const Tensor& x = ctx->input(0);
    Tensor* out[5] = {};
    Tensor* reserve_3 = nullptr;
    OP_REQUIRES_OK(ctx, AllocateForwardOutputs(ctx, *layout, out, &reserve_3));
    if (reserve_3 != nullptr) reserve_3->flat<float>()(0) = 0.0f;
    if (x.NumElements() == 0) {
      // No statistics: NaN, as in TensorFlow.
      for (int i = 1; i < 5; ++i) {
        out[i]->flat<float>().setConstant(std::numeric_limits<float>::quiet_NaN());
      }
      return;
    }
    const ForwardArgs args{x.data<float>(),          ctx->input(1).data<float>(),
                           ctx->input(2).data<float>(), ctx->input(3).data<float>(),
                           ctx->input(4).data<float>(), out[0]->data<float>(),
                           out[1]->data<float>(),      out[2]->data<float>(),
                           out[3]->data<float>(),      out[4]->data<float>()};
    if (is_training_) {
      BatchNormTraining(ctx->eigen_cpu_device(), *layout, epsilon_, exponential_avg_factor_,
                        args);
    } else {
      BatchNormInference(ctx->eigen_cpu_device(), *layout, epsilon_, args);
    }
  }
};

struct GradArgs {
  const float* y_backprop;
  const float* x;
  const float* scale;
  const float* mean;      // reserve_space_1
  const float* variance;  // reserve_space_2
  float* x_backprop;
  float* scale_backprop;
  float* offset_backprop;
};

// With xc = x - mean and r = 1 / sqrt(variance + epsilon), per channel:
//   offset_backprop = sum(dy), scale_backprop = sum(dy * xc) * r,
//   training:  x_backprop = scale * r * (dy - mean(dy) - xc * r^2 * mean(dy * xc))
//   inference: x_backprop = scale * r * dy (mean and variance are constants).
void BatchNormGrad(const Eigen::ThreadPoolDevice& d, const BatchNormLayout& l, float epsilon,
                   bool is_training, const GradArgs& a) {
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

// FusedBatchNormGrad and FusedBatchNormGradV3 (whose reserve_space_3 is
// not read).
class FusedBatchNormGradOp : public FusedBatchNormOpBase {
 public:
  using FusedBatchNormOpBase::FusedBatchNormOpBase;

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<BatchNormLayout> layout = GradLayoutOf(ctx);
    OP_REQUIRES_OK(ctx, layout.status());
    const Tensor& x = ctx->input(1);
    Tensor* out[3] = {};
    OP_REQUIRES_OK(ctx, AllocateGradOutputs(ctx, *layout, out));
    if (x.NumElements() == 0) {
      out[1]->flat<float>().setZero();
      out[2]->flat<float>().setZero();
      return;
    }
    BatchNormGrad(ctx->eigen_cpu_device(), *layout, epsilon_, is_training_,
                  {ctx->input(0).data<float>(), x.data<float>(), ctx->input(2).data<float>(),
                   ctx->input(3).data<float>(), ctx->input(4).data<float>(),
                   out[0]->data<float>(), out[1]->data<float>(), out[2]->data<float>()});
  }
};

REGISTER_KERNEL_BUILDER(Name("FusedBatchNorm").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                        FusedBatchNormOp);
REGISTER_KERNEL_BUILDER(
    Name("FusedBatchNormV3").Device(DEVICE_CPU).TypeConstraint<float>("T").TypeConstraint<float>(
        "U"),
    FusedBatchNormOp);
REGISTER_KERNEL_BUILDER(Name("FusedBatchNormGrad").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                        FusedBatchNormGradOp);
REGISTER_KERNEL_BUILDER(Name("FusedBatchNormGradV3")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<float>("T")
                            .TypeConstraint<float>("U"),
                        FusedBatchNormGradOp);

}  // namespace
}  // namespace minitf
