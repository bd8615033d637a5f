// Kernels: Variable (and VariableV2), Assign, AssignAdd, AssignSub,
// ScatterAdd and ApplyGradientDescent on the CPU, and the same for float on
// CUDA GPUs (the arithmetic is cwise_ops_gpu.h's, training_ops_gpu.cu's and
// scatter_add_gpu.cu's), so a variable and its updates stay on the GPU
// (reference edges keep them on one device).
//
// VariableOp hands out a reference to its `Var` (var.h); AssignOp is Assign's
// logic; InPlaceUpdateOp is the base of the ops that update an initialized
// variable in place, with TensorFlow's locking. They receive the reference
// as input 0 (mutable_input(0) guarded by input_ref_mutex(0)), change the
// tensor, and pass the reference on. Checks, errors and locking are the same
// on every device; a device supplies only the copy and the arithmetic, as a
// struct with
//   static absl::Status Copy(OpKernelContext*, const Tensor& from, Tensor* to);
//   static absl::Status Update(OpKernelContext*, UpdateKind, const Tensor& value, Tensor* var);
//   static absl::Status ApplyGradientDescent(OpKernelContext*, const Tensor& alpha,
//                                            const Tensor& delta, Tensor* var);
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "ops/kernels/index_checks.h"
#include "ops/kernels/var.h"
#include "ops/util/index_values.h"
#include "platform/mutex.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

#ifdef MINITF_WITH_CUDA
#include "ops/kernels/cuda/cuda_indices.h"
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/cwise_ops_gpu.h"
#include "ops/kernels/scatter_add_gpu.h"
#include "ops/kernels/training_ops_gpu.h"
#include "platform/status_macros.h"
#endif

namespace minitf {
namespace {

// Looks up (or creates) its Var on the first Compute and keeps a share of it,
// so the references it hands out stay valid as long as the kernel lives.
class VariableOp : public OpKernel {
 public:
  explicit VariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &shared_name_));
    if (shared_name_.empty()) shared_name_ = name();
  }

  void Compute(OpKernelContext* ctx) override {
    MutexLock lock(&mu_);
    if (var_ == nullptr) {
      auto var = ctx->device()->resource_manager()->LookupOrCreate<Var>(
          container_, shared_name_, [this] { return std::make_unique<Var>(dtype_); });
      OP_REQUIRES(ctx, var.ok(), AttachNodeName(var.status(), def()));
      OP_REQUIRES(ctx, (*var)->dtype == dtype_,
                  AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                                     "variable '", container_, "/", shared_name_, "' holds ",
                                     DataTypeString((*var)->dtype), " but this node's dtype is ",
                                     DataTypeString(dtype_))),
                                 def()));
      var_ = *std::move(var);
    }
    ctx->set_output_ref(0, &var_->mu, &var_->tensor);
  }

  bool IsExpensive() override { return false; }

 private:
  DataType dtype_ = DT_INVALID;
  std::string container_;
  std::string shared_name_;

  Mutex mu_;
  std::shared_ptr<Var> var_ ABSL_GUARDED_BY(mu_);
};

absl::Status NotARefError(const NodeDef& def) {
  return AttachNodeName(absl::InternalError("input 0 must be a reference"), def);
}

