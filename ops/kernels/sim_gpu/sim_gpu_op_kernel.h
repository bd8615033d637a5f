// SimGPUOpKernel: an op's kernel on a SimGPU device. It wraps the op's CPU
// kernel: SimGPU device memory is host-addressable, so the CPU kernel's
// Eigen code computes the real result directly on device memory. What makes
// it a GPU kernel is where and when it runs: it is launched as a HostKernel
// on the device's compute stream, so it takes the device's single compute
// engine (one kernel at a time across every stream and session on that
// device) and holds it for the time the cost model gives (sim_gpu_cost.h).
// The kernel is asynchronous. In timing mode, where the outputs are
// allocated from shape inference and the body is skipped, `done` is called as
// soon as the kernel is enqueued, as a CUDA kernel returns once launched: the
// executor runs ahead of the device and the step's end waits for the stream
// (the executor's sync on finish). A kernel whose body must run (compute and
// functional modes; in timing mode, outputs only running gives) calls `done`
// from the stream once it has run. Ops whose CUDA kernel launches nothing
// (the variable ops that hand out a buffer or handle) run on the calling
// thread and take no engine time, and so do, in timing mode, kernels whose
// arguments are all in host memory.
//
// In the platform's timing-only mode the arithmetic is skipped when shape
// inference gives every output's shape (outputs are allocated, not
// computed). Kernels whose outputs steer later kernels always run: those
// with reference outputs (Variable, Assign), Const, those producing small
// integer or bool tensors (Shape, index arithmetic, predicates: at most
// 1024 elements), which later ops read as shapes, axes and conditions, and
// the resource variable ops (a resource input or output), whose effect is
// the variable's state. The exception among the reference outputs is an
// in-place update of an initialized variable (AssignAdd, AssignSub,
// ScatterAdd, the Apply* optimizers, an Assign that keeps the variable's
// shape) whose operands the op's shape function accepts: its only effect is
// the variable's values, so timing mode passes the reference on and skips
// the arithmetic. (An Assign to an uninitialized variable or of another
// shape runs: it allocates the variable's buffer; so does an update whose
// operands do not fit, which fails as in compute mode.)
//
// The SimGPU kernels are registered (sim_gpu_kernels.cc) as twins of the
// CPU kernels, with the same type constraints and
// KernelDefBuilder::Platform("SimGPU").
#ifndef MINITF_OPS_KERNELS_SIM_GPU_SIM_GPU_OP_KERNEL_H_
#define MINITF_OPS_KERNELS_SIM_GPU_SIM_GPU_OP_KERNEL_H_

#include <memory>
#include <vector>

#include "runtime/op_def.h"
#include "runtime/op_kernel.h"

namespace minitf {

class SimGPUOpKernel final : public AsyncOpKernel {
 public:
  // Builds the wrapped CPU kernel for the same node on the same device (its
  // construction-time tensors, a Const's value, land in device memory).
  explicit SimGPUOpKernel(OpKernelConstruction* ctx);

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override;
  // Launching is cheap: the work happens on the stream.
  bool IsExpensive() override { return false; }

 private:
  const OpDef* op_def_ = nullptr;  // Not owned; registry entries live forever.
  // The op's CUDA kernel launches nothing (a variable's handle or buffer):
  // the CPU kernel runs on the calling thread, with no turn on the engine.
  bool launches_nothing_ = false;
  // Every argument lives in host memory (InvertPermutation; int32 ops): in
  // timing mode the CPU kernel runs on the calling thread, as CUDA's runs on
  // the host, so the op does not wait for the device.
  bool all_in_host_memory_ = false;
  // Whether timing mode must still run the body: the outputs are state (a
  // reference), a constant, or integers/bools, which later ops read as
  // shapes, axes and indices rather than as data.
  bool runs_in_timing_mode_ = false;
  // The op updates the variable its input 0 refers to in place and outputs
  // that reference (one Ref output).
  bool updates_in_place_ = false;
  // The integer and bool outputs: computed in timing mode when small.
  std::vector<int> steering_outputs_;
  std::unique_ptr<OpKernel> cpu_kernel_;
};

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_SIM_GPU_SIM_GPU_OP_KERNEL_H_
