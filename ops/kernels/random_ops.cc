// Kernels: RandomUniform, RandomStandardNormal, TruncatedNormal (float,
// double) and RandomUniformInt (int32 and int64 on the CPU; int64 on CUDA
// GPUs, where int32 tensors stay in host memory) on the CPU and on CUDA GPUs
// (random_ops_gpu.cu), with TensorFlow's generator and distributions
// (philox_random.h, random_distributions.h), so the same seeds give
// TensorFlow's numbers on every device.
//
// Each kernel owns a PhiloxRandom seeded from its `seed` and `seed2` attrs
// (from two random 64-bit values when both are zero). Every Compute takes
// the generator as it is and moves it on by 256 calls per output value
// (TensorFlow's reservation), so every step draws new values, and
// concurrent steps take turns only for that reservation.
#include <cstdint>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "ops/kernels/philox_random.h"
#include "ops/kernels/random_distributions.h"
#include "platform/mutex.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

#ifdef MINITF_WITH_CUDA
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/random_ops_gpu.h"
#endif

namespace minitf {
namespace {

// The generator of a kernel whose attrs are `seed` and `seed2`. A bad attr
// fails the construction (the generator returned is then unused).
PhiloxRandom SeededGenerator(OpKernelConstruction* ctx) {
  int64_t seed = 0, seed2 = 0;
  absl::Status s = ctx->GetAttr("seed", &seed);
  if (s.ok()) s = ctx->GetAttr("seed2", &seed2);
  if (!s.ok()) ctx->CtxFailure(s);
  if (seed == 0 && seed2 == 0) {
    std::random_device device;
    auto draw64 = [&device] { return (uint64_t{device()} << 32) | device(); };
    return PhiloxRandom(draw64(), draw64());
  }
  return PhiloxRandom(static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2));
}

// A kernel's generator: each Compute reserves its share of the stream.
class GuardedPhilox {
 public:
  explicit GuardedPhilox(OpKernelConstruction* ctx) : generator_(SeededGenerator(ctx)) {}
  // The generator an output of `size` values starts from.
  PhiloxRandom Reserve(int64_t size) {
    MutexLock lock(&mu_);
    const PhiloxRandom start = generator_;
    generator_.Skip(random::ReservedCalls(size));
    return start;
  }

 private:
  Mutex mu_;
  PhiloxRandom generator_ ABSL_GUARDED_BY(mu_);
};

// The CPU's fill: every group of the output in turn.
struct CpuRandom {
  template <typename Dist, typename T>
  static absl::Status Fill(OpKernelContext* /*ctx*/, const Dist& dist, PhiloxRandom start,
                           T* out, int64_t size) {
    const int64_t groups = (size + Dist::kGroupSize - 1) / Dist::kGroupSize;
    for (int64_t g = 0; g < groups; ++g) random::FillGroup(dist, start, size, g, out);
    return absl::OkStatus();
  }
};

// The shape input 0 holds (a vector of `Index`).
template <typename Index>
absl::StatusOr<TensorShape> OutputShape(OpKernelContext* ctx) {
  const Tensor& shape_tensor = ctx->input(0);
  const NodeDef& def = ctx->op_kernel().def();
  if (shape_tensor.dims() != 1) {
    return AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                              "shape must be a vector, got shape ",
                              shape_tensor.shape().DebugString())),
                          def);
  }
  auto d = shape_tensor.vec<Index>();
  const std::vector<int64_t> sizes(d.data(), d.data() + d.size());
  absl::StatusOr<TensorShape> shape = TensorShape::Build(sizes);
  if (!shape.ok()) {
    return AttachNodeName(absl::InvalidArgumentError(shape.status().message()), def);
  }
  return shape;
}

// The skeleton of both ops on every device: the shape (and range) checked,
// the output allocated, the generator's share reserved; `Device` supplies
// only the fill,
//   template <typename Dist, typename T>
//   static absl::Status Fill(OpKernelContext*, const Dist&, PhiloxRandom start,
//                            T* out, int64_t size);
//
// output: a tensor of dtype T and the shape input 0 holds (as `Index`),
// filled by Dist<T>.
template <typename Device, typename T, typename Index, template <typename> class Dist>
class RandomOp : public OpKernel {
 public:
  explicit RandomOp(OpKernelConstruction* ctx) : OpKernel(ctx), generator_(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<TensorShape> shape = OutputShape<Index>(ctx);
    OP_REQUIRES_OK(ctx, shape.status());
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &output));
    const int64_t n = output->NumElements();
    if (n == 0) return;
    OP_REQUIRES_OK(ctx, Device::Fill(ctx, Dist<T>(), generator_.Reserve(n),
                                     output->flat<T>().data(), n));
  }

 private:
  GuardedPhilox generator_;
};

