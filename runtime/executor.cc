// The local executor: ExecutorImpl holds what is fixed for the executor's
// life; ExecutorState holds one step.
#include "runtime/executor.h"

#include <atomic>
#include <deque>
#include <thread>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "platform/logging.h"
#include "platform/mutex.h"
#include "platform/status_macros.h"
#include "runtime/gpu_op_queue.h"
#include "runtime/graph_view.h"
#include "runtime/kernel_registry.h"

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

// Pending-count words pack two 32-bit counters: the low half is the number
// of inputs still awaited, the high half the number of dead inputs seen.
// For a Merge the low half is (control inputs awaited << 1) | bit 0, where
// bit 0 means "no live data input has arrived yet".
constexpr uint64_t kDeadOne = uint64_t{1} << 32;
inline uint32_t PendingOf(uint64_t v) { return static_cast<uint32_t>(v); }
inline uint32_t DeadOf(uint64_t v) { return static_cast<uint32_t>(v >> 32); }

class ExecutorImpl : public Executor {
 public:
  ExecutorImpl(const LocalExecutorParams& params, std::unique_ptr<const Graph> graph)
      : params_(params), graph_(std::move(graph)) {}
  ~ExecutorImpl() override {
    if (!params_.delete_kernel) return;
    for (std::unique_ptr<OpKernel>& kernel : kernels_) {
      if (kernel != nullptr) params_.delete_kernel(kernel.release());
    }
  }

  absl::Status Initialize();
  void RunAsync(const Args& args, DoneCallback done) override;

  DeviceContext* DeviceContextOf(int node_id) const {
    return static_cast<size_t>(node_id) < device_contexts_.size() ? device_contexts_[node_id]
                                                                  : nullptr;
  }

 private:
  friend class ExecutorState;

  const LocalExecutorParams params_;
  const std::unique_ptr<const Graph> graph_;
  // Built by Initialize, before the executor is handed out; read-only after,
  // so steps read them without a lock.
  std::vector<std::unique_ptr<OpKernel>> kernels_;  // By node id; null for non-ops.
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
};

