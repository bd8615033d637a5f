// The local executor: ExecutorImpl holds what is fixed for the executor's
// life; ExecutorState holds one step.
#include "runtime/executor.h"

#include <atomic>
#include <memory>
#include <type_traits>
#include <optional>
#include <thread>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/match.h"
#include "absl/synchronization/notification.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "platform/logging.h"
#include "platform/mutex.h"
#include "platform/status_macros.h"
#include "runtime/gpu_op_queue.h"
#include "runtime/graph_view.h"
#include "runtime/kernel_registry.h"
#include "runtime/control_flow.h"
#include "runtime/entry.h"
#include "runtime/propagator_state.h"
#include "runtime/simple_propagator_state.h"

namespace minitf {

absl::Status Executor::Run(const Args& args) {
  Notification done;
  absl::Status status;
  RunAsync(args, [&](const absl::Status& s) {
    status = s;
    done.Notify();
  });
  done.WaitForNotification();
  return status;
}

namespace {

class ExecutorImpl : public Executor {
 public:
  ExecutorImpl(const LocalExecutorParams& params, std::unique_ptr<const Graph> graph)
      : params_(params), graph_(std::move(graph)) {}
  ~ExecutorImpl() override;

  absl::Status Initialize();
  void RunAsync(const Args& args, DoneCallback done) override;

 private:
  template <class PropagatorStateType>
  friend class ExecutorState;

  const LocalExecutorParams params_;
  const std::unique_ptr<const Graph> graph_;
  // Built by Initialize, before the executor is handed out; read-only after,
  // so steps read them without a lock.
  std::vector<OpKernel*> kernels_;  // By node id; null for non-ops.
  GraphView gview_;
  // The pending word each node starts a step with, by node id.
  std::vector<uint64_t> initial_pending_;
  // Nodes with no inputs from op nodes: ready when a step starts.
  std::vector<int> root_nodes_;
  // By node id: _Send and _Recv, which run even when dead.
  std::vector<bool> is_transfer_node_;
  // By node id: the node's DeviceContext (Device::FillContextMap); empty
  // on devices that use none.
  std::vector<DeviceContext*> device_contexts_;
  // Set when the graph has while loops: steps then use PropagatorState.
  std::unique_ptr<LoopLayout> loop_layout_;
};

ExecutorImpl::~ExecutorImpl() {
  for (OpKernel* kernel : kernels_) {
    if (kernel == nullptr) continue;
    if (params_.delete_kernel) {
      params_.delete_kernel(kernel);
    } else {
      delete kernel;
    }
  }
}

absl::Status ExecutorImpl::Initialize() {
  kernels_.assign(graph_->num_node_ids(), nullptr);
  for (const Node* n : graph_->op_nodes()) {
    absl::StatusOr<std::unique_ptr<OpKernel>> kernel =
        params_.create_kernel
            ? params_.create_kernel(*n)
            : CreateOpKernel(params_.device->device_type(), params_.device, n->def());
    if (!kernel.ok()) return kernel.status();
    kernels_[n->id()] = kernel->release();
  }
  gview_.Initialize(graph_.get(), kernels_);
  MINITF_RETURN_IF_ERROR(
      params_.device->FillContextMap(graph_->num_node_ids(), &device_contexts_));
  initial_pending_.assign(graph_->num_node_ids(), 0);
  is_transfer_node_.assign(graph_->num_node_ids(), false);
  for (const Node* n : graph_->op_nodes()) {
    const std::string& op = n->type_string();
    is_transfer_node_[n->id()] =
        op == "_Send" || op == "_Recv" || op == "_HostSend" || op == "_HostRecv";
    int data = 0, control = 0;
    for (const Edge* e : n->in_edges()) {
      if (!e->src()->IsOp()) continue;
      if (e->IsControlEdge()) {
        ++control;
      } else {
        ++data;
      }
    }
    if (n->IsMerge()) {
      initial_pending_[n->id()] = (static_cast<uint64_t>(control) << 1) | 1;
    } else {
      initial_pending_[n->id()] = static_cast<uint64_t>(data + control);
    }
    if (data + control == 0) root_nodes_.push_back(n->id());
  }
  if (HasLoops(*graph_)) {
    MINITF_ASSIGN_OR_RETURN(LoopLayout layout, LoopLayout::Build(*graph_, gview_, initial_pending_));
    loop_layout_ = std::make_unique<LoopLayout>(std::move(layout));
  }
  return absl::OkStatus();
}

// The state of one step. Deletes itself when the step is done. How outputs
// reach consumers is the propagator's: SimplePropagatorState for graphs
// without loops (atomics, no lock), PropagatorState for graphs with them
// (frames and iterations).
template <class PropagatorStateType>
class ExecutorState {
 public:
  using TaggedNode = typename PropagatorStateType::TaggedNode;
  using TaggedNodeSeq = typename PropagatorStateType::TaggedNodeSeq;

