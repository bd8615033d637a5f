// Kernels: VarHandleOp, ReadVariableOp, AssignVariableOp,
// AssignAddVariableOp, AssignSubVariableOp, VarIsInitializedOp and
// DestroyResourceOp on the CPU (their SimGPU twins run the same code), and
// all but the two updates for float variables on CUDA GPUs, so that a
// resource variable and its optimizer (training_ops.cc) stay on the GPU. On
// every device the ops do the same checks; a device supplies only how a value
// is copied within its memory (DeviceCopyFn, var.h).
//
// Handles are HostMemory on every device, as in TensorFlow: host code reads
// them. A variable lives in the ResourceMgr of the device of its VarHandleOp;
// its value in the memory its dtype has there (Var::alloc_attr). The ops
// hold the variable's mutex while they read or change it; updates copy on
// write (var.h), so a ReadVariableOp output is never changed afterwards.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "ops/kernels/var.h"
#include "platform/mutex.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

#ifdef MINITF_WITH_CUDA
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#endif

namespace minitf {
namespace {

// Outputs the handle container/shared_name on this device (the node's name
// when shared_name is empty). Creates nothing: AssignVariableOp does.
class VarHandleOp : public OpKernel {
 public:
  explicit VarHandleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &shared_name_));
    if (shared_name_.empty()) shared_name_ = name();
  }

  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    out->scalar<ResourceHandle>()() =
        ResourceHandle{ctx->device()->name(), container_, shared_name_};
  }

  bool IsExpensive() override { return false; }

 private:
  std::string container_;
  std::string shared_name_;
};

absl::Status WrongDtype(absl::string_view what, DataType expected, DataType got,
                        const NodeDef& def) {
  return AttachNodeName(
      absl::InvalidArgumentError(absl::StrCat("Trying to ", what, " variable with wrong dtype. ",
                                              "Expected ", DataTypeString(expected), " got ",
                                              DataTypeString(got))),
      def);
}

// The variable's value (shares its buffer).
class ReadVariableOp : public OpKernel {
 public:
  explicit ReadVariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<Var>> var = LookupResourceVar(ctx, 0);
    OP_REQUIRES_OK(ctx, var.status());
    Var* v = var->get();
    MutexLock lock(&v->mu);
    OP_REQUIRES(ctx, v->tensor.IsInitialized(),
                UninitializedVariableError(ctx->input(0).scalar<ResourceHandle>()(), def()));
    OP_REQUIRES(ctx, v->tensor.dtype() == dtype_,
                WrongDtype("read", dtype_, v->tensor.dtype(), def()));
    ctx->set_output(0, v->tensor);
  }

  bool IsExpensive() override { return false; }

 private:
  DataType dtype_ = DT_INVALID;
};

// variable = value. The variable is created (with this node's dtype) on
// first use; an existing one must hold `dtype`. Its value is copied into the
// variable's buffer when that has the value's shape and no readers, else
// into a new buffer, by `kCopy`.
template <DeviceCopyFn kCopy>
class AssignVariableOp : public OpKernel {
 public:
  explicit AssignVariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("validate_shape", &validate_shape_));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const ResourceHandle*> handle = HandleFromInput(ctx, 0);
    OP_REQUIRES_OK(ctx, handle.status());
    const ResourceHandle& h = **handle;
    OP_REQUIRES(ctx, h.device == ctx->device()->name(),
                AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                                   "Trying to access resource ", h.name, " located in device ",
                                   h.device, " from device ", ctx->device()->name())),
                               def()));
    const Tensor& value = ctx->input(1);
    auto var = ctx->device()->resource_manager()->LookupOrCreate<Var>(
        h.container, h.name, [this] { return std::make_unique<Var>(dtype_); });
    OP_REQUIRES(ctx, var.ok(), AttachNodeName(var.status(), def()));
    Var* v = var->get();
    OP_REQUIRES(ctx, v->dtype == dtype_, WrongDtype("assign", v->dtype, dtype_, def()));

    MutexLock lock(&v->mu);
    if (validate_shape_ && v->tensor.IsInitialized()) {
      OP_REQUIRES(ctx, v->tensor.shape() == value.shape(),
                  AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                                     "Trying to assign to variable with tensor with wrong shape. "
                                     "Expected ",
                                     v->tensor.shape().DebugString(), " got ",
                                     value.shape().DebugString())),
                                 def()));
    }
    // The value's memory on this device is the variable's.
    v->alloc_attr = ctx->input_alloc_attr(1);
    if (!v->tensor.IsInitialized() || v->tensor.shape() != value.shape() ||
        !v->tensor.RefCountIsOne()) {
      Tensor fresh;
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(dtype_, value.shape(), &fresh, v->alloc_attr));
      v->tensor = std::move(fresh);
    }
    if (value.NumElements() > 0) OP_REQUIRES_OK(ctx, kCopy(ctx, value, &v->tensor));
  }

 private:
  DataType dtype_ = DT_INVALID;
  bool validate_shape_ = false;
};