// ref = value. A ref that is uninitialized, or (with validate_shape=false)
// of another shape, gets a new buffer holding a copy of value; otherwise
// value is copied into the existing buffer, so every holder of the buffer
// sees the new value.
template <typename Device>
class AssignOp : public OpKernel {
 public:
  explicit AssignOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("validate_shape", &validate_shape_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_locking", &use_locking_));
  }

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(ctx, ctx->input_is_ref(0), NotARefError(def()));
    const Tensor& value = ctx->input(1);
    Tensor target;  // Shares the ref's buffer when copying without the lock.
    {
      MutexLock lock(ctx->input_ref_mutex(0));
      Tensor* ref = ctx->mutable_input(0);
      const bool initialized = ref->IsInitialized();
      if (initialized && ref->shape() != value.shape()) {
        OP_REQUIRES(ctx, !validate_shape_,
                    AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                                       "Assign requires shapes of both tensors to match: "
                                       "ref has shape ",
                                       ref->shape().DebugString(), ", value has shape ",
                                       value.shape().DebugString())),
                                   def()));
      }
      if (!initialized || ref->shape() != value.shape()) {
        // In the memory the reference lives in (host memory for int32 on a
        // GPU: memory_types.h).
        Tensor copy;
        OP_REQUIRES_OK(ctx, ctx->allocate_temp(value.dtype(), value.shape(), &copy,
                                               ctx->output_alloc_attr(0)));
        OP_REQUIRES_OK(ctx, Device::Copy(ctx, value, &copy));
        *ref = std::move(copy);
      } else if (use_locking_) {
        OP_REQUIRES_OK(ctx, Device::Copy(ctx, value, ref));
      } else {
        target = *ref;
      }
    }
    if (target.IsInitialized()) OP_REQUIRES_OK(ctx, Device::Copy(ctx, value, &target));
    ctx->forward_ref_input_to_ref_output(0, 0);
  }

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
  explicit InPlaceUpdateOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_locking", &use_locking_));
  }

  void Compute(OpKernelContext* ctx) final {
    OP_REQUIRES(ctx, ctx->input_is_ref(0), NotARefError(def()));
    if (use_locking_) {
      MutexLock lock(ctx->input_ref_mutex(0));
      CheckedUpdate(ctx, ctx->mutable_input(0));
    } else {
      Tensor var;  // Shares the ref's buffer.
      {
        MutexLock lock(ctx->input_ref_mutex(0));
        var = *ctx->mutable_input(0);
      }
      CheckedUpdate(ctx, &var);
    }
    if (ctx->status().ok()) ctx->forward_ref_input_to_ref_output(0, 0);
  }

 protected:
  // Checks the other inputs against `var` and updates its elements.
  // REQUIRES: var->IsInitialized().
  virtual void Update(OpKernelContext* ctx, Tensor* var) = 0;

  // InvalidArgument naming the node: `input` has not the ref's shape.
  absl::Status ShapeMismatch(absl::string_view input, const Tensor& var,
                             const Tensor& update) const {
    return AttachNodeName(
        absl::InvalidArgumentError(absl::StrCat(input,
                                                " must have the shape of the ref: ref "
                                                "has shape ",
                                                var.shape().DebugString(), ", ", input,
                                                " has shape ", update.shape().DebugString())),
        def());
  }

 private:
  // Fails the step unless `var` holds a value, then updates it.
  void CheckedUpdate(OpKernelContext* ctx, Tensor* var) {
    OP_REQUIRES(ctx, var->IsInitialized(),
                AttachNodeName(absl::FailedPreconditionError(absl::StrCat(
                                   "Attempting to use uninitialized value ", RefSourceName())),
                               def()));
    Update(ctx, var);
  }

  // The node that produced the ref (the variable, or an op passing it on).
  std::string RefSourceName() const {
    if (def().input.empty()) return "<input 0>";
    const std::string& input = def().input[0];
    return input.substr(0, input.find(':'));
  }

  bool use_locking_ = false;
};

// ref += value (kAdd) or ref -= value.
enum class UpdateKind { kAdd, kSub };
template <typename Device, UpdateKind kKind>
class AssignUpdateOp : public InPlaceUpdateOp {
 public:
  using InPlaceUpdateOp::InPlaceUpdateOp;

 protected:
  void Update(OpKernelContext* ctx, Tensor* var) override {
    const Tensor& value = ctx->input(1);
    OP_REQUIRES(ctx, value.shape() == var->shape(), ShapeMismatch("value", *var, value));
    if (var->NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, Device::Update(ctx, kKind, value, var));
  }
};

