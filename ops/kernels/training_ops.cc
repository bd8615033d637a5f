// Kernels: the optimizer updates ApplyMomentum and ApplyAdam (ref
// variables) and ResourceApplyGradientDescent, ResourceApplyMomentum and
// ResourceApplyAdam (resource variables) on the CPU (float, double) and on
// CUDA GPUs (float; training_ops_gpu.cu). ApplyGradientDescent (ref) is in
// variable_ops.cc.
//
// One update, two kernels, every device: an optimizer (GradientDescent,
// Momentum, Adam) names its variable inputs (inputs 0..kNumVars-1), its
// scalar inputs and its gradient input (the *Signature structs), and a
// device computes TensorFlow's formula (training_ops.cc there) as a struct
// deriving from the signature with
//   static void Apply(OpKernelContext* ctx, Tensor* const* vars, bool use_nesterov);
// which updates the initialized, checked variables `vars` (in kVars order)
// from the context's other inputs, reporting errors through ctx, and
//   static constexpr DeviceCopyFn kCopy;  // var.h: copies within its memory
// ApplyRefOp gets the variables from references, ResourceApplyOp from
// handles. Both check initialization, shapes and scalars the same way.
//
// Locking, as TensorFlow's: a ref update holds the variables' mutexes for the
// whole update only with use_locking (else the elements are updated without
// them); a resource update always holds them, and copies on write (var.h).
// Mutexes are taken in address order, so updates sharing variables cannot
// deadlock.
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "ops/kernels/cpu_vector_loops.h"
#include "ops/kernels/var.h"
#include "platform/mutex.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

#ifdef MINITF_WITH_CUDA
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/training_ops_gpu.h"
#endif

namespace minitf {
namespace {

// var -= alpha * delta.
struct GradientDescentSignature {
  static constexpr std::array<const char*, 1> kVars = {"var"};
  static constexpr std::array<std::pair<int, const char*>, 1> kScalars = {{{1, "alpha"}}};
  static constexpr std::pair<int, const char*> kGrad = {2, "delta"};
};

// accum = accum * momentum + grad;
// var -= lr * accum, or with use_nesterov var -= lr * grad + lr * momentum * accum.
struct MomentumSignature {
  static constexpr std::array<const char*, 2> kVars = {"var", "accum"};
  static constexpr std::array<std::pair<int, const char*>, 2> kScalars = {
      {{2, "lr"}, {4, "momentum"}}};
  static constexpr std::pair<int, const char*> kGrad = {3, "grad"};
};

// lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power);
// m += (grad - m) * (1 - beta1); v += (grad^2 - v) * (1 - beta2);
// var -= lr_t * m / (sqrt(v) + epsilon), or with use_nesterov
// var -= lr_t * (beta1 * m + (1 - beta1) * grad) / (sqrt(v) + epsilon).
struct AdamSignature {
  static constexpr std::array<const char*, 3> kVars = {"var", "m", "v"};
  static constexpr std::array<std::pair<int, const char*>, 6> kScalars = {
      {{3, "beta1_power"}, {4, "beta2_power"}, {5, "lr"}, {6, "beta1"}, {7, "beta2"},
       {8, "epsilon"}}};
  static constexpr std::pair<int, const char*> kGrad = {9, "grad"};
};

// Holds the distinct mutexes of `mus`, taken in address order (so updates
// sharing variables cannot deadlock); releases them when destroyed.
class MultiMutexLock {
 public:
  explicit MultiMutexLock(std::vector<Mutex*> mus) ABSL_NO_THREAD_SAFETY_ANALYSIS
      : mus_(std::move(mus)) {
    std::sort(mus_.begin(), mus_.end());
    mus_.erase(std::unique(mus_.begin(), mus_.end()), mus_.end());
    for (Mutex* mu : mus_) mu->Lock();
  }
  ~MultiMutexLock() ABSL_NO_THREAD_SAFETY_ANALYSIS {
    for (auto it = mus_.rbegin(); it != mus_.rend(); ++it) (*it)->Unlock();
  }
  MultiMutexLock(const MultiMutexLock&) = delete;
  MultiMutexLock& operator=(const MultiMutexLock&) = delete;

