// OpKernel: the code that computes one node on one device type.
//
// A kernel is created once per node when an executor is built
// (OpKernelConstruction gives it the node's attrs) and its Compute is then
// called once per step, possibly from several threads at once for different
// steps, so Compute must not mutate the kernel without a lock.
//
//   template <typename T>
//   class SquareOp : public OpKernel {
//    public:
//     explicit SquareOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
//     void Compute(OpKernelContext* ctx) override {
//       const Tensor& x = ctx->input(0);
//       Tensor* y = nullptr;
//       OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &y));
//       y->flat<T>().device(ctx->eigen_cpu_device()) = x.flat<T>().square();
//     }
//   };
//
// AsyncOpKernel: a kernel whose work completes later (a receive, a device
// stream callback); it calls `done` exactly once when finished.
#ifndef MINITF_RUNTIME_OP_KERNEL_H_
#define MINITF_RUNTIME_OP_KERNEL_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "platform/mutex.h"
#include "runtime/cancellation.h"
#include "runtime/device_base.h"
#include "runtime/frame_and_iter.h"
#include "runtime/graph_def.h"
#include "runtime/node_def_util.h"
#include "runtime/op_def.h"
#include "runtime/tensor.h"

namespace minitf {

class AsyncOpKernel;
class CallFrameInterface;
class OpKernelContext;
class Rendezvous;

// Hands a closure to a thread (the inter-op pool).
using Runner = std::function<void(std::function<void()>)>;

// Passed to an OpKernel's constructor: the node, its types, its device.
class OpKernelConstruction {
 public:
  // `input_memory_types`/`output_memory_types`: where each arg lives on the
  // device (memory_types.h); empty means HOST_MEMORY on a CPU device and
  // DEVICE_MEMORY elsewhere.
  OpKernelConstruction(std::string device_type, DeviceBase* device, const NodeDef* def,
                       const OpDef* op_def, DataTypeVector input_types,
                       DataTypeVector output_types, MemoryTypeVector input_memory_types = {},
                       MemoryTypeVector output_memory_types = {});

  const NodeDef& def() const { return *def_; }
  const OpDef& op_def() const { return *op_def_; }
  const std::string& device_type() const { return device_type_; }
  DeviceBase* device() const { return device_; }
  Allocator* allocator() const { return device_->GetAllocator(AllocatorAttributes()); }

  int num_inputs() const { return static_cast<int>(input_types_.size()); }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  const DataTypeVector& input_types() const { return input_types_; }
  const DataTypeVector& output_types() const { return output_types_; }
  const MemoryTypeVector& input_memory_types() const { return input_memory_types_; }
  const MemoryTypeVector& output_memory_types() const { return output_memory_types_; }

  template <typename T>
  absl::Status GetAttr(absl::string_view name, T* value) const {
    return GetNodeAttr(*def_, name, value);
  }
  bool HasAttr(absl::string_view name) const { return HasNodeAttr(*def_, name); }

  // The first error a constructor reports fails the kernel's creation.
  void CtxFailure(const absl::Status& s);
  const absl::Status& status() const { return status_; }

 private:
  const std::string device_type_;
  DeviceBase* const device_;  // Not owned.
  const NodeDef* const def_;  // Not owned.
  const OpDef* const op_def_;  // Not owned.
  const DataTypeVector input_types_;
  const DataTypeVector output_types_;
  const MemoryTypeVector input_memory_types_;
  const MemoryTypeVector output_memory_types_;
  absl::Status status_;
};

class OpKernel {
 public:
  explicit OpKernel(OpKernelConstruction* context);
  virtual ~OpKernel() = default;
  OpKernel(const OpKernel&) = delete;
  OpKernel& operator=(const OpKernel&) = delete;

  // Computes the node's outputs from its inputs, reporting errors through
  // `context` (OP_REQUIRES). Thread-safe across steps.
  virtual void Compute(OpKernelContext* context) = 0;

  // Non-null for asynchronous kernels.
  virtual AsyncOpKernel* AsAsync() { return nullptr; }

  // Whether the executor should hand the node to the inter-op pool (true) or
  // run it inline on the thread that made it ready (false: cheap kernels
  // such as Const, Identity and NoOp).
  virtual bool IsExpensive() { return true; }