// variable += value (kAdd) or variable -= value, in place (after copy on
// write).
enum class UpdateKind { kAdd, kSub };
template <typename T, UpdateKind kind>
class AssignUpdateVariableOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<Var>> var = LookupResourceVar(ctx, 0);
    OP_REQUIRES_OK(ctx, var.status());
    Var* v = var->get();
    const Tensor& value = ctx->input(1);
    MutexLock lock(&v->mu);
    OP_REQUIRES(ctx, v->tensor.IsInitialized(),
                UninitializedVariableError(ctx->input(0).scalar<ResourceHandle>()(), def()));
    OP_REQUIRES(ctx, v->tensor.dtype() == DataTypeToEnum<T>::value,
                WrongDtype("update", v->tensor.dtype(), DataTypeToEnum<T>::value, def()));
    OP_REQUIRES(ctx, v->tensor.shape() == value.shape(),
                AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                                   "Cannot update variable with shape ",
                                   v->tensor.shape().DebugString(), " using a Tensor with shape ",
                                   value.shape().DebugString(), ", shapes must be equal.")),
                               def()));
    OP_REQUIRES_OK(ctx, PrepareToUpdateVariable(ctx, v));
    if constexpr (kind == UpdateKind::kAdd) {
      v->tensor.flat<T>().device(ctx->eigen_cpu_device()) += value.flat<T>();
    } else {
      v->tensor.flat<T>().device(ctx->eigen_cpu_device()) -= value.flat<T>();
    }
  }
};

// True when the variable exists and has a value.
class VarIsInitializedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const ResourceHandle*> handle = HandleFromInput(ctx, 0);
    OP_REQUIRES_OK(ctx, handle.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    bool initialized = false;
    if ((*handle)->device == ctx->device()->name()) {
      auto var = ctx->device()->resource_manager()->Lookup<Var>((*handle)->container,
                                                                 (*handle)->name);
      if (var.ok()) {
        MutexLock lock(&(*var)->mu);
        initialized = (*var)->tensor.IsInitialized();
      }
    }
    out->scalar<bool>()() = initialized;
  }

  bool IsExpensive() override { return false; }
};

// Drops the variable from its device's ResourceMgr.
class DestroyResourceOp : public OpKernel {
 public:
  explicit DestroyResourceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("ignore_lookup_error", &ignore_lookup_error_));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const ResourceHandle*> handle = HandleFromInput(ctx, 0);
    OP_REQUIRES_OK(ctx, handle.status());
    absl::Status s =
        ctx->device()->resource_manager()->Delete<Var>((*handle)->container, (*handle)->name);
    if (!s.ok() && !ignore_lookup_error_) ctx->CtxFailure(AttachNodeName(s, def()));
  }

  bool IsExpensive() override { return false; }

 private:
  bool ignore_lookup_error_ = true;
};

REGISTER_KERNEL_BUILDER(Name("VarHandleOp").Device(DEVICE_CPU).HostMemory("resource"),
                        VarHandleOp);
REGISTER_KERNEL_BUILDER(Name("ReadVariableOp").Device(DEVICE_CPU).HostMemory("resource"),
                        ReadVariableOp);
REGISTER_KERNEL_BUILDER(Name("AssignVariableOp").Device(DEVICE_CPU).HostMemory("resource"),
                        AssignVariableOp<&HostCopy>);
REGISTER_KERNEL_BUILDER(Name("VarIsInitializedOp")
                            .Device(DEVICE_CPU)
                            .HostMemory("resource")
                            .HostMemory("is_initialized"),
                        VarIsInitializedOp);
REGISTER_KERNEL_BUILDER(Name("DestroyResourceOp").Device(DEVICE_CPU).HostMemory("resource"),
                        DestroyResourceOp);

#define MINITF_REGISTER_ASSIGN_UPDATE(T)                                                  \
  REGISTER_KERNEL_BUILDER(Name("AssignAddVariableOp")                                     \
                              .Device(DEVICE_CPU)                                         \
                              .TypeConstraint<T>("dtype")                                 \
                              .HostMemory("resource"),                                    \
                          AssignUpdateVariableOp<T, UpdateKind::kAdd>);                   \
  REGISTER_KERNEL_BUILDER(Name("AssignSubVariableOp")                                     \
                              .Device(DEVICE_CPU)                                         \
                              .TypeConstraint<T>("dtype")                                 \
                              .HostMemory("resource"),                                    \
                          AssignUpdateVariableOp<T, UpdateKind::kSub>)
MINITF_REGISTER_ASSIGN_UPDATE(float);
MINITF_REGISTER_ASSIGN_UPDATE(double);
MINITF_REGISTER_ASSIGN_UPDATE(int32_t);
MINITF_REGISTER_ASSIGN_UPDATE(int64_t);
#undef MINITF_REGISTER_ASSIGN_UPDATE

#ifdef MINITF_WITH_CUDA
#define MINITF_REGISTER_CUDA_FLOAT(op, ...)                                               \
  REGISTER_KERNEL_BUILDER(                                                                \
      Name(op).Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>("dtype") __VA_ARGS__)
MINITF_REGISTER_CUDA_FLOAT("VarHandleOp", .HostMemory("resource"), VarHandleOp);
MINITF_REGISTER_CUDA_FLOAT("ReadVariableOp", .HostMemory("resource"), ReadVariableOp);
MINITF_REGISTER_CUDA_FLOAT("AssignVariableOp", .HostMemory("resource"),
                           AssignVariableOp<&CopyOnComputeStream>);
#undef MINITF_REGISTER_CUDA_FLOAT
REGISTER_KERNEL_BUILDER(Name("VarIsInitializedOp")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .HostMemory("resource")
                            .HostMemory("is_initialized"),
                        VarIsInitializedOp);
REGISTER_KERNEL_BUILDER(
    Name("DestroyResourceOp").Device(DEVICE_GPU).Platform("CUDA").HostMemory("resource"),
    DestroyResourceOp);
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