// ref[indices[i], ...] += updates[i, ...] (a scalar update is added to
// every element of each row named). Every index is checked before any row
// changes, so a bad index leaves the variable as it was. A device supplies
//   FindBadIndex, by inheriting HostIndexCheck or CudaIndexCheck;
//   static absl::Status ScatterAdd(OpKernelContext*, const Tensor& updates, Tensor* var);
// (the indices are input 1).
template <typename Device>
class ScatterAddOp : public InPlaceUpdateOp {
 public:
  using InPlaceUpdateOp::InPlaceUpdateOp;

 protected:
  void Update(OpKernelContext* ctx, Tensor* var) override {
    const Tensor& indices = ctx->input(1);
    const Tensor& updates = ctx->input(2);
    OP_REQUIRES(ctx, var->dims() >= 1,
                Invalid(absl::StrCat("params must be at least 1-D, got shape ",
                                     var->shape().DebugString())));
    TensorShape want = indices.shape();
    for (int d = 1; d < var->dims(); ++d) want.AddDim(var->dim_size(d));
    OP_REQUIRES(ctx, updates.dims() == 0 || updates.shape() == want,
                Invalid(absl::StrCat("Must have updates.shape = indices.shape + "
                                     "params.shape[1:] or updates.shape = [], got "
                                     "updates.shape ",
                                     updates.shape().DebugString(), ", indices.shape ",
                                     indices.shape().DebugString(), ", params.shape ",
                                     var->shape().DebugString())));
    const int64_t limit = var->dim_size(0);
    absl::StatusOr<std::optional<BadIndex>> bad = Device::FindBadIndex(ctx, 1, 0, limit);
    OP_REQUIRES(ctx, bad.ok(), bad.status());
    OP_REQUIRES(ctx, !bad->has_value(),
                Invalid(absl::StrCat("indices[", (*bad)->position, "] = ", (*bad)->value,
                                     " is not in [0, ", limit, ")")));
    if (indices.NumElements() == 0 || var->NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, Device::ScatterAdd(ctx, updates, var));
  }

 private:
  absl::Status Invalid(absl::string_view message) const {
    return AttachNodeName(absl::InvalidArgumentError(message), def());
  }
};

// var -= alpha * delta.
template <typename Device>
class ApplyGradientDescentOp : public InPlaceUpdateOp {
 public:
  using InPlaceUpdateOp::InPlaceUpdateOp;

 protected:
  void Update(OpKernelContext* ctx, Tensor* var) override {
    const Tensor& alpha = ctx->input(1);
    const Tensor& delta = ctx->input(2);
    OP_REQUIRES(
        ctx, alpha.dims() == 0,
        AttachNodeName(absl::InvalidArgumentError(absl::StrCat("alpha must be a scalar, got shape ",
                                                               alpha.shape().DebugString())),
                       def()));
    OP_REQUIRES(ctx, delta.shape() == var->shape(), ShapeMismatch("delta", *var, delta));
    if (var->NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, Device::ApplyGradientDescent(ctx, alpha, delta, var));
  }
};

template <typename T>
struct CpuVariable {
  static absl::Status Copy(OpKernelContext* ctx, const Tensor& from, Tensor* to) {
    to->flat<T>().device(ctx->eigen_cpu_device()) = from.flat<T>();
    return absl::OkStatus();
  }
  static absl::Status Update(OpKernelContext* ctx, UpdateKind kind, const Tensor& value,
                             Tensor* var) {
    if (kind == UpdateKind::kAdd) {
      var->flat<T>().device(ctx->eigen_cpu_device()) += value.flat<T>();
    } else {
      var->flat<T>().device(ctx->eigen_cpu_device()) -= value.flat<T>();
    }
    return absl::OkStatus();
  }
  static absl::Status ApplyGradientDescent(OpKernelContext* ctx, const Tensor& alpha,
                                           const Tensor& delta, Tensor* var) {
    var->flat<T>().device(ctx->eigen_cpu_device()) -= delta.flat<T>() * alpha.scalar<T>()();
    return absl::OkStatus();
  }
};