  const NodeDef& def() const { return def_; }
  const std::string& name() const { return def_.name; }
  const std::string& type_string() const { return def_.op; }
  int num_inputs() const { return static_cast<int>(input_types_.size()); }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  DataType input_type(int i) const { return input_types_[i]; }
  DataType output_type(int i) const { return output_types_[i]; }
  const DataTypeVector& input_types() const { return input_types_; }
  const DataTypeVector& output_types() const { return output_types_; }
  // Where each input and output lives on the kernel's device (see
  // memory_types.h); one entry per input and output.
  const MemoryTypeVector& input_memory_types() const { return input_memory_types_; }
  const MemoryTypeVector& output_memory_types() const { return output_memory_types_; }

 private:
  const NodeDef def_;
  const DataTypeVector input_types_;
  const DataTypeVector output_types_;
  const MemoryTypeVector input_memory_types_;
  const MemoryTypeVector output_memory_types_;
};

class AsyncOpKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  using DoneCallback = std::function<void()>;

  // Starts the work; `done` runs exactly once when the outputs (or an error)
  // are in `context`. `context` stays valid until `done` is called.
  virtual void ComputeAsync(OpKernelContext* context, DoneCallback done) = 0;

  AsyncOpKernel* AsAsync() final { return this; }
  // Runs ComputeAsync and blocks until it is done.
  void Compute(OpKernelContext* context) final;
};

// An input or output slot: a value, or a reference to a tensor owned
// elsewhere (a Variable's), guarded by `mutex_if_ref`.
struct TensorValue {
  Tensor* tensor = nullptr;          // Not owned.
  Mutex* mutex_if_ref = nullptr;  // Non-null iff the slot is a reference.

  bool is_ref() const { return mutex_if_ref != nullptr; }
};

// Everything one Compute call sees: inputs, outputs, device, step.
// Not thread-safe: used by one kernel invocation at a time.
class OpKernelContext {
 public:
  struct Params {
    int64_t step_id = 0;
    DeviceBase* device = nullptr;           // Not owned.
    OpKernel* op_kernel = nullptr;          // Not owned.
    // One per kernel input. The tensors are owned by the caller and must
    // outlive the context; an input whose Tensor is the only user of its
    // buffer may be forwarded (reused) as an output.
    absl::Span<const TensorValue> inputs;
    CallFrameInterface* call_frame = nullptr;              // Not owned; may be null.
    CancellationManager* cancellation_manager = nullptr;   // Not owned; may be null.
    const Runner* runner = nullptr;                        // Not owned; may be null.
    // The node's DeviceContext (Device::FillContextMap); null on devices
    // without their own memory. Not owned.
    DeviceContext* op_device_context = nullptr;
    // Where the step's _Send and _Recv kernels exchange tensors across
    // devices. Not owned; may be null (a step on one device).
    Rendezvous* rendezvous = nullptr;
    // True when a transfer kernel (_Send, _Recv) runs for a dead input: it
    // must pass the deadness on instead of a value (inputs are then empty).
    bool is_input_dead = false;
    // The loop frame and iteration the node runs in (0:0 outside loops);
    // _Send and _Recv put it in their rendezvous key.
    FrameAndIter frame_iter;
    // Records what each output allocation cost, for step stats.
    bool track_allocations = false;
  };

  // One output slot after Compute.
  struct Output {
    bool is_set = false;
    Tensor value;
    // When the output is a reference (Variable, Assign): the referenced
    // tensor and its mutex.
    Tensor* ref = nullptr;
    Mutex* ref_mutex = nullptr;
  };

  explicit OpKernelContext(Params* params);
  // With the kernel's output count known to the caller (the executor keeps
  // it per node), which spares a read of the kernel.
  OpKernelContext(Params* params, int num_outputs);

