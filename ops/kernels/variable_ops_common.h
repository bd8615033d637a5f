// The ref-variable kernels every device shares (variable_ops.cc; the CUDA
// platform's cuda/variable_ops.cc): VariableOp, which hands out a reference
// to its `Var` (var.h); AssignOpBase, Assign's logic with the copy left to
// the device; and InPlaceUpdateOp, the base of the ops that update an
// initialized variable in place (AssignAdd, AssignSub, ScatterAdd,
// ApplyGradientDescent), with TensorFlow's locking.
//
// The update ops receive the reference as input 0 (mutable_input(0) guarded
// by input_ref_mutex(0)), change the tensor, and pass the reference on.
#ifndef MINITF_OPS_KERNELS_VARIABLE_OPS_COMMON_H_
#define MINITF_OPS_KERNELS_VARIABLE_OPS_COMMON_H_

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "ops/kernels/var.h"
#include "platform/mutex.h"
#include "runtime/op_kernel.h"

namespace minitf {

// Looks up (or creates) its Var on the first Compute and keeps a share of it,
// so the references it hands out stay valid as long as the kernel lives.
class VariableOp : public OpKernel {
 public:
  explicit VariableOp(OpKernelConstruction* ctx);

  void Compute(OpKernelContext* ctx) override;
  bool IsExpensive() override { return false; }

 private:
  DataType dtype_ = DT_INVALID;
  std::string container_;
  std::string shared_name_;

  Mutex mu_;
  std::shared_ptr<Var> var_ ABSL_GUARDED_BY(mu_);
};

// ref = value. A ref that is uninitialized, or (with validate_shape=false)
// of another shape, gets a new buffer holding a copy of value; otherwise
// value is copied into the existing buffer, so every holder of the buffer
// sees the new value.
class AssignOpBase : public OpKernel {
 public:
  explicit AssignOpBase(OpKernelConstruction* ctx);

  void Compute(OpKernelContext* ctx) final;

 protected:
  // Copies `from` into `to`, of the same shape, both in this device's
  // memory; errors through ctx.
  virtual void Copy(OpKernelContext* ctx, const Tensor& from, Tensor* to) = 0;

 private:
  bool validate_shape_ = true;
  bool use_locking_ = true;
};

// Base of the ops that update an initialized ref (input 0) in place. With
// use_locking the whole update holds the ref's mutex; without, only reading
// which buffer the ref holds does, and the elements are updated without it
// (TensorFlow's lock-free "Hogwild" updates).
class InPlaceUpdateOp : public OpKernel {
 public:
  explicit InPlaceUpdateOp(OpKernelConstruction* ctx);

  void Compute(OpKernelContext* ctx) final;

 protected:
  // Checks the other inputs against `var` and updates its elements.
  // REQUIRES: var->IsInitialized().
  virtual void Update(OpKernelContext* ctx, Tensor* var) = 0;

  // InvalidArgument naming the node: `input` has not the ref's shape.
  absl::Status ShapeMismatch(absl::string_view input, const Tensor& var,
                             const Tensor& update) const;

 private:
  // Fails the step unless `var` holds a value, then updates it.
  void CheckedUpdate(OpKernelContext* ctx, Tensor* var);
  // The node that produced the ref (the variable, or an op passing it on).
  std::string RefSourceName() const;

  bool use_locking_ = false;
};

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_VARIABLE_OPS_COMMON_H_