// Uniform integers of type T in [minval, maxval) (inputs 1 and 2, scalars,
// read on the host): minval + bits % (maxval - minval), as TensorFlow.
template <typename Device, typename T, typename Index>
class RandomUniformIntOp : public OpKernel {
 public:
  explicit RandomUniformIntOp(OpKernelConstruction* ctx) : OpKernel(ctx), generator_(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<TensorShape> shape = OutputShape<Index>(ctx);
    OP_REQUIRES_OK(ctx, shape.status());
    const Tensor& minval = ctx->input(1);
    const Tensor& maxval = ctx->input(2);
    for (const auto& [name, t] : {std::pair<const char*, const Tensor*>{"minval", &minval},
                                  std::pair<const char*, const Tensor*>{"maxval", &maxval}}) {
      OP_REQUIRES(ctx, t->dims() == 0,
                  AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                                     name, " must be 0-D, got shape ", t->shape().DebugString())),
                                 def()));
    }
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &output));
    if (output->NumElements() == 0) return;  // As TensorFlow: no range check then.
    const T lo = minval.scalar<T>()(), hi = maxval.scalar<T>()();
    OP_REQUIRES(ctx, lo < hi,
                AttachNodeName(absl::InvalidArgumentError(
                                   absl::StrCat("Need minval < maxval: ", lo, " >= ", hi)),
                               def()));
    using Unsigned = std::make_unsigned_t<T>;
    random::UniformInt<T> dist;
    dist.lo = lo;
    dist.range = static_cast<Unsigned>(hi) - static_cast<Unsigned>(lo);
    const int64_t n = output->NumElements();
    OP_REQUIRES_OK(ctx,
                   Device::Fill(ctx, dist, generator_.Reserve(n), output->flat<T>().data(), n));
  }

 private:
  GuardedPhilox generator_;
};

#define MINITF_REGISTER_RANDOM(device, platform, Impl, op, T, Index, Dist) \
  REGISTER_KERNEL_BUILDER(Name(op)                                            \
                              .Device(device) platform                        \
                              .TypeConstraint<T>("dtype")                     \
                              .TypeConstraint<Index>("T")                     \
                              .HostMemory("shape"),                           \
                          RandomOp<Impl, T, Index, Dist>)
#define MINITF_REGISTER_RANDOM_OPS(device, platform, Impl, T, Index)                        \
  MINITF_REGISTER_RANDOM(device, platform, Impl, "RandomUniform", T, Index, random::Uniform); \
  MINITF_REGISTER_RANDOM(device, platform, Impl, "RandomStandardNormal", T, Index,          \
                         random::Normal);                                                     \
  MINITF_REGISTER_RANDOM(device, platform, Impl, "TruncatedNormal", T, Index,               \
                         random::TruncatedNormal)
#define MINITF_REGISTER_RANDOM_UNIFORM_INT(device, platform, Impl, T, Index) \
  REGISTER_KERNEL_BUILDER(Name("RandomUniformInt")                             \
                              .Device(device) platform                         \
                              .TypeConstraint<T>("Tout")                       \
                              .TypeConstraint<Index>("T")                      \
                              .HostMemory("shape")                             \
                              .HostMemory("minval")                            \
                              .HostMemory("maxval"),                           \
                          RandomUniformIntOp<Impl, T, Index>)

MINITF_REGISTER_RANDOM_OPS(DEVICE_CPU, , CpuRandom, float, int32_t);
MINITF_REGISTER_RANDOM_OPS(DEVICE_CPU, , CpuRandom, float, int64_t);
MINITF_REGISTER_RANDOM_OPS(DEVICE_CPU, , CpuRandom, double, int32_t);
MINITF_REGISTER_RANDOM_OPS(DEVICE_CPU, , CpuRandom, double, int64_t);
MINITF_REGISTER_RANDOM_UNIFORM_INT(DEVICE_CPU, , CpuRandom, int32_t, int32_t);
MINITF_REGISTER_RANDOM_UNIFORM_INT(DEVICE_CPU, , CpuRandom, int32_t, int64_t);
MINITF_REGISTER_RANDOM_UNIFORM_INT(DEVICE_CPU, , CpuRandom, int64_t, int32_t);
MINITF_REGISTER_RANDOM_UNIFORM_INT(DEVICE_CPU, , CpuRandom, int64_t, int64_t);

#ifdef MINITF_WITH_CUDA
// CUDA's fill: one launch, a thread per group.
struct CudaRandom {
  template <typename Dist, typename T>
  static absl::Status Fill(OpKernelContext* ctx, const Dist& dist, PhiloxRandom start, T* out,
                           int64_t size) {
    return LaunchOnComputeStream(ctx, ctx->op_kernel().type_string(), [&](cudaStream_t stream) {
      return gpu::LaunchRandom(stream, dist, start, size, out);
    });
  }
};

MINITF_REGISTER_RANDOM_OPS(DEVICE_GPU, .Platform("CUDA"), CudaRandom, float, int32_t);
MINITF_REGISTER_RANDOM_OPS(DEVICE_GPU, .Platform("CUDA"), CudaRandom, float, int64_t);
MINITF_REGISTER_RANDOM_OPS(DEVICE_GPU, .Platform("CUDA"), CudaRandom, double, int32_t);
MINITF_REGISTER_RANDOM_OPS(DEVICE_GPU, .Platform("CUDA"), CudaRandom, double, int64_t);
MINITF_REGISTER_RANDOM_UNIFORM_INT(DEVICE_GPU, .Platform("CUDA"), CudaRandom, int64_t, int32_t);
MINITF_REGISTER_RANDOM_UNIFORM_INT(DEVICE_GPU, .Platform("CUDA"), CudaRandom, int64_t, int64_t);
#endif  // MINITF_WITH_CUDA

#undef MINITF_REGISTER_RANDOM_UNIFORM_INT
#undef MINITF_REGISTER_RANDOM_OPS
#undef MINITF_REGISTER_RANDOM

}  // namespace
}  // namespace minitf