template <typename T>
struct CpuScatter : HostIndexCheck {
  static absl::Status ScatterAdd(OpKernelContext* ctx, const Tensor& updates, Tensor* var) {
    absl::StatusOr<std::vector<int64_t>> rows = IndexValues(ctx->input(1), "indices");
    if (!rows.ok()) return rows.status();
    const int64_t row_size = var->NumElements() / var->dim_size(0);
    T* out = var->flat<T>().data();
    const T* in = updates.flat<T>().data();
    const bool scalar = updates.dims() == 0;
    const int64_t count = static_cast<int64_t>(rows->size());
    // Each thread takes a range of columns in every row, so a row named
    // twice is never updated by two threads at once, and each element gets
    // its additions in the order of the indices, whatever the split.
    const Eigen::TensorOpCost cost(2.0 * count * sizeof(T), count * sizeof(T), count);
    ctx->eigen_cpu_device().parallelFor(row_size, cost, [&](Eigen::Index begin, Eigen::Index end) {
      for (int64_t i = 0; i < count; ++i) {
        T* row = out + (*rows)[i] * row_size;
        if (scalar) {
          for (int64_t k = begin; k < end; ++k) row[k] += in[0];
        } else {
          const T* update = in + i * row_size;
          for (int64_t k = begin; k < end; ++k) row[k] += update[k];
        }
      }
    });
    return absl::OkStatus();
  }
};

REGISTER_KERNEL_BUILDER(Name("Variable").Device(DEVICE_CPU), VariableOp);
REGISTER_KERNEL_BUILDER(Name("VariableV2").Device(DEVICE_CPU), VariableOp);

#define MINITF_REGISTER_ASSIGN(T)                                                       \
  REGISTER_KERNEL_BUILDER(Name("Assign").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          AssignOp<CpuVariable<T>>)
MINITF_REGISTER_ASSIGN(float);
MINITF_REGISTER_ASSIGN(double);
MINITF_REGISTER_ASSIGN(int32_t);
MINITF_REGISTER_ASSIGN(int64_t);
MINITF_REGISTER_ASSIGN(bool);
#undef MINITF_REGISTER_ASSIGN

#define MINITF_REGISTER_ASSIGN_ADD(T)                                                  \
  REGISTER_KERNEL_BUILDER(Name("AssignAdd").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          AssignUpdateOp<CpuVariable<T>, UpdateKind::kAdd>);            \
  REGISTER_KERNEL_BUILDER(Name("AssignSub").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          AssignUpdateOp<CpuVariable<T>, UpdateKind::kSub>)
MINITF_REGISTER_ASSIGN_ADD(float);
MINITF_REGISTER_ASSIGN_ADD(double);
MINITF_REGISTER_ASSIGN_ADD(int32_t);
MINITF_REGISTER_ASSIGN_ADD(int64_t);
#undef MINITF_REGISTER_ASSIGN_ADD

#define MINITF_REGISTER_SCATTER_ADD(T)                              \
  REGISTER_KERNEL_BUILDER(Name("ScatterAdd")                        \
                              .Device(DEVICE_CPU)                   \
                              .TypeConstraint<T>("T")               \
                              .TypeConstraint<int32_t>("Tindices"), \
                          ScatterAddOp<CpuScatter<T>>);             \
  REGISTER_KERNEL_BUILDER(Name("ScatterAdd")                        \
                              .Device(DEVICE_CPU)                   \
                              .TypeConstraint<T>("T")               \
                              .TypeConstraint<int64_t>("Tindices"), \
                          ScatterAddOp<CpuScatter<T>>)
MINITF_REGISTER_SCATTER_ADD(float);
MINITF_REGISTER_SCATTER_ADD(double);
MINITF_REGISTER_SCATTER_ADD(int32_t);
MINITF_REGISTER_SCATTER_ADD(int64_t);
#undef MINITF_REGISTER_SCATTER_ADD

#define MINITF_REGISTER_APPLY_GRADIENT_DESCENT(T)                                                 \
  REGISTER_KERNEL_BUILDER(Name("ApplyGradientDescent").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          ApplyGradientDescentOp<CpuVariable<T>>)