absl::Status ExecutorImpl::Initialize() {
  kernels_.resize(graph_->num_node_ids());
  std::vector<OpKernel*> raw(graph_->num_node_ids(), nullptr);
  for (const Node* n : graph_->op_nodes()) {
    absl::StatusOr<std::unique_ptr<OpKernel>> kernel =
        params_.create_kernel
            ? params_.create_kernel(*n)
            : CreateOpKernel(params_.device->device_type(), params_.device, n->def());
    if (!kernel.ok()) return kernel.status();
    raw[n->id()] = kernel->get();
    kernels_[n->id()] = *std::move(kernel);
  }
  gview_.Initialize(graph_.get(), raw);
  MINITF_RETURN_IF_ERROR(
      params_.device->FillContextMap(graph_->num_node_ids(), &device_contexts_));
  initial_pending_.assign(graph_->num_node_ids(), 0);
  is_transfer_node_.assign(graph_->num_node_ids(), false);
  for (const Node* n : graph_->op_nodes()) {
    is_transfer_node_[n->id()] = n->type_string() == "_Send" || n->type_string() == "_Recv";
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
  return absl::OkStatus();
}

// One input slot of one node during a step.
struct Entry {
  enum class State : uint8_t { kNoValue, kHasValue, kHasRef };
  State state = State::kNoValue;
  Tensor val;
  Tensor* ref = nullptr;            // Not owned.
  Mutex* ref_mu = nullptr;    // Not owned.

  void Clear() {
    state = State::kNoValue;
    val = Tensor();
    ref = nullptr;
    ref_mu = nullptr;
  }
};

struct TaggedNode {
  const NodeItem* item;
  bool is_dead;
};

using TaggedNodeSeq = absl::InlinedVector<TaggedNode, 8>;
using EntryVector = absl::InlinedVector<Entry, 4>;

// The state of one step. Deletes itself when the step is done.
//
// Designed so that while-loop frames can be added: the pending words and
// input slots form one "iteration" here; frames would hold several.
class ExecutorState {
 public:
  ExecutorState(const Executor::Args& args, ExecutorImpl* impl,
                Executor::DoneCallback done);

  void RunAsync();

 private:
  // Runs `node` and every cheap node it makes ready, on this thread.
  void Process(TaggedNode node, std::deque<TaggedNode> more = {});
  // Fills `inputs` from the node's input slots; an error for an
  // uninitialized reference read by value.
  absl::Status PrepareInputs(const NodeItem& item, std::vector<TensorValue>* inputs);
  // Moves the kernel's outputs out of `ctx`, checking them.
  absl::Status ProcessOutputs(const NodeItem& item, OpKernelContext* ctx,
                              EntryVector* outputs, NodeExecStats* stats);
  void PropagateOutputs(const TaggedNode& tagged, EntryVector* outputs, TaggedNodeSeq* ready);
  // Returns true when this was the last outstanding node of the step.
  bool NodeDone(const absl::Status& s, const TaggedNodeSeq& ready,
                std::deque<TaggedNode>* inline_ready);
  void ScheduleReady(const TaggedNodeSeq& ready, std::deque<TaggedNode>* inline_ready);
  void ClearInputs(const NodeItem& item);
  void Finish();

  // Runs `fn` on the runner, or here when there is none.
  void RunOnRunner(std::function<void()> fn);

  struct AsyncState;

  ExecutorImpl* const impl_;
  const GraphView& gview_;
  const Executor::Args args_;
  const Executor::DoneCallback done_;
  DeviceBase* const device_;

  // Each node's input slots, indexed by NodeItem::input_start + i. Not
  // guarded by mu_, and safe without it: a slot is written only by the one
  // thread that propagates its producer's outputs, before that thread's
  // fetch_sub on the consumer's pending count (acq_rel); the consumer is
  // made ready by the decrement that reaches zero, so whoever reads the
  // slots (PrepareInputs) or clears them (ClearInputs) runs after every
  // write to them, and no two threads touch one slot at once.
  std::vector<Entry> input_tensors_;
  std::unique_ptr<std::atomic<uint64_t>[]> pending_;  // By node id.
  std::atomic<int64_t> num_outstanding_ops_{0};

  Mutex mu_;
  absl::Status status_ ABSL_GUARDED_BY(mu_);
};

// What an async kernel's completion callback needs.
struct ExecutorState::AsyncState {
  TaggedNode tagged;
  std::vector<TensorValue> inputs;
  OpKernelContext::Params params;
  std::unique_ptr<OpKernelContext> ctx;
  NodeExecStats stats;
};

ExecutorState::ExecutorState(const Executor::Args& args, ExecutorImpl* impl,
                             Executor::DoneCallback done)
    : impl_(impl),
      gview_(impl->gview_),
      args_(args),
      done_(std::move(done)),
      device_(impl->params_.device),
      input_tensors_(impl->gview_.total_inputs()),
      pending_(new std::atomic<uint64_t>[impl->initial_pending_.size()]) {
  for (size_t i = 0; i < impl->initial_pending_.size(); ++i) {
    pending_[i].store(impl->initial_pending_[i], std::memory_order_relaxed);
  }
}

void ExecutorState::RunOnRunner(std::function<void()> fn) {
  if (args_.runner) {
    args_.runner(std::move(fn));
  } else {
    fn();
  }
}

void ExecutorState::RunAsync() {
  const std::vector<int>& roots = impl_->root_nodes_;
  if (roots.empty()) {
    Finish();
    return;
  }
  num_outstanding_ops_.store(static_cast<int64_t>(roots.size()), std::memory_order_relaxed);
  TaggedNodeSeq ready;
  for (int id : roots) ready.push_back(TaggedNode{gview_.node(id), false});
  // The calling thread starts the step itself: cheap roots (and one
  // expensive one) run here, the other expensive roots go to the runner. A
  // small step then needs no thread hand-off at all.
  std::deque<TaggedNode> inline_ready;
  ScheduleReady(ready, &inline_ready);
  if (inline_ready.empty()) return;
  // Process() consumes one queue; give it the first node and schedule the
  // rest behind it on this thread.
  TaggedNode first = inline_ready.front();
  inline_ready.pop_front();
  Process(first, std::move(inline_ready));
}

void ExecutorState::ScheduleReady(const TaggedNodeSeq& ready,
                                  std::deque<TaggedNode>* inline_ready) {
  if (ready.empty()) return;
  if (inline_ready == nullptr) {
    for (const TaggedNode& t : ready) {
      RunOnRunner([this, t] { Process(t); });
    }
    return;
  }
  const TaggedNode* curr_expensive_node = nullptr;
  for (const TaggedNode& t : ready) {
    if (t.is_dead || !t.item->kernel_is_expensive) {
      inline_ready->push_back(t);
      continue;
    }
    // Hand the previous expensive node to the pool; keep this one.
    if (curr_expensive_node != nullptr) {
      TaggedNode prev = *curr_expensive_node;
      RunOnRunner([this, prev] { Process(prev); });
    }
    curr_expensive_node = &t;
  }
  if (curr_expensive_node != nullptr) {
    if (inline_ready->empty()) {
      inline_ready->push_back(*curr_expensive_node);
    } else {
      TaggedNode t = *curr_expensive_node;
      RunOnRunner([this, t] { Process(t); });
    }
  }
}

absl::Status ExecutorState::PrepareInputs(const NodeItem& item,
                                          std::vector<TensorValue>* inputs) {
  inputs->assign(item.num_inputs, TensorValue{});
  Entry* first = input_tensors_.data() + item.input_start;
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

absl::Status ExecutorState::ProcessOutputs(const NodeItem& item, OpKernelContext* ctx,
                                           EntryVector* outputs, NodeExecStats* stats) {
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

void ExecutorState::PropagateOutputs(const TaggedNode& tagged, EntryVector* outputs,
                                     TaggedNodeSeq* ready) {
  const NodeItem& item = *tagged.item;
  const EdgeInfo* edges = item.output_edges();
  for (int i = 0; i < item.num_output_edges; ++i) {
    const EdgeInfo& e = edges[i];
    const NodeItem* dst = gview_.node(e.dst_id);
    Entry* src_entry = tagged.is_dead ? nullptr : &(*outputs)[e.output_slot];
    const bool is_dead = src_entry == nullptr || src_entry->state == Entry::State::kNoValue;
    if (!is_dead) {
      Entry& dst_entry = input_tensors_[dst->input_start + e.input_slot];
      if (e.is_last) {
        dst_entry = std::move(*src_entry);
      } else {
        dst_entry = *src_entry;
      }
    }
    std::atomic<uint64_t>& word = pending_[e.dst_id];
    if (!dst->is_merge) {
      const uint64_t delta = (is_dead ? kDeadOne : 0) - 1;
      const uint64_t now = word.fetch_add(delta, std::memory_order_acq_rel) + delta;
      if (PendingOf(now) == 0) ready->push_back(TaggedNode{dst, DeadOf(now) > 0});
      continue;
    }
    // Merge: ready on the first live input, or dead once all inputs are dead.
    uint64_t old = word.load(std::memory_order_acquire);
    while (true) {
      uint64_t now = old;
      bool activate = false, activate_dead = false;
      if (!is_dead) {
        if ((PendingOf(old) & 1) == 0) break;  // A live input already arrived.
        now = old & ~uint64_t{1};
        activate = PendingOf(now) == 0;
      } else {
        now = old + kDeadOne;
        activate_dead = (PendingOf(now) == 1) &&
                        DeadOf(now) == static_cast<uint32_t>(dst->num_data_inputs);
      }
      if (word.compare_exchange_weak(old, now, std::memory_order_acq_rel)) {
        if (activate) ready->push_back(TaggedNode{dst, false});
        if (activate_dead) ready->push_back(TaggedNode{dst, true});
        break;
      }
    }
  }
  const ControlEdgeInfo* controls = item.output_control_edges();
  for (int i = 0; i < item.num_output_control_edges; ++i) {
    const NodeItem* dst = gview_.node(controls[i].dst_id);
    std::atomic<uint64_t>& word = pending_[controls[i].dst_id];
    if (!dst->is_merge) {
      const uint64_t delta = (tagged.is_dead ? kDeadOne : 0) - 1;
      const uint64_t now = word.fetch_add(delta, std::memory_order_acq_rel) + delta;
      if (PendingOf(now) == 0) ready->push_back(TaggedNode{dst, DeadOf(now) > 0});
      continue;
    }
    const uint64_t now = word.fetch_sub(2, std::memory_order_acq_rel) - 2;
    if (PendingOf(now) == 0) {
      ready->push_back(TaggedNode{dst, false});
    } else if (PendingOf(now) == 1 &&
               DeadOf(now) == static_cast<uint32_t>(dst->num_data_inputs) &&
               dst->num_data_inputs > 0) {
      ready->push_back(TaggedNode{dst, true});
    }
  }
}

void ExecutorState::ClearInputs(const NodeItem& item) {
  Entry* first = input_tensors_.data() + item.input_start;
  for (int i = 0; i < item.num_inputs; ++i) first[i].Clear();
}

void ExecutorState::Process(TaggedNode node, std::deque<TaggedNode> more) {
  std::deque<TaggedNode> inline_ready = std::move(more);
  inline_ready.push_front(node);
  std::vector<TensorValue> inputs;
  TaggedNodeSeq ready;
  const uint32_t thread_id =
      static_cast<uint32_t>(std::hash<std::thread::id>()(std::this_thread::get_id()));
  while (!inline_ready.empty()) {
    TaggedNode tagged = inline_ready.front();
    inline_ready.pop_front();
    const NodeItem& item = *tagged.item;
    ready.clear();
    EntryVector outputs;
    absl::Status s;
    NodeExecStats stats;
    NodeExecStats* stats_ptr = args_.stats_collector != nullptr ? &stats : nullptr;
    if (stats_ptr != nullptr) {
      stats.node_name = item.node->name();
      stats.op = item.node->type_string();
      stats.all_start_micros = NowMicros();
      stats.thread_id = thread_id;
    }
    if (args_.cancellation_manager != nullptr && args_.cancellation_manager->IsCancelled()) {
      s = absl::CancelledError("the step was cancelled");
    } else if (!tagged.is_dead || impl_->is_transfer_node_[item.id]) {
      // A dead transfer node runs with empty inputs to pass its deadness on.
      if (tagged.is_dead) {
        inputs.assign(item.num_inputs, TensorValue{});
      } else {
        s = PrepareInputs(item, &inputs);
      }
      if (s.ok() && item.kernel_is_async) {
        auto state = std::make_unique<AsyncState>();
        state->tagged = tagged;
        state->inputs = inputs;
        state->params.step_id = args_.step_id;
        state->params.device = device_;
        state->params.op_device_context = impl_->DeviceContextOf(item.id);
        state->params.op_kernel = item.kernel;
        state->params.inputs = state->inputs;
        state->params.call_frame = args_.call_frame;
        state->params.cancellation_manager = args_.cancellation_manager;
        state->params.runner = args_.runner ? &args_.runner : nullptr;
        state->params.rendezvous = args_.rendezvous;
        state->params.is_input_dead = tagged.is_dead;
        state->ctx = std::make_unique<OpKernelContext>(&state->params);
        stats.async = true;
        state->stats = std::move(stats);
        AsyncState* raw = state.release();
        auto done = [this, raw] {
          std::unique_ptr<AsyncState> owned(raw);
          NodeExecStats* st = args_.stats_collector != nullptr ? &owned->stats : nullptr;
          if (st != nullptr) st->op_end_rel_micros = NowMicros() - st->all_start_micros;
          EntryVector outs;
          absl::Status status = ProcessOutputs(*owned->tagged.item, owned->ctx.get(), &outs, st);
          owned->ctx.reset();
          ClearInputs(*owned->tagged.item);
          TaggedNodeSeq ready_after;
          if (status.ok()) PropagateOutputs(owned->tagged, &outs, &ready_after);
          if (st != nullptr) {
            st->all_end_rel_micros = NowMicros() - st->all_start_micros;
            args_.stats_collector->Save(device_->name(), std::move(*st));
          }
          if (NodeDone(status, ready_after, nullptr)) Finish();
        };
        // `raw` and this step state live until `done` has run, the kernel
        // and the device as long as the executor.
        auto launch = [this, raw, done = std::move(done)]() mutable {
          if (args_.stats_collector != nullptr) {
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
        OpKernelContext::Params params;
        params.step_id = args_.step_id;
        params.device = device_;
        params.op_device_context = impl_->DeviceContextOf(item.id);
        params.op_kernel = item.kernel;
        params.inputs = inputs;
        params.call_frame = args_.call_frame;
        params.cancellation_manager = args_.cancellation_manager;
        params.runner = args_.runner ? &args_.runner : nullptr;
        params.rendezvous = args_.rendezvous;
        params.is_input_dead = tagged.is_dead;
        OpKernelContext ctx(&params);
        if (stats_ptr != nullptr) stats.op_start_rel_micros = NowMicros() - stats.all_start_micros;
        device_->Compute(item.kernel, &ctx);
        if (stats_ptr != nullptr) stats.op_end_rel_micros = NowMicros() - stats.all_start_micros;
        s = ProcessOutputs(item, &ctx, &outputs, stats_ptr);
      }
    }
    ClearInputs(item);
    if (s.ok()) PropagateOutputs(tagged, &outputs, &ready);
    outputs.clear();
    if (stats_ptr != nullptr) {
      stats.all_end_rel_micros = NowMicros() - stats.all_start_micros;
      args_.stats_collector->Save(device_->name(), std::move(stats));
    }
    if (NodeDone(s, ready, &inline_ready)) {
      Finish();
      return;
    }
  }
}

bool ExecutorState::NodeDone(const absl::Status& s, const TaggedNodeSeq& ready,
                             std::deque<TaggedNode>* inline_ready) {
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

void ExecutorState::Finish() {
  absl::Status status;
  {
    MutexLock lock(&mu_);
    status = status_;
  }
  Executor::DoneCallback done = done_;
  delete this;
  done(status);
}

void ExecutorImpl::RunAsync(const Args& args, DoneCallback done) {
  (new ExecutorState(args, this, std::move(done)))->RunAsync();
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