  int64_t step_id() const { return params_->step_id; }
  DeviceBase* device() const { return params_->device; }
  OpKernel& op_kernel() const { return *params_->op_kernel; }
  CallFrameInterface* call_frame() const { return params_->call_frame; }
  FrameAndIter frame_iter() const { return params_->frame_iter; }
  CancellationManager* cancellation_manager() const { return params_->cancellation_manager; }
  const Runner* runner() const { return params_->runner; }
  Rendezvous* rendezvous() const { return params_->rendezvous; }
  DeviceContext* op_device_context() const { return params_->op_device_context; }
  // See Params::is_input_dead.
  bool is_input_dead() const { return params_->is_input_dead; }
  // A _Recv kernel that received a dead tensor sets this instead of its
  // output; the executor then marks every output of the node dead.
  bool* is_output_dead() { return &is_output_dead_; }
  const Eigen::ThreadPoolDevice& eigen_cpu_device() const {
    return params_->device->eigen_cpu_device();
  }
  Allocator* get_allocator(AllocatorAttributes attrs = {}) const {
    return params_->device->GetAllocator(attrs);
  }
  // Where input or output i lives: on_host for a HOST_MEMORY arg of a
  // kernel on a device with memory of its own (memory_types.h).
  AllocatorAttributes input_alloc_attr(int i) const {
    AllocatorAttributes attrs;
    attrs.on_host = params_->op_kernel->input_memory_types()[i] == HOST_MEMORY;
    return attrs;
  }
  AllocatorAttributes output_alloc_attr(int i) const {
    AllocatorAttributes attrs;
    attrs.on_host = params_->op_kernel->output_memory_types()[i] == HOST_MEMORY;
    return attrs;
  }

  int num_inputs() const { return static_cast<int>(params_->inputs.size()); }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  DataType input_dtype(int i) const { return params_->op_kernel->input_type(i); }
  DataType expected_output_dtype(int i) const { return params_->op_kernel->output_type(i); }

  // False for an input that carries no value (a Merge input on an untaken
  // branch).
  bool has_input(int i) const { return params_->inputs[i].tensor != nullptr; }
  // The value of input i. For a reference input this is the referenced
  // tensor as it is now (read without the lock: use mutable_input to write).
  const Tensor& input(int i) const;
  bool input_is_ref(int i) const { return params_->inputs[i].is_ref(); }
  // The referenced tensor of a reference input; hold input_ref_mutex(i) while
  // touching it unless `lock_held` says the caller already does.
  Tensor* mutable_input(int i) const { return params_->inputs[i].tensor; }
  Mutex* input_ref_mutex(int i) const { return params_->inputs[i].mutex_if_ref; }

  // Allocates output i from the device's allocator (its host allocator for a
  // HOST_MEMORY output). ResourceExhausted names
  // the node, its device, the shape, type and size, and the allocator when
  // memory runs out.
  absl::Status allocate_output(int index, const TensorShape& shape, Tensor** output);
  // Reuses the buffer of the first candidate input that has the right type
  // and size and no other user; otherwise allocates.
  absl::Status forward_input_or_allocate_output(std::initializer_list<int> candidate_inputs,
                                                int output_index, const TensorShape& shape,
                                                Tensor** output);
  // A scratch tensor from the device's allocator (`attrs.on_host`: its host
  // allocator); errors as allocate_output's.
  absl::Status allocate_temp(DataType dtype, const TensorShape& shape, Tensor* out,
                             AllocatorAttributes attrs = {});
  // Sets output i to a tensor computed elsewhere (shares its buffer).
  void set_output(int index, const Tensor& tensor);
  // Makes output i a reference to `tensor` guarded by `mu` (not owned).
  void set_output_ref(int index, Mutex* mu, Tensor* tensor);
  // Passes reference input `input_index` on as reference output `output_index`.
  void forward_ref_input_to_ref_output(int input_index, int output_index);

  // Moves output i out (for the executor). REQUIRES: called after Compute.
  Output* mutable_output_slot(int index) { return &outputs_[index]; }

  // Errors: the first one sticks and fails the node.
  void SetStatus(const absl::Status& status);
  void CtxFailure(const absl::Status& status) { SetStatus(status); }
  const absl::Status& status() const { return status_; }

  // Bytes allocated for outputs by this invocation (for step stats).
  int64_t output_bytes_allocated() const { return output_bytes_allocated_; }

 private:
  // `status` of a failed allocation of `what`, naming the node and device.
  absl::Status AllocationError(absl::string_view what, const absl::Status& status) const;

  Params* const params_;  // Not owned.
  // Most kernels have one or two outputs: no allocation for them.
  absl::InlinedVector<Output, 2> outputs_;
  absl::Status status_;
  int64_t output_bytes_allocated_ = 0;
  bool is_output_dead_ = false;
};

}  // namespace minitf

#endif  // MINITF_RUNTIME_OP_KERNEL_H_