 private:
  std::vector<Mutex*> mus_;
};

// The checks every form shares, on initialized variables `vars`: every
// variable has var's shape, the scalar inputs are scalars, the gradient has
// var's shape. InvalidArgument in TensorFlow's words, naming the node.
template <typename Optimizer>
absl::Status CheckUpdate(OpKernelContext* ctx, Tensor* const* vars) {
  const NodeDef& def = ctx->op_kernel().def();
  const TensorShape& var_shape = vars[0]->shape();
  for (size_t i = 1; i < Optimizer::kVars.size(); ++i) {
    if (vars[i]->shape() != var_shape) {
      return AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                                "var and ", Optimizer::kVars[i], " do not have the same shape",
                                var_shape.DebugString(), " ", vars[i]->shape().DebugString())),
                            def);
    }
  }
  for (const auto& [index, name] : Optimizer::kScalars) {
    if (ctx->input(index).dims() != 0) {
      const std::string shape = ctx->input(index).shape().DebugString();
      return AttachNodeName(
          absl::InvalidArgumentError(absl::StrCat(name, " is not a scalar: ", shape)), def);
    }
  }
  const auto& [grad_index, grad_name] = Optimizer::kGrad;
  if (ctx->input(grad_index).shape() != var_shape) {
    return AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                              "var and ", grad_name, " do not have the same shape",
                              var_shape.DebugString(), " ",
                              ctx->input(grad_index).shape().DebugString())),
                          def);
  }
  return absl::OkStatus();
}

// The update on ref variables; outputs the reference to var. With
// use_locking the variables' mutexes are held for the whole update; without,
// only while their buffers are read (TensorFlow's lock-free updates).
template <typename Opt>
class ApplyRefOp : public OpKernel {
 public:
  static constexpr int kNumVars = static_cast<int>(Opt::kVars.size());

  explicit ApplyRefOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_locking", &use_locking_));
    if (ctx->HasAttr("use_nesterov")) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("use_nesterov", &use_nesterov_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    std::vector<Mutex*> mus;
    for (int i = 0; i < kNumVars; ++i) {
      OP_REQUIRES(ctx, ctx->input_is_ref(i),
                  AttachNodeName(absl::InternalError(absl::StrCat(
                                     "input ", i, " (", Opt::kVars[i], ") must be a reference")),
                                 def()));
      mus.push_back(ctx->input_ref_mutex(i));
    }
    if (use_locking_) {
      MultiMutexLock lock(mus);
      std::array<Tensor*, kNumVars> vars;
      for (int i = 0; i < kNumVars; ++i) vars[i] = ctx->mutable_input(i);
      Update(ctx, vars.data());
    } else {
      // Snapshots share the refs' buffers: the update writes the variables.
      std::array<Tensor, kNumVars> snapshots;
      {
        MultiMutexLock lock(mus);
        for (int i = 0; i < kNumVars; ++i) snapshots[i] = *ctx->mutable_input(i);
      }
      std::array<Tensor*, kNumVars> vars;
      for (int i = 0; i < kNumVars; ++i) vars[i] = &snapshots[i];
      Update(ctx, vars.data());
    }
    if (ctx->status().ok()) ctx->forward_ref_input_to_ref_output(0, 0);
  }

 private:
  void Update(OpKernelContext* ctx, Tensor* const* vars) {
    for (int i = 0; i < kNumVars; ++i) {
      OP_REQUIRES(ctx, vars[i]->IsInitialized(),
                  AttachNodeName(absl::FailedPreconditionError(absl::StrCat(
                                     "Attempting to use uninitialized value ", SourceName(i))),
                                 def()));
    }
    OP_REQUIRES_OK(ctx, CheckUpdate<Opt>(ctx, vars));
    Opt::Apply(ctx, vars, use_nesterov_);
  }

  // The node that produced reference input i.
  std::string SourceName(int i) const {
    if (static_cast<int>(def().input.size()) <= i) return Opt::kVars[i];
    const std::string& input = def().input[i];
    return input.substr(0, input.find(':'));
  }

  bool use_locking_ = false;
  bool use_nesterov_ = false;
};


template <typename T>
struct GradientDescent : GradientDescentSignature {
  static constexpr DeviceCopyFn kCopy = &HostCopy;
  static void Apply(OpKernelContext* ctx, Tensor* const* vars, bool /*use_nesterov*/) {
    const T alpha = ctx->input(1).scalar<T>()();
    vars[0]->flat<T>().device(ctx->eigen_cpu_device()) -= ctx->input(2).flat<T>() * alpha;
  }
};