MINITF_REGISTER_APPLY_GRADIENT_DESCENT(float);
MINITF_REGISTER_APPLY_GRADIENT_DESCENT(double);
#undef MINITF_REGISTER_APPLY_GRADIENT_DESCENT

#ifdef MINITF_WITH_CUDA
// float only. The scalar alpha is read on the device, so nothing waits for
// it on the host.
struct CudaVariable {
  static absl::Status Copy(OpKernelContext* ctx, const Tensor& from, Tensor* to) {
    return CopyOnComputeStream(ctx, from, to);
  }
  static absl::Status Update(OpKernelContext* ctx, UpdateKind kind, const Tensor& value,
                             Tensor* var) {
    const gpu::BinaryOpKind op =
        kind == UpdateKind::kAdd ? gpu::BinaryOpKind::kAdd : gpu::BinaryOpKind::kSub;
    return LaunchOnComputeStream(ctx, ctx->op_kernel().type_string(), [&](cudaStream_t stream) {
      return gpu::LaunchBinaryOp(stream, op, gpu::FlatLayout(var->NumElements()),
                                 var->data<float>(), value.data<float>(), var->data<float>());
    });
  }
  static absl::Status ApplyGradientDescent(OpKernelContext* ctx, const Tensor& alpha,
                                           const Tensor& delta, Tensor* var) {
    return LaunchOnComputeStream(ctx, "ApplyGradientDescent", [&](cudaStream_t stream) {
      return gpu::LaunchApplyGradientDescent(stream, var->NumElements(), var->data<float>(),
                                             alpha.data<float>(), delta.data<float>());
    });
  }
};

// float, by atomicAdd. int32 indices stay in host memory (as every int32
// tensor on a GPU: memory_types.h), are checked there and copied over.
struct CudaScatter : CudaIndexCheck {
  static absl::Status ScatterAdd(OpKernelContext* ctx, const Tensor& updates, Tensor* var) {
    MINITF_ASSIGN_OR_RETURN(Tensor indices, IndicesOnDevice(ctx, 1));
    return LaunchOnComputeStream(ctx, "ScatterAdd", [&](cudaStream_t stream) {
      return gpu::LaunchScatterAdd(stream, var->data<float>(),
                                   var->NumElements() / var->dim_size(0), indices.raw_data(),
                                   indices.dtype() == DT_INT64, indices.NumElements(),
                                   updates.data<float>(), updates.dims() == 0);
    });
  }
};

#define MINITF_REGISTER_CUDA_FLOAT(op, attr, ...)                                               \
  REGISTER_KERNEL_BUILDER(                                                                      \
      Name(op).Device(DEVICE_GPU).Platform("CUDA").TypeConstraint<float>(attr), __VA_ARGS__)
MINITF_REGISTER_CUDA_FLOAT("Variable", "dtype", VariableOp);
MINITF_REGISTER_CUDA_FLOAT("VariableV2", "dtype", VariableOp);
MINITF_REGISTER_CUDA_FLOAT("Assign", "T", AssignOp<CudaVariable>);
MINITF_REGISTER_CUDA_FLOAT("AssignAdd", "T", AssignUpdateOp<CudaVariable, UpdateKind::kAdd>);
MINITF_REGISTER_CUDA_FLOAT("AssignSub", "T", AssignUpdateOp<CudaVariable, UpdateKind::kSub>);
MINITF_REGISTER_CUDA_FLOAT("ApplyGradientDescent", "T", ApplyGradientDescentOp<CudaVariable>);
REGISTER_KERNEL_BUILDER(Name("ScatterAdd")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint<float>("T")
                            .TypeConstraint<int32_t>("Tindices")
                            .HostMemory("indices"),
                        ScatterAddOp<CudaScatter>);
REGISTER_KERNEL_BUILDER(Name("ScatterAdd")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint<float>("T")
                            .TypeConstraint<int64_t>("Tindices"),
                        ScatterAddOp<CudaScatter>);
#undef MINITF_REGISTER_CUDA_FLOAT
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
