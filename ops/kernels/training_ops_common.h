// What the optimizer update kernels share: each optimizer's inputs (its
// variables, scalars and gradient, by index and TensorFlow's name), the
// checks of them, and ApplyRefOp, the update of ref variables with
// TensorFlow's locking.
//
// A device supplies an optimizer as a struct deriving from one of the
// *Signature structs below with
//   static void Apply(OpKernelContext* ctx, Tensor* const* vars, bool use_nesterov);
// which updates the initialized, checked variables `vars` (in kVars order)
// from the context's other inputs, reporting errors through ctx.
//
//   REGISTER_KERNEL_BUILDER(Name("ApplyMomentum").Device(DEVICE_CPU)...,
//                           ApplyRefOp<Momentum<float>>);
#ifndef MINITF_OPS_KERNELS_TRAINING_OPS_COMMON_H_
#define MINITF_OPS_KERNELS_TRAINING_OPS_COMMON_H_

#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "platform/mutex.h"
#include "runtime/op_kernel.h"
#include "runtime/op_requires.h"

namespace minitf {

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
      return AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                                name, " is not a scalar: ", ctx->input(index).shape().DebugString())),
                            def);
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

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_TRAINING_OPS_COMMON_H_