template <typename T>
struct Momentum : MomentumSignature {
  static constexpr DeviceCopyFn kCopy = &HostCopy;
  static void Apply(OpKernelContext* ctx, Tensor* const* vars, bool use_nesterov) {
    const auto& d = ctx->eigen_cpu_device();
    auto var = vars[0]->flat<T>();
    auto accum = vars[1]->flat<T>();
    const T lr = ctx->input(2).scalar<T>()();
    const auto grad = ctx->input(3).flat<T>();
    const T momentum = ctx->input(4).scalar<T>()();
    if constexpr (std::is_same_v<T, float>) {
      // One pass over the three arrays at the machine's vector width.
      const functor::MomentumStep<float> step{lr, momentum, use_nesterov};
      const functor::VectorLoops& loops = functor::ActiveVectorLoops();
      d.parallelFor(var.size(), Eigen::TensorOpCost(3 * sizeof(T), 2 * sizeof(T), 4),
                    [&](Eigen::Index begin, Eigen::Index end) {
                      loops.momentum_float(step, grad.data() + begin, var.data() + begin,
                                           accum.data() + begin, end - begin);
                    });
      return;
    }
    accum.device(d) = accum * momentum + grad;
    if (use_nesterov) {
      var.device(d) -= grad * lr + accum * momentum * lr;
    } else {
      var.device(d) -= accum * lr;
    }
  }
};

template <typename T>
struct Adam : AdamSignature {
  static constexpr DeviceCopyFn kCopy = &HostCopy;
  static void Apply(OpKernelContext* ctx, Tensor* const* vars, bool use_nesterov) {
    const auto& d = ctx->eigen_cpu_device();
    auto var = vars[0]->flat<T>();
    auto m = vars[1]->flat<T>();
    auto v = vars[2]->flat<T>();
    auto scalar = [ctx](int i) { return ctx->input(i).scalar<T>()(); };
    const T beta1_power = scalar(3), beta2_power = scalar(4), lr = scalar(5);
    const T beta1 = scalar(6), beta2 = scalar(7), epsilon = scalar(8);
    const auto grad = ctx->input(9).flat<T>();
    functor::AdamStep<T> step;
    step.lr_t = lr * std::sqrt(T(1) - beta2_power) / (T(1) - beta1_power);
    step.beta1 = beta1;
    step.beta2 = beta2;
    step.epsilon = epsilon;
    step.use_nesterov = use_nesterov;
    // One pass over the four arrays (each element's m, v and var in turn)
    // at the machine's vector width, instead of three Eigen passes.
    const functor::VectorLoops& loops = functor::ActiveVectorLoops();
    const auto update = [&](Eigen::Index begin, Eigen::Index end) {
      if constexpr (std::is_same_v<T, float>) {
        loops.adam_float(step, grad.data() + begin, var.data() + begin, m.data() + begin,
                         v.data() + begin, end - begin);
      } else {
        loops.adam_double(step, grad.data() + begin, var.data() + begin, m.data() + begin,
                          v.data() + begin, end - begin);
      }
    };
    // Per element: four values read, three written, about 20 cycles of
    // arithmetic (the square root and the division).
    d.parallelFor(var.size(), Eigen::TensorOpCost(4 * sizeof(T), 3 * sizeof(T), 20), update);
  }
};

// The update on resource variables of dtype T; no outputs.
template <typename T, typename Opt>
class ResourceApplyOp : public OpKernel {
 public:
  static constexpr int kNumVars = static_cast<int>(Opt::kVars.size());

  explicit ResourceApplyOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (ctx->HasAttr("use_nesterov")) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("use_nesterov", &use_nesterov_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    std::array<std::shared_ptr<Var>, kNumVars> held;
    std::vector<Mutex*> mus;
    for (int i = 0; i < kNumVars; ++i) {
      absl::StatusOr<std::shared_ptr<Var>> var = LookupResourceVar(ctx, i);
      OP_REQUIRES_OK(ctx, var.status());
      held[i] = *std::move(var);
      mus.push_back(&held[i]->mu);
    }
    MultiMutexLock lock(mus);
    std::array<Tensor*, kNumVars> vars;
    for (int i = 0; i < kNumVars; ++i) {
      Var* v = held[i].get();
      v->mu.AssertHeld();
      OP_REQUIRES(ctx, v->tensor.IsInitialized(),
                  UninitializedVariableError(ctx->input(i).scalar<ResourceHandle>()(), def()));
      OP_REQUIRES(ctx, v->tensor.dtype() == DataTypeToEnum<T>::value,
                  AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                                     Opt::kVars[i], " holds ", DataTypeString(v->tensor.dtype()),
                                     " but the update's T is ",
                                     DataTypeString(DataTypeToEnum<T>::value))),
                                 def()));
      vars[i] = &v->tensor;
    }
    OP_REQUIRES_OK(ctx, CheckUpdate<Opt>(ctx, vars.data()));
    for (int i = 0; i < kNumVars; ++i) {
      held[i]->mu.AssertHeld();
      OP_REQUIRES_OK(ctx, PrepareToUpdateVariable(ctx, held[i].get(), Opt::kCopy));
    }
    Opt::Apply(ctx, vars.data(), use_nesterov_);
  }

 private:
  bool use_nesterov_ = false;
};

