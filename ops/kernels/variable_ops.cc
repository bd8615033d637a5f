// Kernels: Variable (and VariableV2), Assign, AssignAdd, AssignSub,
// ScatterAdd and ApplyGradientDescent on CPU, and the shared parts of
// variable_ops_common.h.
#include "ops/kernels/variable_ops_common.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "ops/kernels/var.h"
#include "ops/util/index_values.h"
#include "platform/mutex.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

namespace minitf {

VariableOp::VariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
  OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
  OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &shared_name_));
  if (shared_name_.empty()) shared_name_ = name();
}

void VariableOp::Compute(OpKernelContext* ctx) {
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

namespace {

absl::Status NotARefError(const NodeDef& def) {
  return AttachNodeName(absl::InternalError("input 0 must be a reference"), def);
}

}  // namespace

AssignOpBase::AssignOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
  OP_REQUIRES_OK(ctx, ctx->GetAttr("validate_shape", &validate_shape_));
  OP_REQUIRES_OK(ctx, ctx->GetAttr("use_locking", &use_locking_));
}

void AssignOpBase::Compute(OpKernelContext* ctx) {
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
      Copy(ctx, value, &copy);
      *ref = std::move(copy);
    } else if (use_locking_) {
      Copy(ctx, value, ref);
    } else {
      target = *ref;
    }
  }
  if (target.IsInitialized()) Copy(ctx, value, &target);
  ctx->forward_ref_input_to_ref_output(0, 0);
}

InPlaceUpdateOp::InPlaceUpdateOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
  OP_REQUIRES_OK(ctx, ctx->GetAttr("use_locking", &use_locking_));
}

void InPlaceUpdateOp::Compute(OpKernelContext* ctx) {
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

void InPlaceUpdateOp::CheckedUpdate(OpKernelContext* ctx, Tensor* var) {
  OP_REQUIRES(ctx, var->IsInitialized(),
              AttachNodeName(absl::FailedPreconditionError(absl::StrCat(
                                 "Attempting to use uninitialized value ", RefSourceName())),
                             def()));
  Update(ctx, var);
}

absl::Status InPlaceUpdateOp::ShapeMismatch(absl::string_view input, const Tensor& var,
                                            const Tensor& update) const {
  return AttachNodeName(
      absl::InvalidArgumentError(absl::StrCat(input,
                                              " must have the shape of the ref: ref "
                                              "has shape ",
                                              var.shape().DebugString(), ", ", input,
                                              " has shape ", update.shape().DebugString())),
      def());
}

std::string InPlaceUpdateOp::RefSourceName() const {
  if (def().input.empty()) return "<input 0>";
  const std::string& input = def().input[0];
  return input.substr(0, input.find(':'));
}

namespace {

template <typename T>
class AssignOp : public AssignOpBase {
 public:
  using AssignOpBase::AssignOpBase;

 protected:
  void Copy(OpKernelContext* ctx, const Tensor& from, Tensor* to) override {
    to->flat<T>().device(ctx->eigen_cpu_device()) = from.flat<T>();
  }
};

// ref += value (kAdd) or ref -= value.
enum class UpdateKind { kAdd, kSub };
template <typename T, UpdateKind kind>
class AssignUpdateOp : public InPlaceUpdateOp {
 public:
  using InPlaceUpdateOp::InPlaceUpdateOp;

 protected:
  void Update(OpKernelContext* ctx, Tensor* var) override {
    const Tensor& value = ctx->input(1);
    OP_REQUIRES(ctx, value.shape() == var->shape(), ShapeMismatch("value", *var, value));
    if constexpr (kind == UpdateKind::kAdd) {
      var->flat<T>().device(ctx->eigen_cpu_device()) += value.flat<T>();
    } else {
      var->flat<T>().device(ctx->eigen_cpu_device()) -= value.flat<T>();
    }
  }
};

// ref[indices[i], ...] += updates[i, ...] (a scalar update is added to
// every element of each row named). Every index is checked before any row
// changes, so a bad index leaves the variable as it was.
template <typename T>
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
    absl::StatusOr<std::vector<int64_t>> rows = IndexValues(indices, "indices");
    OP_REQUIRES(ctx, rows.ok(), AttachNodeName(rows.status(), def()));
    const int64_t limit = var->dim_size(0);
    for (size_t i = 0; i < rows->size(); ++i) {
      OP_REQUIRES(ctx, (*rows)[i] >= 0 && (*rows)[i] < limit,
                  Invalid(absl::StrCat("indices[", i, "] = ", (*rows)[i], " is not in [0, ",
                                       limit, ")")));
    }
    const int64_t row_size = limit == 0 ? 0 : var->NumElements() / limit;
    T* out = var->flat<T>().data();
    const T* in = updates.flat<T>().data();
    const bool scalar = updates.dims() == 0;
    for (size_t i = 0; i < rows->size(); ++i) {
      T* row = out + (*rows)[i] * row_size;
      const T* update = scalar ? in : in + static_cast<int64_t>(i) * row_size;
      for (int64_t k = 0; k < row_size; ++k) row[k] += update[scalar ? 0 : k];
    }
  }

 private:
  absl::Status Invalid(absl::string_view message) const {
    return AttachNodeName(absl::InvalidArgumentError(message), def());
  }
};

