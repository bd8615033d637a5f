#include "ops/kernels/sim_gpu/sim_gpu_op_kernel.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/kernels/sim_gpu/sim_gpu_cost.h"
#include "platform/mutex.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_registry.h"
#include "runtime/op_requires.h"
#include "runtime/shape_inference.h"
#include "stream/device_memory_protection.h"
#include "stream/sim_gpu/sim_gpu_platform.h"
#include "stream/stream.h"

namespace minitf {
namespace {

bool TimingOnly(const se::StreamExecutor& executor) {
  const se::Platform* platform = executor.platform();
  if (platform->Name() != "SimGPU") return false;
  return static_cast<const se::SimGPUPlatform*>(platform)->options().mode ==
         se::SimGPUOptions::Mode::kTiming;
}

// The inputs as shape inference and the cost model see them.
struct InputView {
  std::vector<const Tensor*> tensors;
  std::vector<PartialTensorShape> shapes;
};

InputView ViewInputs(OpKernelContext* ctx) {
  InputView view;
  for (int i = 0; i < ctx->num_inputs(); ++i) {
    const Tensor* t = ctx->has_input(i) ? &ctx->input(i) : nullptr;
    view.tensors.push_back(t);
    view.shapes.push_back(t != nullptr ? PartialTensorShape(t->shape())
                                       : PartialTensorShape::Unknown());
  }
  return view;
}

// Whether timing mode may skip an in-place update: the variable input 0
// refers to holds a value of `shape`, the shape the op's shape function
// gives the updated variable. Else the body runs: it reports an update of
// an uninitialized variable, or operands that do not fit, as in compute
// mode, and an Assign that changes the shape allocates a new buffer.
bool UpdateKeepsShape(OpKernelContext* ctx, const PartialTensorShape& shape) {
  if (!ctx->input_is_ref(0) || !shape.IsFullyDefined()) return false;
  MutexLock lock(ctx->input_ref_mutex(0));
  const Tensor* var = ctx->mutable_input(0);
  return var->IsInitialized() && PartialTensorShape(var->shape()) == shape;
}

// Ops whose CUDA kernel launches nothing: they hand out a variable's buffer
// or handle, or read its state, on the host. Their SimGPU twins run the CPU
// kernel on the calling thread (it touches no device memory) and take no
// turn on the engine.
bool LaunchesNothing(const std::string& op) {
  for (const char* host_op : {"Variable", "VariableV2", "VarHandleOp", "ReadVariableOp",
                              "VarIsInitializedOp", "DestroyResourceOp"}) {
    if (op == host_op) return true;
  }
  return false;
}

// Integer and bool outputs of at most this many elements are computed even
// in timing mode: shapes, axes, sizes and predicates are among them. Larger
// ones are data (a mask, say) and are only allocated.
constexpr int64_t kMaxSteeringElements = 1024;

}  // namespace

SimGPUOpKernel::SimGPUOpKernel(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
  op_def_ = OpRegistry::Global()->LookUp(def().op);
  launches_nothing_ = LaunchesNothing(type_string());
  // Every argument in host memory (InvertPermutation, say): CUDA's kernel
  // runs on the host too. (No memory types given means device memory.)
  const auto all_host = [](const MemoryTypeVector& types, int count) {
    return static_cast<int>(types.size()) == count &&
           std::all_of(types.begin(), types.end(),
                       [](MemoryType t) { return t == HOST_MEMORY; });
  };
  all_in_host_memory_ = num_inputs() + num_outputs() > 0 &&
                        all_host(ctx->input_memory_types(), num_inputs()) &&
                        all_host(ctx->output_memory_types(), num_outputs());
  runs_in_timing_mode_ = type_string() == "Const";
  for (int i = 0; i < num_outputs(); ++i) {
    const DataType t = output_type(i);
    const DataType base = RemoveRefType(t);
    runs_in_timing_mode_ = runs_in_timing_mode_ || IsRefType(t) || base == DT_RESOURCE;
    if (base == DT_INT32 || base == DT_INT64 || base == DT_BOOL) steering_outputs_.push_back(i);
  }
  // Resource variable ops: their effect is the variable's state.
  for (DataType t : input_types()) runs_in_timing_mode_ = runs_in_timing_mode_ || t == DT_RESOURCE;
  updates_in_place_ = num_outputs() == 1 && IsRefType(output_type(0)) && num_inputs() > 0 &&
                      IsRefType(input_type(0));
  absl::StatusOr<std::unique_ptr<OpKernel>> cpu =
      CreateOpKernel(DEVICE_CPU, ctx->device(), def());
  OP_REQUIRES_OK(ctx, cpu.status());
  OP_REQUIRES(ctx, (*cpu)->AsAsync() == nullptr,
              absl::InternalError(absl::StrCat("node '", name(), "': op '", type_string(),
                                               "' has an asynchronous CPU kernel, which "
                                               "SimGPU cannot wrap")));
  cpu_kernel_ = *std::move(cpu);
}

void SimGPUOpKernel::ComputeAsync(OpKernelContext* ctx, DoneCallback done) {
  const GPUDeviceInfo* info = ctx->device()->gpu_device_info();
  OP_REQUIRES_ASYNC(ctx, info != nullptr && info->stream != nullptr,
                    absl::InternalError(absl::StrCat("node '", name(),
                                                     "': SimGPU kernel on a device without "
                                                     "a stream: ", ctx->device()->name())),
                    done);
  se::Stream* stream = info->stream;
  if (launches_nothing_) {
    cpu_kernel_->Compute(ctx);
    return done();
  }
  const bool timing_only = TimingOnly(*info->executor);
  if (all_in_host_memory_ && timing_only) {
    // Its arguments are on the host, its temporaries may be on the device:
    // the simulator's bookkeeping, with the device's access.
    se::ScopedDeviceMemoryAccess simulator_access;
    cpu_kernel_->Compute(ctx);
    return done();
  }

  // Output shapes from the op's shape function over the actual inputs:
  // the simulator's own bookkeeping, which may read the values of inputs in
  // device memory (the kernel's code may not: it runs on the stream).
  InputView in = ViewInputs(ctx);
  std::vector<PartialTensorShape> out_shapes(num_outputs());
  bool shapes_fit = false;  // The shape function accepts the inputs.
  if (op_def_ != nullptr && op_def_->shape_fn) {
    se::ScopedDeviceMemoryAccess simulator_access;
    InferenceContext shapes(&def(), op_def_, in.shapes, in.tensors, num_outputs());
    shapes_fit = op_def_->shape_fn(&shapes).ok();
    if (shapes_fit) out_shapes = shapes.outputs();
  }
  bool all_known = !runs_in_timing_mode_;
  for (const PartialTensorShape& s : out_shapes) all_known = all_known && s.IsFullyDefined();
  for (int i : steering_outputs_) {
    all_known = all_known && out_shapes[i].num_elements() > kMaxSteeringElements;
  }

  se::HostKernel kernel;
  kernel.name = type_string();
  kernel.cost = EstimateKernelCost(def(), in.tensors, out_shapes, output_types(), *info->executor);
  // Whether the op returns once its kernel is enqueued, as a CUDA kernel
  // does: its outputs exist before the kernel runs (timing mode allocates
  // them from shape inference and skips the body), so the executor runs
  // ahead of the device. Otherwise `done` waits for the kernel.
  bool runs_ahead = false;
  if (timing_only && updates_in_place_ && shapes_fit && UpdateKeepsShape(ctx, out_shapes[0])) {
    // The update's effect is values timing mode does not compute.
    ctx->forward_ref_input_to_ref_output(0, 0);
    kernel.body = [] { return absl::OkStatus(); };
    runs_ahead = true;
  } else if (timing_only && all_known) {
    // Allocate the outputs; the platform skips the body.
    for (int i = 0; i < num_outputs(); ++i) {
      absl::StatusOr<TensorShape> shape = TensorShape::Build(out_shapes[i].dim_sizes());
      OP_REQUIRES_OK_ASYNC(ctx, shape.status(), done);
      Tensor* out = nullptr;
      OP_REQUIRES_OK_ASYNC(ctx, ctx->allocate_output(i, *shape, &out), done);
    }
    kernel.body = [] { return absl::OkStatus(); };
    runs_ahead = true;
  } else {
    // A kernel's own error (bad shapes, say) fails its node through the
    // context, not the device's stream.
    OpKernel* cpu = cpu_kernel_.get();
    kernel.body = [cpu, ctx] {
      cpu->Compute(ctx);
      return absl::OkStatus();
    };
    // A kernel that refused its inputs (a hostile shape, an allocation
    // that failed) models no time: its attrs may describe days of work.
    kernel.did_work = [ctx] { return ctx->status().ok(); };
    // In timing mode too: this kernel's outputs exist only if it runs.
    kernel.run_in_timing_mode = true;
  }

  // A launch that fails (the stream is in its error state, as a CUDA launch
  // after an earlier kernel's fault) fails this node, naming it.
  const auto fail_launch = [this, ctx](const absl::Status& launched) {
    ctx->SetStatus(absl::Status(launched.code(),
                                absl::StrCat("node '", name(), "' (op '", type_string(), "') on ",
                                             ctx->device()->name(), ": ", launched.message())));
  };
  if (runs_ahead) {
    // The executor's sync at the end of the step reports a later error of
    // the stream.
    if (absl::Status launched = stream->LaunchHostKernel(std::move(kernel)); !launched.ok()) {
      fail_launch(launched);
    }
    return done();
  }
  auto finish = std::make_shared<DoneCallback>(std::move(done));
  absl::Status launched = stream->LaunchHostKernel(std::move(kernel));
  if (launched.ok()) {
    // Hand `done` to the executor's pool: the stream's thread only launches.
    const Runner* runner = ctx->runner();
    launched = stream->DoHostCallback([ctx, stream, finish, runner] {
      if (!stream->ok()) ctx->SetStatus(stream->status());
      if (runner != nullptr && *runner) {
        (*runner)([finish] { (*finish)(); });
      } else {
        (*finish)();
      }
    });
    if (launched.ok()) return;
    // The kernel is queued but its callback is not: wait for the stream.
    launched = absl::Status(launched.code(), absl::StrCat(launched.message(), "; ",
                                                          stream->BlockHostUntilDone().ToString()));
  }
  fail_launch(launched);
  (*finish)();
}

}  // namespace minitf