  ExecutorState(const Executor::Args& args, ExecutorImpl* impl, Executor::DoneCallback done);

  void RunAsync();

 private:
  // A ready node and when it became ready (0 without stats).
  struct ReadyNode {
    TaggedNode node;
    int64_t scheduled_micros;
  };
  // The nodes one thread runs inline, first in, first out. A chain keeps
  // one node at a time in it: that one lives in `first_`, outside the
  // vector.
  class ReadyQueue {
   public:
    bool empty() const { return !has_first_ && head_ == nodes_.size(); }
    void push_back(const ReadyNode& node) {
      if (!has_first_ && head_ == nodes_.size()) {
        first_ = node;
        has_first_ = true;
        return;
      }
      nodes_.push_back(node);
    }
    ReadyNode pop_front() {
      if (has_first_) {
        has_first_ = false;
        return first_;
      }
      ReadyNode node = nodes_[head_++];
      if (head_ == nodes_.size()) {
        nodes_.clear();
        head_ = 0;
      }
      return node;
    }

   private:
    // When set, the queue's front: pushed while the vector was empty.
    ReadyNode first_;
    bool has_first_ = false;
    absl::InlinedVector<ReadyNode, 16> nodes_;
    size_t head_ = 0;
  };

  // Runs the nodes of `queue` and every cheap node they make ready, on this
  // thread.
  void Process(ReadyQueue* queue);
  // Process() for one node, on this thread.
  void ProcessOne(ReadyNode node) {
    ReadyQueue queue;
    queue.push_back(node);
    Process(&queue);
  }
  // Fills `inputs` from the node's input slots; an error for an
  // uninitialized reference read by value.
  absl::Status PrepareInputs(const NodeItem& item, Entry* first,
                             std::vector<TensorValue>* inputs);
  // Moves the kernel's outputs out of `ctx`, checking them.
  absl::Status ProcessOutputs(const NodeItem& item, OpKernelContext* ctx,
                              EntryVector* outputs, NodeExecStats* stats);
  // Returns true when this was the last outstanding node of the step.
  bool NodeDone(const absl::Status& s, const TaggedNodeSeq& ready, ReadyQueue* inline_ready);
  void ScheduleReady(const TaggedNodeSeq& ready, ReadyQueue* inline_ready);
  void Finish();
  // What every node of the step shares, and what is the node's own.
  void FillStepParams(OpKernelContext::Params* params);
  void FillNodeParams(const TaggedNode& tagged, absl::Span<DeviceContext* const> contexts,
                      OpKernelContext::Params* params);

  // Runs `fn` on the runner, or here when there is none.
  void RunOnRunner(std::function<void()> fn);

  struct AsyncState;

  ExecutorImpl* const impl_;
  const GraphView& gview_;
  const Executor::Args args_;
  const Executor::DoneCallback done_;
  DeviceBase* const device_;
  // The device's launch queue when it paces synchronous kernels too (a GPU
  // device), else null: asked once per step, not per node.
  GpuOpQueue* const sync_pacing_queue_;
  PropagatorStateType propagator_;
  std::atomic<int64_t> num_outstanding_ops_{0};

