#include "session/executor_set.h"

#include <algorithm>

#include "absl/cleanup/cleanup.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "platform/mutex.h"
#include "platform/status_macros.h"
#include "runtime/cancellation.h"
#include "runtime/kernel_registry.h"
#include "session/intra_process_rendezvous.h"

namespace minitf {

namespace {

// Counts the partitions of one step down (named after TensorFlow's).
// The first error aborts the step's rendezvous and cancels the step.
class ExecutorBarrier {
 public:
  ExecutorBarrier(int num_partitions, IntraProcessRendezvous* rendezvous,
                  CancellationManager* cancellation)
      : rendezvous_(rendezvous), cancellation_(cancellation), pending_(num_partitions) {}

  // Called once by each partition's executor when it is done. Touches
  // nothing of the barrier after the last call has notified the waiter.
  void PartitionDone(const absl::Status& s) {
    if (!s.ok()) {
      // The executor has aborted the rendezvous with its first error
      // already; this covers any other error. The partition that reports
      // first may only have seen the consequence of another's failure (its
      // _Recv aborted): the step's status is the error the rendezvous was
      // aborted with first, an unshared copy (see UnsharedStatus).
      rendezvous_->StartAbort(s);
      absl::Status first = rendezvous_->status();
      {
        MutexLock lock(&mu_);
        if (status_.ok()) status_ = std::move(first);
      }
      cancellation_->StartCancel();
    }
    bool last;
    {
      MutexLock lock(&mu_);
      last = --pending_ == 0;
    }
    if (last) all_done_.Notify();
  }

  Notification& all_done() { return all_done_; }
  absl::Status status() {
    MutexLock lock(&mu_);
    return status_;
  }