#define MINITF_REGISTER_TRAINING_OPS(device, platform, T, GradientDescent, Momentum, Adam)     \
  REGISTER_KERNEL_BUILDER(                                                                     \
      Name("ApplyMomentum").Device(device) platform.TypeConstraint<T>("T"),                    \
      ApplyRefOp<Momentum>);                                                                   \
  REGISTER_KERNEL_BUILDER(Name("ApplyAdam").Device(device) platform.TypeConstraint<T>("T"),    \
                          ApplyRefOp<Adam>);                                                   \
  REGISTER_KERNEL_BUILDER(Name("ResourceApplyGradientDescent")                                 \
                              .Device(device) platform.TypeConstraint<T>("T")                  \
                              .HostMemory("var"),                                              \
                          ResourceApplyOp<T, GradientDescent>);                                \
  REGISTER_KERNEL_BUILDER(Name("ResourceApplyMomentum")                                        \
                              .Device(device) platform.TypeConstraint<T>("T")                  \
                              .HostMemory("var")                                               \
                              .HostMemory("accum"),                                            \
                          ResourceApplyOp<T, Momentum>);                                       \
  REGISTER_KERNEL_BUILDER(Name("ResourceApplyAdam")                                            \
                              .Device(device) platform.TypeConstraint<T>("T")                  \
                              .HostMemory("var")                                               \
                              .HostMemory("m")                                                 \
                              .HostMemory("v"),                                                \
                          ResourceApplyOp<T, Adam>)
MINITF_REGISTER_TRAINING_OPS(DEVICE_CPU, , float, GradientDescent<float>, Momentum<float>,
                             Adam<float>);
MINITF_REGISTER_TRAINING_OPS(DEVICE_CPU, , double, GradientDescent<double>, Momentum<double>,
                             Adam<double>);

#ifdef MINITF_WITH_CUDA
const float* InputData(OpKernelContext* ctx, int index) { return ctx->input(index).data<float>(); }

// The CUDA optimizers, float; their scalars are read on the device.
struct CudaGradientDescent : GradientDescentSignature {
  static constexpr DeviceCopyFn kCopy = &CopyOnComputeStream;
  static void Apply(OpKernelContext* ctx, Tensor* const* vars, bool /*use_nesterov*/) {
    OP_REQUIRES_OK(ctx, LaunchOnComputeStream(ctx, "ApplyGradientDescent", [&](cudaStream_t s) {
      return gpu::LaunchApplyGradientDescent(s, vars[0]->NumElements(), vars[0]->data<float>(),
                                             InputData(ctx, 1), InputData(ctx, 2));
    }));
  }
};

struct CudaMomentum : MomentumSignature {
  static constexpr DeviceCopyFn kCopy = &CopyOnComputeStream;
  static void Apply(OpKernelContext* ctx, Tensor* const* vars, bool use_nesterov) {
    OP_REQUIRES_OK(ctx, LaunchOnComputeStream(ctx, "ApplyMomentum", [&](cudaStream_t s) {
      return gpu::LaunchApplyMomentum(s, vars[0]->NumElements(), vars[0]->data<float>(),
                                      vars[1]->data<float>(), InputData(ctx, 2),
                                      InputData(ctx, 3), InputData(ctx, 4), use_nesterov);
    }));
  }
};

struct CudaAdam : AdamSignature {
  static constexpr DeviceCopyFn kCopy = &CopyOnComputeStream;
  static void Apply(OpKernelContext* ctx, Tensor* const* vars, bool use_nesterov) {
    const gpu::AdamScalars scalars{InputData(ctx, 3), InputData(ctx, 4), InputData(ctx, 5),
                                   InputData(ctx, 6), InputData(ctx, 7), InputData(ctx, 8)};
    OP_REQUIRES_OK(ctx, LaunchOnComputeStream(ctx, "ApplyAdam", [&](cudaStream_t s) {
      return gpu::LaunchApplyAdam(s, vars[0]->NumElements(), vars[0]->data<float>(),
                                  vars[1]->data<float>(), vars[2]->data<float>(), scalars,
                                  InputData(ctx, 9), use_nesterov);
    }));
  }
};

MINITF_REGISTER_TRAINING_OPS(DEVICE_GPU, .Platform("CUDA"), float, CudaGradientDescent,
                             CudaMomentum, CudaAdam);
#endif  // MINITF_WITH_CUDA
#undef MINITF_REGISTER_TRAINING_OPS

}  // namespace
}  // namespace minitf