  Mutex mu_;
  absl::Status status_ ABSL_GUARDED_BY(mu_);
};

// What an async kernel's completion callback needs.
template <class P>
struct ExecutorState<P>::AsyncState {
  TaggedNode tagged;
  std::vector<TensorValue> inputs;
  OpKernelContext::Params params;
  std::unique_ptr<OpKernelContext> ctx;
  NodeExecStats stats;
};

template <class P>
ExecutorState<P>::ExecutorState(const Executor::Args& args, ExecutorImpl* impl,
                                Executor::DoneCallback done)
    : impl_(impl),
      gview_(impl->gview_),
      args_(args),
      done_(std::move(done)),
      device_(impl->params_.device),
      sync_pacing_queue_([](DeviceBase* device) -> GpuOpQueue* {
        GpuOpQueue* q = device->gpu_op_queue();
        return q != nullptr && q->paces_sync_kernels() ? q : nullptr;
      }(impl->params_.device)),
      propagator_(impl->gview_, [impl]() -> const auto& {
        if constexpr (std::is_same_v<P, PropagatorState>) {
          return *impl->loop_layout_;
        } else {
          return impl->initial_pending_;
        }
      }()) {}

template <class P>
void ExecutorState<P>::RunOnRunner(std::function<void()> fn) {
  if (args_.runner) {
    args_.runner(std::move(fn));
  } else {
    fn();
  }
}

template <class P>
void ExecutorState<P>::RunAsync() {
  const std::vector<int>& roots = impl_->root_nodes_;
  if (roots.empty()) {
    Finish();
    return;
  }
  num_outstanding_ops_.store(static_cast<int64_t>(roots.size()), std::memory_order_relaxed);
  TaggedNodeSeq ready;
  propagator_.ActivateRoots(roots, &ready);
  // The calling thread starts the step itself: cheap roots (and one
  // expensive one) run here, the other expensive roots go to the runner. A
  // small step then needs no thread hand-off at all.
  ReadyQueue inline_ready;
  ScheduleReady(ready, &inline_ready);
  if (!inline_ready.empty()) Process(&inline_ready);
}

template <class P>
void ExecutorState<P>::ScheduleReady(const TaggedNodeSeq& ready, ReadyQueue* inline_ready) {
  if (ready.empty()) return;
  const int64_t now = args_.stats_collector != nullptr ? NowMicros() : 0;
  if (inline_ready == nullptr) {
    for (const TaggedNode& t : ready) {
      RunOnRunner([this, t, now] { ProcessOne(ReadyNode{t, now}); });
    }
    return;
  }
  const TaggedNode* curr_expensive_node = nullptr;
  for (const TaggedNode& t : ready) {
    if (t.is_dead || !t.item->kernel_is_expensive) {
      inline_ready->push_back(ReadyNode{t, now});
      continue;
    }
    // Hand the previous expensive node to the pool; keep this one.
    if (curr_expensive_node != nullptr) {
      TaggedNode prev = *curr_expensive_node;
      RunOnRunner([this, prev, now] { ProcessOne(ReadyNode{prev, now}); });
    }
    curr_expensive_node = &t;
  }
  if (curr_expensive_node != nullptr) {
    if (inline_ready->empty()) {
      inline_ready->push_back(ReadyNode{*curr_expensive_node, now});
    } else {
      TaggedNode t = *curr_expensive_node;
      RunOnRunner([this, t, now] { ProcessOne(ReadyNode{t, now}); });
    }
  }
}

template <class P>
absl::Status ExecutorState<P>::PrepareInputs(const NodeItem& item, Entry* first,
                                             std::vector<TensorValue>* inputs) {
  inputs->assign(item.num_inputs, TensorValue{});
  for (int i = 0; i < item.num_inputs; ++i) {
    Entry& entry = first[i];
    switch (entry.state) {
      case Entry::State::kNoValue:
        if (item.is_merge) continue;  // An untaken branch.
        return absl::InternalError(absl::StrCat("Node '", item.node->name(), "': input ", i,
                                                " has no value"));
      case Entry::State::kHasValue:
        (*inputs)[i] = TensorValue{&entry.val, nullptr};
        break;
      case Entry::State::kHasRef:
        if (IsRefType(item.input_type(i))) {
          (*inputs)[i] = TensorValue{entry.ref, entry.ref_mu};
          break;
        }
        // A value input fed by a reference reads the referenced tensor now.
        {
          MutexLock lock(entry.ref_mu);
          entry.val = *entry.ref;
        }
        if (!entry.val.IsInitialized()) {
          std::string source = "?";
          if (auto e = item.node->input_edge(i); e.ok()) source = (*e)->src()->name();
          return absl::FailedPreconditionError(absl::StrCat(
              "Attempting to use uninitialized value ", source, " (input ", i, " of node '",
              item.node->name(), "')"));
        }
        (*inputs)[i] = TensorValue{&entry.val, nullptr};
        break;
    }
  }
  return absl::OkStatus();
}

template <class P>
absl::Status ExecutorState<P>::ProcessOutputs(const NodeItem& item, OpKernelContext* ctx,
                                              EntryVector* outputs, NodeExecStats* stats) {
  if (item.num_outputs == 0 && ctx->status().ok()) return absl::OkStatus();
  if (!ctx->status().ok()) {
    const absl::Status& s = ctx->status();
    if (absl::StrContains(s.message(), item.node->name())) return s;
    return absl::Status(s.code(), absl::StrCat("Node '", item.node->name(), "' (op '",
                                               item.node->type_string(), "'): ", s.message()));
  }
  outputs->resize(item.num_outputs);
  for (int i = 0; i < item.num_outputs; ++i) {
    OpKernelContext::Output* slot = ctx->mutable_output_slot(i);
    Entry& out = (*outputs)[i];
    if (!slot->is_set) {
      // The untaken side of a Switch, or a _Recv that received a dead tensor.
      if (item.is_switch || *ctx->is_output_dead()) continue;
      return absl::InternalError(absl::StrCat("Node '", item.node->name(), "' (op '",
                                              item.node->type_string(),
                                              "') did not set output ", i));
    }
    if (slot->ref != nullptr) {
      out.state = Entry::State::kHasRef;
      out.ref = slot->ref;
      out.ref_mu = slot->ref_mutex;
      continue;
    }
    const DataType want = RemoveRefType(item.output_type(i));
    if (slot->value.dtype() != want) {
      return absl::InternalError(absl::StrCat(
          "Node '", item.node->name(), "' produced output ", i, " of type ",
          DataTypeString(slot->value.dtype()), ", expected ", DataTypeString(want)));
    }
    if (stats != nullptr) {
      stats->outputs.push_back(NodeOutputStats{
          i, static_cast<int64_t>(slot->value.AllocatedBytes()),
          slot->value.shape().DebugString()});
    }
    out.state = Entry::State::kHasValue;
    out.val = std::move(slot->value);
  }
  return absl::OkStatus();
}

template <class P>
void ExecutorState<P>::FillStepParams(OpKernelContext::Params* params) {
  params->step_id = args_.step_id;
  params->device = device_;
  params->call_frame = args_.call_frame;
  params->cancellation_manager = args_.cancellation_manager;
  params->runner = args_.runner ? &args_.runner : nullptr;
  params->rendezvous = args_.rendezvous;
}

template <class P>
void ExecutorState<P>::FillNodeParams(const TaggedNode& tagged,
                                      absl::Span<DeviceContext* const> contexts,
                                      OpKernelContext::Params* params) {
  const NodeItem& item = *tagged.item;
  params->op_device_context =
      static_cast<size_t>(item.id) < contexts.size() ? contexts[item.id] : nullptr;
  params->op_kernel = item.kernel;
  params->is_input_dead = tagged.is_dead;
  params->frame_iter = propagator_.GetFrameAndIter(tagged);
}

template <class P>
void ExecutorState<P>::Process(ReadyQueue* queue) {
  ReadyQueue& inline_ready = *queue;
  // Made once for all the nodes this call runs: per node they are only
  // cleared or overwritten (zeroing a fresh Params and EntryVector per node
  // was a fifth of a NoOp's time).
  std::vector<TensorValue> inputs;
  TaggedNodeSeq ready;
  EntryVector outputs;
  OpKernelContext::Params params;
  FillStepParams(&params);
  const bool collect_stats = args_.stats_collector != nullptr;
  // Asked before every node: locals, not reloaded through args_ and impl_
  // each time.
  const CancellationManager* const cancellation = args_.cancellation_manager;
  const absl::Span<DeviceContext* const> contexts(impl_->device_contexts_);
  // The node to run. A chain's next node goes straight here when the queue
  // is empty (as if pushed and popped at once; behind queued nodes it
  // waits its turn, first in, first out).
  ReadyNode next;
  bool have_next = false;
  while (have_next || !inline_ready.empty()) {
    if (!have_next) next = inline_ready.pop_front();
    have_next = false;
    const TaggedNode& tagged = next.node;
    const NodeItem& item = *tagged.item;
    Entry* first_input = propagator_.GetInputTensors(tagged);
    ready.clear();
    absl::Status s;
    // Built only when the step collects stats, and, as in TensorFlow, not
    // for a dead node (it does not run).
    std::unique_ptr<NodeExecStats> stats;
    if (collect_stats && !tagged.is_dead) {
      stats = std::make_unique<NodeExecStats>();
      stats->node_name = item.node->name();
      stats->op = item.node->type_string();
      stats->scheduled_micros = next.scheduled_micros;
      stats->all_start_micros = NowMicros();
      stats->thread_id =
          static_cast<uint32_t>(std::hash<std::thread::id>()(std::this_thread::get_id()));
    }
    NodeExecStats* stats_ptr = stats.get();
    if (cancellation != nullptr && cancellation->IsCancelled()) {
      s = absl::CancelledError("the step was cancelled");
    } else if (!tagged.is_dead || impl_->is_transfer_node_[item.id]) {
      // A dead transfer node runs with empty inputs to pass its deadness on.
      if (tagged.is_dead) {
        inputs.assign(item.num_inputs, TensorValue{});
      } else if (item.num_inputs > 0 || !inputs.empty()) {
        s = PrepareInputs(item, first_input, &inputs);
      }
      if (s.ok() && item.kernel_is_async) {
        auto state = std::make_unique<AsyncState>();
        state->tagged = tagged;
        state->inputs = inputs;
        FillStepParams(&state->params);
        FillNodeParams(tagged, contexts, &state->params);
        state->params.inputs = state->inputs;
        state->ctx = std::make_unique<OpKernelContext>(&state->params);
        if (stats) {
          stats->async = true;
          state->stats = std::move(*stats);
        }
        AsyncState* raw = state.release();
        auto done = [this, raw, first_input] {
          std::unique_ptr<AsyncState> owned(raw);
          NodeExecStats* st = args_.stats_collector != nullptr && !owned->tagged.is_dead
                                  ? &owned->stats
                                  : nullptr;
          if (st != nullptr) st->op_end_rel_micros = NowMicros() - st->all_start_micros;
          EntryVector outs;
          const NodeItem& done_item = *owned->tagged.item;
          absl::Status status = ProcessOutputs(done_item, owned->ctx.get(), &outs, st);
          owned->ctx.reset();
          for (int i = 0; i < done_item.num_inputs; ++i) first_input[i].Clear();
          TaggedNodeSeq ready_after;
          if (status.ok()) propagator_.PropagateOutputs(owned->tagged, &outs, &ready_after);
          if (st != nullptr) {
            st->all_end_rel_micros = NowMicros() - st->all_start_micros;
            args_.stats_collector->Save(device_->name(), std::move(*st));
          }
          if (NodeDone(status, ready_after, nullptr)) Finish();
        };
        // `raw` and this step state live until `done` has run, the kernel
        // and the device as long as the executor.
        auto launch = [this, raw, done = std::move(done)]() mutable {
          if (args_.stats_collector != nullptr && !raw->tagged.is_dead) {
            raw->stats.op_start_rel_micros = NowMicros() - raw->stats.all_start_micros;
          }
          device_->ComputeAsync(raw->tagged.item->kernel->AsAsync(), raw->ctx.get(),
                                std::move(done));
        };
        // AntMan compute pacing: a paced GPU device launches the kernel
        // from its GpuOpManager, after an idle slot.
        if (GpuOpQueue* q = device_->gpu_op_queue(); q != nullptr && q->active()) {
          q->Enqueue(std::move(launch));
        } else {
          launch();
        }
        continue;
      }
      if (s.ok()) {
        FillNodeParams(tagged, contexts, &params);
        params.inputs = inputs;
        OpKernelContext ctx(&params, item.num_outputs);
        if (stats_ptr != nullptr) {
          stats_ptr->op_start_rel_micros = NowMicros() - stats_ptr->all_start_micros;
        }
        if (GpuOpQueue* q = sync_pacing_queue_;
            q != nullptr && q->active() && item.kernel->IsExpensive()) {
          // AntMan pacing of a synchronous GPU launch (CUDA): the queue runs
          // it after its slot while this thread waits.
          absl::Notification launched;
          q->Enqueue([&] {
            device_->Compute(item.kernel, &ctx);
            launched.Notify();
          });
          launched.WaitForNotification();
        } else {
          device_->Compute(item.kernel, &ctx);
        }
        if (stats_ptr != nullptr) {
          stats_ptr->op_end_rel_micros = NowMicros() - stats_ptr->all_start_micros;
        }
        if (item.num_outputs > 0 || !ctx.status().ok()) {
          s = ProcessOutputs(item, &ctx, &outputs, stats_ptr);
        }
      }
    }
    for (int i = 0; i < item.num_inputs; ++i) first_input[i].Clear();
    if (s.ok()) propagator_.PropagateOutputs(tagged, &outputs, &ready);
    outputs.clear();
    if (stats_ptr != nullptr) {
      stats_ptr->all_end_rel_micros = NowMicros() - stats_ptr->all_start_micros;
      args_.stats_collector->Save(device_->name(), std::move(*stats_ptr));
    }
    // The common case of a chain: one cheap successor, run next on this
    // thread (NodeDone would leave the outstanding count as it is).
    if (s.ok() && ready.size() == 1 &&
        (ready[0].is_dead || !ready[0].item->kernel_is_expensive)) {
      const ReadyNode successor{ready[0], collect_stats ? NowMicros() : 0};
      if (inline_ready.empty()) {
        next = successor;
        have_next = true;
      } else {
        inline_ready.push_back(successor);
      }
      continue;
    }
    if (NodeDone(s, ready, &inline_ready)) {
      Finish();
      return;
    }
  }
}

template <class P>
bool ExecutorState<P>::NodeDone(const absl::Status& s, const TaggedNodeSeq& ready,
                                ReadyQueue* inline_ready) {
  bool abort_run = false;
  if (!s.ok()) {
    abort_run = true;
    bool first_error = false;
    {
      MutexLock lock(&mu_);
      if (status_.ok()) {
        // Unshared: Finish may hand it on from another thread (rendezvous.h).
        status_ = UnsharedStatus(s);
        first_error = true;
      }
    }
    // Stop outstanding asynchronous work of the step: wake the _Recv nodes
    // of every partition with this error, then cancel the rest.
    if (first_error && args_.rendezvous != nullptr) args_.rendezvous->StartAbort(s);
    if (first_error && args_.cancellation_manager != nullptr) {
      args_.cancellation_manager->StartCancel();
    }
  }
  if (abort_run || ready.empty()) {
    return num_outstanding_ops_.fetch_sub(1, std::memory_order_acq_rel) == 1;
  }
  if (ready.size() > 1) {
    num_outstanding_ops_.fetch_add(static_cast<int64_t>(ready.size()) - 1,
                                   std::memory_order_relaxed);
  }
  ScheduleReady(ready, inline_ready);
  return false;
}

template <class P>
void ExecutorState<P>::Finish() {
  absl::Status status;
  {
    MutexLock lock(&mu_);
    status = status_;
  }
  Executor::DoneCallback done = done_;
  DeviceBase* device = device_;
  const Runner runner = args_.runner;
  delete this;
  if (!status.ok() || device->gpu_device_info() == nullptr) return done(status);
  // Sync on finish, as TensorFlow's executor does for a GPU: its kernels were
  // only enqueued on the device's streams, and the step ends when they have
  // run (a stream error surfaces here). The last node may have finished on a
  // stream's own callback thread, which cannot wait for its stream: the
  // wait goes to the runner.
  auto sync = [device, done = std::move(done)] { done(device->Sync()); };
  if (runner) {
    runner(std::move(sync));
  } else {
    sync();
  }
}

void ExecutorImpl::RunAsync(const Args& args, DoneCallback done) {
  if (loop_layout_ != nullptr) {
    (new ExecutorState<PropagatorState>(args, this, std::move(done)))->RunAsync();
  } else {
    (new ExecutorState<SimplePropagatorState>(args, this, std::move(done)))->RunAsync();
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<Executor>> NewLocalExecutor(const LocalExecutorParams& params,
                                                           std::unique_ptr<const Graph> graph) {
  if (params.device == nullptr) {
    return absl::InvalidArgumentError("NewLocalExecutor: params.device is null");
  }
  auto impl = std::make_unique<ExecutorImpl>(params, std::move(graph));
  if (absl::Status s = impl->Initialize(); !s.ok()) return s;
  return std::unique_ptr<Executor>(std::move(impl));
}

}  // namespace minitf