 private:
  IntraProcessRendezvous* const rendezvous_;  // Not owned.
  CancellationManager* const cancellation_;  // Not owned.
  Mutex mu_;
  int pending_ ABSL_GUARDED_BY(mu_);
  absl::Status status_ ABSL_GUARDED_BY(mu_);
  Notification all_done_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<ExecutorSet>> ExecutorSet::Create(
    const absl::flat_hash_map<std::string, GraphDef>& partitions, const DeviceMgr* device_mgr,
    OpSegment* op_segment) {
  std::vector<std::string> devices;
  for (const auto& [device, graph_def] : partitions) devices.push_back(device);
  std::sort(devices.begin(), devices.end());
  std::vector<Partition> built;
  for (const std::string& name : devices) {
    MINITF_ASSIGN_OR_RETURN(Device * device, device_mgr->LookupDevice(name));
    MINITF_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph,
                            ConvertGraphDefToGraph(partitions.at(name)));
    LocalExecutorParams params;
    params.device = device;
    if (op_segment != nullptr) {
      params.create_kernel =
          [device, op_segment](const Node& n) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
        auto create = [device, &n] {
          return CreateOpKernel(device->device_type(), device, n.def());
        };
        if (!OpSegment::ShouldOwnKernel(*n.op_def())) return create();
        MINITF_ASSIGN_OR_RETURN(OpKernel * shared,
                                op_segment->FindOrCreate(device->name(), n.name(), create));
        // The executor holds it until it goes, then hands it to delete_kernel.
        return std::unique_ptr<OpKernel>(shared);
      };
      params.delete_kernel = [](OpKernel* kernel) {
        // A shared kernel stays with the segment; the executor's own go.
        if (!OpSegment::ShouldOwnKernel(kernel->type_string())) {
          std::unique_ptr<OpKernel> owned(kernel);
        }
      };
    }
    MINITF_ASSIGN_OR_RETURN(std::unique_ptr<Executor> executor,
                            NewLocalExecutor(params, std::move(graph)));
    built.push_back({device, std::move(executor)});
  }
  return std::unique_ptr<ExecutorSet>(new ExecutorSet(device_mgr, std::move(built)));
}

absl::Status ExecutorSet::RunStep(const StepArgs& step) const {
  if (partitions_.empty()) return absl::OkStatus();
  IntraProcessRendezvous rendezvous(device_mgr_);
  CancellationManager cancellation;
  // Session::Close cancels the step as a passing deadline does. The
  // callback refers to this frame: it is deregistered (waiting for it if it
  // is running) before the frame goes.
  CancellationManager* const session = step.session_cancellation;
  CancellationToken session_token = 0;
  if (session != nullptr) {
    session_token = session->get_cancellation_token();
    const bool registered = session->RegisterCallback(session_token, [&] {
      rendezvous.StartAbort(absl::CancelledError("Session has been closed."));
      cancellation.StartCancel();
    });
    if (!registered) return absl::CancelledError("Session has been closed.");
  }
  absl::Cleanup deregister = [session, session_token] {
    if (session != nullptr) session->DeregisterCallback(session_token);
  };
  // The caller's cancellation of this one step, in the same way.
  CancellationManager* const run = step.run_cancellation;
  CancellationToken run_token = 0;
  if (run != nullptr) {
    run_token = run->get_cancellation_token();
    const bool registered = run->RegisterCallback(run_token, [&] {
      rendezvous.StartAbort(absl::CancelledError("The step was cancelled by its caller."));
      cancellation.StartCancel();
    });
    if (!registered) return absl::CancelledError("The step was cancelled by its caller.");
  }
  absl::Cleanup deregister_run = [run, run_token] {
    if (run != nullptr) run->DeregisterCallback(run_token);
  };
  Executor::Args args;
  args.step_id = step.step_id;
  args.call_frame = step.call_frame;
  args.cancellation_manager = &cancellation;
  args.stats_collector = step.stats_collector;
  args.rendezvous = &rendezvous;
  args.runner = step.runner;

  // A device with a thread pool of its own (GPU thread modes gpu_private,
  // gpu_shared) runs its partition's expensive nodes there.
  absl::InlinedVector<Executor::Args, 2> partition_args(partitions_.size(), args);
  for (size_t i = 0; i < partitions_.size(); ++i) {
    if (ThreadPool* pool = partitions_[i].device->tensorflow_device_thread_pool()) {
      partition_args[i].runner = [pool](std::function<void()> fn) {
        pool->Schedule(std::move(fn));
      };
    }
  }

  ExecutorBarrier barrier(static_cast<int>(partitions_.size()), &rendezvous, &cancellation);
  auto done = [&barrier](const absl::Status& s) { barrier.PartitionDone(s); };
  // Every partition starts now: a partition that ran inline first could
  // otherwise hold the others back for its whole inline part. With a
  // deadline, the last one goes to the runner too: an executor runs its
  // first expensive node inline, and the calling thread must be free to
  // cancel the step when the deadline passes.
  const bool bounded = step.timeout_ms > 0;
  const absl::Time deadline =
      bounded ? absl::Now() + absl::Milliseconds(step.timeout_ms) : absl::InfiniteFuture();
  for (size_t i = 0; i < partitions_.size(); ++i) {
    Executor* executor = partitions_[i].executor.get();
    const Executor::Args* partition = &partition_args[i];
    const bool inline_last = i + 1 == partitions_.size() && !bounded;
    if (step.runner && !inline_last) {
      step.runner([executor, partition, done] { executor->RunAsync(*partition, done); });
    } else {
      executor->RunAsync(*partition, done);
    }
  }

  if (bounded && !barrier.all_done().WaitForNotificationWithTimeout(deadline - absl::Now())) {
    const absl::Status timed_out = absl::DeadlineExceededError(absl::StrCat(
        "Timed out after ", step.timeout_ms, " ms waiting for step ", step.step_id));
    rendezvous.StartAbort(timed_out);
    cancellation.StartCancel();
    barrier.all_done().WaitForNotification();
    return timed_out;
  }
  barrier.all_done().WaitForNotification();
  return barrier.status();
}

}  // namespace minitf
