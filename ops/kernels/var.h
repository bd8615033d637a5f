// Var: the state behind a variable: a tensor and the mutex that guards it,
// kept in a device's ResourceMgr so the value outlives steps and executors.
// A ref variable's kernel (Variable, VariableV2) outputs a reference to
// `tensor` (with `mu`), which Assign, AssignAdd, ApplyGradientDescent...
// change; a resource variable (VarHandleOp) is found by the ResourceHandle
// its ops take (LookupResourceVar), created by the first AssignVariableOp.
//
//   auto var = device->resource_manager()->LookupOrCreate<Var>(
//       container, name, [] { return std::make_unique<Var>(DT_FLOAT); });
//   ctx->set_output_ref(0, &(*var)->mu, &(*var)->tensor);
//
// Thread safety: which buffer `tensor` holds, and its shape, change only
// under `mu`. Updates with use_locking=false write the elements without `mu`,
// as TensorFlow's do. Resource variables copy on write: ReadVariableOp
// outputs share `tensor`'s buffer, and an update first gives the variable a
// buffer of its own when the current one is shared (PrepareToUpdateVariable),
// so a value once read never changes.
#ifndef MINITF_OPS_KERNELS_VAR_H_
#define MINITF_OPS_KERNELS_VAR_H_

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/status/statusor.h"
#include "platform/mutex.h"
#include "runtime/op_kernel.h"
#include "runtime/resource_mgr.h"
#include "runtime/tensor.h"
#include "runtime/types.h"

namespace minitf {

class Var : public ResourceBase {
 public:
  explicit Var(DataType dtype) : dtype(dtype) {}

  // False until the first Assign gives the tensor a type and a buffer.
  bool initialized() const ABSL_SHARED_LOCKS_REQUIRED(mu) { return tensor.IsInitialized(); }

  std::string DebugString() const override {
    MutexLock lock(&mu);
    if (!tensor.IsInitialized()) {
      return absl::StrCat("Var<", DataTypeString(dtype), ", uninitialized>");
    }
    return absl::StrCat("Var<", DataTypeString(dtype), " ", tensor.shape().DebugString(), ">");
  }

  // Constant after construction: the element type every value must have.
  const DataType dtype;

  mutable Mutex mu;
  // The value; DT_INVALID (uninitialized) until assigned.
  Tensor tensor ABSL_GUARDED_BY(mu);
  // Where a resource variable's value lives on its device: the memory its
  // dtype's values have there (host memory for int32 on a GPU).
  AllocatorAttributes alloc_attr ABSL_GUARDED_BY(mu);
};

// The ResourceHandle of input `input` of `ctx`, a DT_RESOURCE scalar.
// InvalidArgument (naming the node) when the input is not one.
absl::StatusOr<const ResourceHandle*> HandleFromInput(OpKernelContext* ctx, int input);

// The resource variable that input `input` (a handle) names, from the
// device's ResourceMgr. FailedPrecondition naming the variable when it does
// not exist (never assigned, so uninitialized, or destroyed);
// InvalidArgument when the handle names a resource of another device.
absl::StatusOr<std::shared_ptr<Var>> LookupResourceVar(OpKernelContext* ctx, int input);

// The FailedPrecondition for reading variable `handle`, which has no value.
absl::Status UninitializedVariableError(const ResourceHandle& handle, const NodeDef& def);

// Copies `from` into `to` (the same number of bytes, both in the memory the
// kernel's device keeps them in); a device's kernels supply their own.
using DeviceCopyFn = absl::Status (*)(OpKernelContext* ctx, const Tensor& from, Tensor* to);

// DeviceCopyFn for memory the kernel's thread may touch (the CPU, SimGPU).
absl::Status HostCopy(OpKernelContext* ctx, const Tensor& from, Tensor* to);

// Gives `var` a buffer of its own (a copy of its value, in var->alloc_attr
// memory, made by `copy`) when its tensor's buffer is shared with readers,
// so that an in-place update does not change what they read.
// REQUIRES: var->tensor is initialized.
absl::Status PrepareToUpdateVariable(OpKernelContext* ctx, Var* var, DeviceCopyFn copy = &HostCopy)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(var->mu);

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_VAR_H_
