#include "runtime/op_kernel.h"

#include "absl/strings/str_cat.h"
#include "platform/mutex.h"

namespace minitf {
namespace {

// `given`, or when it does not have one entry per arg, every arg in the
// device's own memory (host memory on the CPU).
MemoryTypeVector FillMemoryTypes(MemoryTypeVector given, const std::string& device_type,
                                 size_t num_args) {
  if (given.size() == num_args) return given;
  return MemoryTypeVector(num_args, device_type == DEVICE_CPU ? HOST_MEMORY : DEVICE_MEMORY);
}

}  // namespace

OpKernelConstruction::OpKernelConstruction(std::string device_type, DeviceBase* device,
                                           const NodeDef* def, const OpDef* op_def,
                                           DataTypeVector input_types,
                                           DataTypeVector output_types,
                                           MemoryTypeVector input_memory_types,
                                           MemoryTypeVector output_memory_types)
    : device_type_(std::move(device_type)),
      device_(device),
      def_(def),
      op_def_(op_def),
      input_types_(std::move(input_types)),
      output_types_(std::move(output_types)),
      input_memory_types_(FillMemoryTypes(std::move(input_memory_types), device_type_,
                                          input_types_.size())),
      output_memory_types_(FillMemoryTypes(std::move(output_memory_types), device_type_,
                                           output_types_.size())) {}

void OpKernelConstruction::CtxFailure(const absl::Status& s) {
  if (status_.ok()) status_ = s;
}

OpKernel::OpKernel(OpKernelConstruction* context)
    : def_(context->def()),
      input_types_(context->input_types()),
      output_types_(context->output_types()),
      input_memory_types_(context->input_memory_types()),
      output_memory_types_(context->output_memory_types()) {}

void AsyncOpKernel::Compute(OpKernelContext* context) {
  Notification n;
  ComputeAsync(context, [&n] { n.Notify(); });
  n.WaitForNotification();
}

OpKernelContext::OpKernelContext(Params* params)
    : OpKernelContext(params, params->op_kernel->num_outputs()) {}

OpKernelContext::OpKernelContext(Params* params, int num_outputs)
    : params_(params), outputs_(num_outputs) {}

const Tensor& OpKernelContext::input(int i) const {
  MINITF_CHECK(i >= 0 && i < num_inputs());
  return *params_->inputs[i].tensor;
}

absl::Status OpKernelContext::AllocationError(absl::string_view what,
                                              const absl::Status& status) const {
  return absl::Status(
      status.code(),
      absl::StrCat("Node '", op_kernel().name(), "' (op '", op_kernel().type_string(), "') on ",
                   device()->name(), ": ", what, ": ", status.message()));
}

absl::Status OpKernelContext::allocate_output(int index, const TensorShape& shape,
                                              Tensor** output) {
  if (index < 0 || index >= num_outputs()) {
    return absl::InternalError(absl::StrCat("Node '", op_kernel().name(),
                                            "': output index ", index, " out of range"));
  }
  const DataType dtype = RemoveRefType(expected_output_dtype(index));
  auto tensor = Tensor::Allocate(get_allocator(output_alloc_attr(index)), dtype, shape);
  if (!tensor.ok()) return AllocationError(absl::StrCat("output ", index), tensor.status());
  output_bytes_allocated_ += static_cast<int64_t>(tensor->AllocatedBytes());
  Output& slot = outputs_[index];
  slot.is_set = true;
  slot.value = *std::move(tensor);
  slot.ref = nullptr;
  slot.ref_mutex = nullptr;
  *output = &slot.value;
  return absl::OkStatus();
}

absl::Status OpKernelContext::forward_input_or_allocate_output(
    std::initializer_list<int> candidate_inputs, int output_index, const TensorShape& shape,
    Tensor** output) {
  const DataType dtype = RemoveRefType(expected_output_dtype(output_index));
  Allocator* const allocator = get_allocator(output_alloc_attr(output_index));
  for (int i : candidate_inputs) {
    const TensorValue& in = params_->inputs[i];
    if (in.is_ref() || in.tensor == nullptr) continue;
    Tensor& t = *in.tensor;
    // Reusable only when nobody else can observe the buffer.
    if (t.dtype() != dtype || !t.RefCountIsOne() ||
        t.NumElements() != shape.num_elements() || t.allocator() != allocator) {
      continue;
    }
    Output& slot = outputs_[output_index];
    slot.is_set = true;
    slot.value.CopyFrom(t, shape);
    slot.ref = nullptr;
    slot.ref_mutex = nullptr;
    *output = &slot.value;
    return absl::OkStatus();
  }
  return allocate_output(output_index, shape, output);
}

absl::Status OpKernelContext::allocate_temp(DataType dtype, const TensorShape& shape,
                                            Tensor* out, AllocatorAttributes attrs) {
  auto tensor = Tensor::Allocate(get_allocator(attrs), dtype, shape);
  if (!tensor.ok()) return AllocationError("temporary", tensor.status());
  *out = *std::move(tensor);
  return absl::OkStatus();
}

void OpKernelContext::set_output(int index, const Tensor& tensor) {
  MINITF_CHECK(index >= 0 && index < num_outputs());
  Output& slot = outputs_[index];
  slot.is_set = true;
  slot.value = tensor;
  slot.ref = nullptr;
  slot.ref_mutex = nullptr;
}

void OpKernelContext::set_output_ref(int index, Mutex* mu, Tensor* tensor) {
  MINITF_CHECK(index >= 0 && index < num_outputs());
  Output& slot = outputs_[index];
  slot.is_set = true;
  slot.value = Tensor();
  slot.ref = tensor;
  slot.ref_mutex = mu;
}

void OpKernelContext::forward_ref_input_to_ref_output(int input_index, int output_index) {
  const TensorValue& in = params_->inputs[input_index];
  MINITF_CHECK(in.is_ref());
  set_output_ref(output_index, in.mutex_if_ref, in.tensor);
}

void OpKernelContext::SetStatus(const absl::Status& status) {
  if (status_.ok()) status_ = status;
}

}  // namespace minitf
