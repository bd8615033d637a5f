// Kernels: the optimizer updates ApplyMomentum and ApplyAdam (ref
// variables) and ResourceApplyGradientDescent, ResourceApplyMomentum and
// ResourceApplyAdam (resource variables) on CPU; the SimGPU twins run the
// same code.
//
// One update, two kernels: an optimizer (GradientDescent, Momentum, Adam)
// names its variable inputs (inputs 0..kNumVars-1), its scalar inputs and its
// gradient input (training_ops_common.h), and computes TensorFlow's formula
// (training_ops.cc there); ApplyRefOp gets the variables from references,
// ResourceApplyOp from handles. Both check initialization, shapes and
// scalars the same way.
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
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "ops/kernels/training_ops_common.h"
#include "ops/kernels/var.h"
#include "platform/mutex.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

template <typename T>
struct GradientDescent : GradientDescentSignature {
  static void Apply(OpKernelContext* ctx, Tensor* const* vars, bool /*use_nesterov*/) {
    const T alpha = ctx->input(1).scalar<T>()();
    vars[0]->flat<T>().device(ctx->eigen_cpu_device()) -= ctx->input(2).flat<T>() * alpha;
  }
};

template <typename T>
struct Momentum : MomentumSignature {
  static void Apply(OpKernelContext* ctx, Tensor* const* vars, bool use_nesterov) {
    const auto& d = ctx->eigen_cpu_device();
    auto var = vars[0]->flat<T>();
    auto accum = vars[1]->flat<T>();
    const T lr = ctx->input(2).scalar<T>()();
    const auto grad = ctx->input(3).flat<T>();
    const T momentum = ctx->input(4).scalar<T>()();
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
  static void Apply(OpKernelContext* ctx, Tensor* const* vars, bool use_nesterov) {
    const auto& d = ctx->eigen_cpu_device();
    auto var = vars[0]->flat<T>();
    auto m = vars[1]->flat<T>();
    auto v = vars[2]->flat<T>();
    auto scalar = [ctx](int i) { return ctx->input(i).scalar<T>()(); };
    const T beta1_power = scalar(3), beta2_power = scalar(4), lr = scalar(5);
    const T beta1 = scalar(6), beta2 = scalar(7), epsilon = scalar(8);
    const auto grad = ctx->input(9).flat<T>();
    const T lr_t = lr * std::sqrt(T(1) - beta2_power) / (T(1) - beta1_power);
    m.device(d) += (grad - m) * (T(1) - beta1);
    v.device(d) += (grad.square() - v) * (T(1) - beta2);
    if (use_nesterov) {
      var.device(d) -= ((grad * (T(1) - beta1) + m * beta1) * lr_t) / (v.sqrt() + epsilon);
    } else {
      var.device(d) -= (m * lr_t) / (v.sqrt() + epsilon);
    }
  }
};

// The update on resource variables; no outputs.
template <typename T, template <typename> class Optimizer>
class ResourceApplyOp : public OpKernel {
 public:
  using Opt = Optimizer<T>;
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
      OP_REQUIRES_OK(ctx, PrepareToUpdateVariable(ctx, held[i].get()));
    }
    Opt::Apply(ctx, vars.data(), use_nesterov_);
  }

 private:
  bool use_nesterov_ = false;
};

#define MINITF_REGISTER_REF_APPLY(op, T, Optimizer)                                 \
  REGISTER_KERNEL_BUILDER(Name(op).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          ApplyRefOp<Optimizer<T>>)
#define MINITF_REGISTER_RESOURCE_APPLY(op, T, Optimizer, ...)                    \
  REGISTER_KERNEL_BUILDER(                                                       \
      Name(op).Device(DEVICE_CPU).TypeConstraint<T>("T") __VA_ARGS__, \
      ResourceApplyOp<T, Optimizer>)
#define MINITF_REGISTER_TRAINING_OPS(T)                                                        \
  MINITF_REGISTER_REF_APPLY("ApplyMomentum", T, Momentum);                                     \
  MINITF_REGISTER_REF_APPLY("ApplyAdam", T, Adam);                                             \
  MINITF_REGISTER_RESOURCE_APPLY("ResourceApplyGradientDescent", T, GradientDescent,           \
                                 .HostMemory("var"));                                          \
  MINITF_REGISTER_RESOURCE_APPLY("ResourceApplyMomentum", T, Momentum, .HostMemory("var")      \
                                                                           .HostMemory("accum")); \
  MINITF_REGISTER_RESOURCE_APPLY("ResourceApplyAdam", T, Adam,                                 \
                                 .HostMemory("var").HostMemory("m").HostMemory("v"))
MINITF_REGISTER_TRAINING_OPS(float);
MINITF_REGISTER_TRAINING_OPS(double);
#undef MINITF_REGISTER_TRAINING_OPS
#undef MINITF_REGISTER_RESOURCE_APPLY
#undef MINITF_REGISTER_REF_APPLY

}  // namespace
}  // namespace minitf
