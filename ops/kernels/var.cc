#include "ops/kernels/var.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "runtime/node_def_util.h"

namespace minitf {

absl::StatusOr<const ResourceHandle*> HandleFromInput(OpKernelContext* ctx, int input) {
  const Tensor& t = ctx->input(input);
  if (t.dtype() != DT_RESOURCE || t.NumElements() != 1 || t.dims() != 0) {
    return AttachNodeName(
        absl::InvalidArgumentError(absl::StrCat(
            "input ", input, " must be a resource handle (a scalar of type resource), got ",
            DataTypeString(t.dtype()), " of shape ", t.shape().DebugString())),
        ctx->op_kernel().def());
  }
  return &t.scalar<ResourceHandle>()();
}

absl::Status UninitializedVariableError(const ResourceHandle& handle, const NodeDef& def) {
  // TensorFlow's words, for both a missing and an unassigned variable.
  return AttachNodeName(
      absl::FailedPreconditionError(absl::StrCat(
          "Could not find variable ", handle.name,
          ". This could mean that the variable has been deleted. In TF1, it can also mean the "
          "variable is uninitialized. Debug info: container=",
          handle.container, ", device=", handle.device)),
      def);
}

absl::StatusOr<std::shared_ptr<Var>> LookupResourceVar(OpKernelContext* ctx, int input) {
  const NodeDef& def = ctx->op_kernel().def();
  absl::StatusOr<const ResourceHandle*> handle = HandleFromInput(ctx, input);
  if (!handle.ok()) return handle.status();
  const ResourceHandle& h = **handle;
  if (h.device != ctx->device()->name()) {
    return AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                              "Trying to access resource ", h.name, " located in device ",
                              h.device, " from device ", ctx->device()->name())),
                          def);
  }
  absl::StatusOr<std::shared_ptr<Var>> var =
      ctx->device()->resource_manager()->Lookup<Var>(h.container, h.name);
  if (!var.ok()) return UninitializedVariableError(h, def);
  return var;
}

absl::Status HostCopy(OpKernelContext* /*ctx*/, const Tensor& from, Tensor* to) {
  if (from.TotalBytes() > 0) std::memcpy(to->raw_data(), from.raw_data(), from.TotalBytes());
  return absl::OkStatus();
}

absl::Status PrepareToUpdateVariable(OpKernelContext* ctx, Var* var, DeviceCopyFn copy) {
  if (var->tensor.RefCountIsOne() || var->tensor.NumElements() == 0) return absl::OkStatus();
  Tensor fresh;
  absl::Status s = ctx->allocate_temp(var->tensor.dtype(), var->tensor.shape(), &fresh,
                                      var->alloc_attr);
  if (!s.ok()) return s;
  s = copy(ctx, var->tensor, &fresh);
  if (!s.ok()) return s;
  var->tensor = std::move(fresh);
  return absl::OkStatus();
}

}  // namespace minitf
