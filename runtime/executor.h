// Executor: runs one graph partition on one device, step after step.
//
// An executor is built once (kernels created, GraphView laid out) and then
// runs any number of steps, concurrently if asked: all per-step state lives
// in a private ExecutorState created by RunAsync.
//
//   MINITF_ASSIGN_OR_RETURN(auto executor, NewLocalExecutor(params, std::move(graph)));
//   Executor::Args args;
//   args.step_id = 7;
//   args.call_frame = &frame;
//   args.runner = [pool](std::function<void()> fn) { pool->Schedule(std::move(fn)); };
//   MINITF_RETURN_IF_ERROR(executor->Run(args));
//
// How a step runs: nodes whose inputs are all available are "ready". Cheap
// ready nodes run inline on the thread that made them ready; expensive ones
// are handed to `runner` (the inter-op pool), except that one of them is
// kept to run inline when nothing cheaper is queued. When a node finishes,
// its outputs are moved to its consumers' input slots and their pending
// counts are decremented; a count reaching zero makes the consumer ready.
// The first error aborts the step: no new node starts, outstanding async
// work is cancelled through the step's CancellationManager, and `done` gets
// that error once every running node has returned.
//
// Dead tensors: an output a Switch did not take is "dead". A node with a
// dead input does not run and all its outputs are dead; a Merge runs as soon
// as one live input arrives and is dead only if all its inputs are. The
// transfer nodes _Send and _Recv are the exception: they run even when dead
// (OpKernelContext::is_input_dead) so that deadness crosses devices.
//
// Cross-device steps: the partitions of one step share a Rendezvous
// (Args::rendezvous). An executor's first error aborts it (StartAbort), so
// _Recv nodes blocked in the other partitions wake with that error.
#ifndef MINITF_RUNTIME_EXECUTOR_H_
#define MINITF_RUNTIME_EXECUTOR_H_

#include <functional>
#include <memory>

#include "absl/status/statusor.h"
#include "runtime/call_frame.h"
#include "runtime/cancellation.h"
#include "runtime/device_base.h"
#include "runtime/graph.h"
#include "runtime/op_kernel.h"
#include "runtime/rendezvous.h"
#include "runtime/step_stats.h"

namespace minitf {

class Executor {
 public:
  // Everything one step needs. Pointers are not owned and must stay valid
  // until `done` has been called.
  struct Args {
    int64_t step_id = 0;
    CallFrameInterface* call_frame = nullptr;            // May be null.
    CancellationManager* cancellation_manager = nullptr;  // May be null.
    StepStatsCollector* stats_collector = nullptr;        // Null: no stats.
    // Shared by every partition of the step; aborted with the executor's
    // first error. May be null when the graph has no _Send/_Recv.
    Rendezvous* rendezvous = nullptr;
    // Runs expensive nodes; when empty, they run on the calling thread.
    Runner runner;
  };
  using DoneCallback = std::function<void(const absl::Status&)>;

  virtual ~Executor() = default;

  // Runs a step; `done` is called exactly once with the step's status, on
  // the calling thread or an executor thread. The calling thread runs the
  // step's first nodes itself (and, for a small step, all of them) before
  // RunAsync returns; expensive nodes beyond the first go to the runner.
  virtual void RunAsync(const Args& args, DoneCallback done) = 0;

  // Runs a step and waits for it.
  absl::Status Run(const Args& args);
};

struct LocalExecutorParams {
  DeviceBase* device = nullptr;  // Not owned; must outlive the executor.
  // Creates the kernel of a node; defaults to the kernel registry's choice
  // for the device's type.
  std::function<absl::StatusOr<std::unique_ptr<OpKernel>>(const Node&)> create_kernel;
  // Called with each kernel create_kernel made when the executor goes; it
  // decides whether the kernel is deleted or lives on elsewhere (a session
  // shares the kernels of stateful ops between its executors). Empty: the
  // executor deletes its kernels.
  std::function<void(OpKernel*)> delete_kernel;
};

// Builds an executor owning `graph` and its kernels. An error names the node
// whose kernel could not be created.
absl::StatusOr<std::unique_ptr<Executor>> NewLocalExecutor(const LocalExecutorParams& params,
                                                           std::unique_ptr<const Graph> graph);

}  // namespace minitf

#endif  // MINITF_RUNTIME_EXECUTOR_H_