// var -= alpha * delta.
template <typename T>
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
    var->flat<T>().device(ctx->eigen_cpu_device()) -= delta.flat<T>() * alpha.scalar<T>()();
  }
};

REGISTER_KERNEL_BUILDER(Name("Variable").Device(DEVICE_CPU), VariableOp);
REGISTER_KERNEL_BUILDER(Name("VariableV2").Device(DEVICE_CPU), VariableOp);

#define MINITF_REGISTER_ASSIGN(T) \
  REGISTER_KERNEL_BUILDER(Name("Assign").Device(DEVICE_CPU).TypeConstraint<T>("T"), AssignOp<T>)
MINITF_REGISTER_ASSIGN(float);
MINITF_REGISTER_ASSIGN(double);
MINITF_REGISTER_ASSIGN(int32_t);
MINITF_REGISTER_ASSIGN(int64_t);
MINITF_REGISTER_ASSIGN(bool);
#undef MINITF_REGISTER_ASSIGN

#define MINITF_REGISTER_ASSIGN_ADD(T)                                                  \
  REGISTER_KERNEL_BUILDER(Name("AssignAdd").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          AssignUpdateOp<T, UpdateKind::kAdd>);                         \
  REGISTER_KERNEL_BUILDER(Name("AssignSub").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          AssignUpdateOp<T, UpdateKind::kSub>)
MINITF_REGISTER_ASSIGN_ADD(float);
MINITF_REGISTER_ASSIGN_ADD(double);
MINITF_REGISTER_ASSIGN_ADD(int32_t);
MINITF_REGISTER_ASSIGN_ADD(int64_t);
#undef MINITF_REGISTER_ASSIGN_ADD

#define MINITF_REGISTER_SCATTER_ADD(T)                                                      \
  REGISTER_KERNEL_BUILDER(                                                                  \
      Name("ScatterAdd").Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint<int32_t>( \
          "Tindices"),                                                                      \
      ScatterAddOp<T>);                                                                     \
  REGISTER_KERNEL_BUILDER(                                                                  \
      Name("ScatterAdd").Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint<int64_t>( \
          "Tindices"),                                                                      \
      ScatterAddOp<T>)
MINITF_REGISTER_SCATTER_ADD(float);
MINITF_REGISTER_SCATTER_ADD(double);
MINITF_REGISTER_SCATTER_ADD(int32_t);
MINITF_REGISTER_SCATTER_ADD(int64_t);
#undef MINITF_REGISTER_SCATTER_ADD

#define MINITF_REGISTER_APPLY_GRADIENT_DESCENT(T)                                                 \
  REGISTER_KERNEL_BUILDER(Name("ApplyGradientDescent").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          ApplyGradientDescentOp<T>)
MINITF_REGISTER_APPLY_GRADIENT_DESCENT(float);
MINITF_REGISTER_APPLY_GRADIENT_DESCENT(double);
#undef MINITF_REGISTER_APPLY_GRADIENT_DESCENT

}  // namespace
}  // namespace minitf
