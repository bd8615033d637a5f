#include "session/direct_session.h"

#include <algorithm>
#include <thread>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/mutex.h"
#include "absl/time/time.h"
#include "device/device_factory.h"
#include "runtime/call_frame.h"
#include "runtime/logging.h"
#include "runtime/status_macros.h"
#include "session/placer.h"
#include "session/subgraph.h"

namespace minitf {

namespace {

int DefaultThreads(int requested) {
  if (requested > 0) return requested;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// "x" -> "x:0"; errors name the malformed string.
absl::StatusOr<std::string> CanonicalTensorName(const std::string& name, absl::string_view what) {
  absl::StatusOr<TensorId> id = ParseTensorName(name);
  if (!id.ok() || id->IsControl()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " '", name, "' is not a tensor name"));
  }
  return id->ToString();
}

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Session>> NewSession(const SessionOptions& options) {
  MINITF_ASSIGN_OR_RETURN(std::unique_ptr<DirectSession> session, DirectSession::New(options));
  return std::unique_ptr<Session>(std::move(session));
}

absl::StatusOr<std::unique_ptr<DirectSession>> DirectSession::New(
    const SessionOptions& options) {
  DeviceOptions device_options;
  device_options.device_count = options.config.device_count;
  device_options.intra_op_parallelism_threads = options.config.intra_op_parallelism_threads;
  std::vector<std::unique_ptr<Device>> devices;
  MINITF_RETURN_IF_ERROR(DeviceFactory::AddDevices(device_options, &devices));
  auto mgr = std::make_unique<DeviceMgr>(std::move(devices));
  return std::unique_ptr<DirectSession>(new DirectSession(options, std::move(mgr)));
}

DirectSession::DirectSession(const SessionOptions& options,
                             std::unique_ptr<DeviceMgr> device_mgr)
    : options_(options), device_mgr_(std::move(device_mgr)) {
  for (Device* d : device_mgr_->ListDevices()) device_set_.AddDevice(d);
  inter_op_pool_ = std::make_unique<ThreadPool>(
      "inter_op", DefaultThreads(options_.config.inter_op_parallelism_threads));
  ThreadPool* pool = inter_op_pool_.get();
  runner_ = [pool](std::function<void()> fn) { pool->Schedule(std::move(fn)); };
}

DirectSession::~DirectSession() {
  // Executors reference the devices; drop them first.
  MutexLock lock(&executor_mu_);
  executors_.clear();
}

absl::Status DirectSession::Create(const GraphDef& graph) {
  if (closed_.load()) return absl::FailedPreconditionError("Session has been closed.");
  MutexLock lock(&graph_mu_);
  if (graph_created_) {
    return absl::AlreadyExistsError(
        "Session::Create was already called; use Extend to add nodes");
  }
  // Validate now so a bad graph is reported here, not at the first Run.
  MINITF_RETURN_IF_ERROR(ConvertGraphDefToGraph(graph).status());
  graph_def_ = graph;
  graph_created_ = true;
  return absl::OkStatus();
}

absl::Status DirectSession::Extend(const GraphDef& graph) {
  if (closed_.load()) return absl::FailedPreconditionError("Session has been closed.");
  MutexLock lock(&graph_mu_);
  GraphDef extended = graph_def_;
  for (const NodeDef& n : graph.node) extended.node.push_back(n);
  MINITF_RETURN_IF_ERROR(ConvertGraphDefToGraph(extended).status());
  graph_def_ = std::move(extended);
  graph_created_ = true;
  return absl::OkStatus();
}

std::vector<Device*> DirectSession::ListDevices() const { return device_mgr_->ListDevices(); }

absl::Status DirectSession::Close() {
  closed_.store(true);
  return absl::OkStatus();
}

int DirectSession::NumCachedExecutors() const {
  MutexLock lock(&executor_mu_);
  return static_cast<int>(executors_.size());
}

absl::StatusOr<std::unique_ptr<DirectSession::ExecutorsAndKeys>> DirectSession::CreateExecutors(
    const GraphDef& graph_def, const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches, const std::vector<std::string>& targets) {
  MINITF_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, ConvertGraphDefToGraph(graph_def));
  subgraph::RewriteResult rewrite;
  MINITF_RETURN_IF_ERROR(
      subgraph::RewriteGraphForExecution(graph.get(), feeds, fetches, targets, &rewrite));
  PlacerOptions placer_options;
  placer_options.allow_soft_placement = options_.config.allow_soft_placement;
  placer_options.log_device_placement = options_.config.log_device_placement;
  MINITF_RETURN_IF_ERROR(PlaceGraph(graph.get(), device_set_, placer_options));

  // Partitioning: every node must share one device until cross-device
  // Send/Recv exists.
  std::string device_name;
  for (Node* n : graph->op_nodes()) {
    if (device_name.empty()) device_name = n->assigned_device_name();
    if (n->assigned_device_name() != device_name) {
      return absl::UnimplementedError(absl::StrCat(
          "the graph spans devices ", device_name, " and ", n->assigned_device_name(),
          " (node '", n->name(), "'); cross-device edges need _Send/_Recv"));
    }
  }
  auto eks = std::make_unique<ExecutorsAndKeys>();
  if (!device_name.empty()) {
    MINITF_ASSIGN_OR_RETURN(Device * device, device_mgr_->LookupDevice(device_name));
    LocalExecutorParams params;
    params.device = device;
    MINITF_ASSIGN_OR_RETURN(std::unique_ptr<Executor> executor,
                            NewLocalExecutor(params, std::move(graph)));
    eks->partitions.push_back({device, std::move(executor)});
  }
  for (size_t i = 0; i < feeds.size(); ++i) eks->input_index[feeds[i]] = static_cast<int>(i);
  for (size_t i = 0; i < fetches.size(); ++i) eks->output_index[fetches[i]] = static_cast<int>(i);
  eks->num_outputs = static_cast<int>(fetches.size());
  eks->feed_types = std::move(rewrite.feed_types);
  eks->feed_shapes = std::move(rewrite.feed_shapes);
  return eks;
}

absl::StatusOr<const DirectSession::ExecutorsAndKeys*> DirectSession::GetOrCreateExecutors(
    const std::vector<std::string>& feeds, const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets) {
  const std::string key = absl::StrCat(absl::StrJoin(feeds, ","), "->",
                                       absl::StrJoin(fetches, ","), "/",
                                       absl::StrJoin(targets, ","));
  {
    MutexLock lock(&executor_mu_);
    auto it = executors_.find(key);
    if (it != executors_.end()) return it->second.get();
  }
  GraphDef graph_def;
  {
    MutexLock lock(&graph_mu_);
    graph_def = graph_def_;
  }
  // Built outside the lock: other signatures keep running meanwhile.
  MINITF_ASSIGN_OR_RETURN(std::unique_ptr<ExecutorsAndKeys> eks,
                          CreateExecutors(graph_def, feeds, fetches, targets));
  MutexLock lock(&executor_mu_);
  auto [it, inserted] = executors_.try_emplace(key, std::move(eks));
  if (inserted) it->second->graph_id = next_graph_id_++;
  return it->second.get();
}

absl::Status DirectSession::Run(const RunOptions& run_options,
                                const std::vector<std::pair<std::string, Tensor>>& inputs,
                                const std::vector<std::string>& output_tensor_names,
                                const std::vector<std::string>& target_node_names,
                                std::vector<Tensor>* outputs, RunMetadata* run_metadata) {
  if (closed_.load()) return absl::FailedPreconditionError("Session has been closed.");
  {
    MutexLock lock(&graph_mu_);
    if (!graph_created_) {
      return absl::FailedPreconditionError("Session was not created with a graph before Run()");
    }
  }
  // Canonical, sorted signature.
  std::vector<std::string> feeds, fetches;
  absl::flat_hash_set<std::string> seen_feeds;
  for (const auto& [name, value] : inputs) {
    MINITF_ASSIGN_OR_RETURN(std::string canonical, CanonicalTensorName(name, "Feed"));
    if (!seen_feeds.insert(canonical).second) {
      return absl::InvalidArgumentError(absl::StrCat("Feed '", name, "' is given twice"));
    }
    feeds.push_back(std::move(canonical));
  }
  std::vector<std::string> fetch_order;
  for (const std::string& name : output_tensor_names) {
    MINITF_ASSIGN_OR_RETURN(std::string canonical, CanonicalTensorName(name, "Fetch"));
    fetch_order.push_back(canonical);
  }
  fetches = Sorted(fetch_order);
  fetches.erase(std::unique(fetches.begin(), fetches.end()), fetches.end());
  std::vector<std::string> targets = Sorted(target_node_names);
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  MINITF_ASSIGN_OR_RETURN(const ExecutorsAndKeys* eks,
                          GetOrCreateExecutors(Sorted(feeds), fetches, targets));

  // Feeds in call-frame order, checked against what the graph expects.
  std::vector<Tensor> args(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const int index = eks->input_index.at(feeds[i]);
    const Tensor& value = inputs[i].second;
    if (value.dtype() != eks->feed_types[index]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Feed '", inputs[i].first, "' has type ", DataTypeString(value.dtype()),
          ", but the graph expects ", DataTypeString(eks->feed_types[index])));
    }
    if (!eks->feed_shapes[index].IsCompatibleWith(value.shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Feed '", inputs[i].first, "' has shape ", value.shape().DebugString(),
          ", but the graph expects ", eks->feed_shapes[index].DebugString()));
    }
    args[index] = value;
  }

  FunctionCallFrame frame(std::move(args), eks->num_outputs);
  CancellationManager step_cancellation;
  StepStatsCollector stats;
  const bool trace = run_options.trace_level == RunOptions::FULL_TRACE && run_metadata;
  Executor::Args exec_args;
  exec_args.step_id = next_step_id_.fetch_add(1);
  exec_args.call_frame = &frame;
  exec_args.cancellation_manager = &step_cancellation;
  exec_args.stats_collector = trace ? &stats : nullptr;
  exec_args.runner = runner_;

  // Every partition runs; the step ends when all are done (ExecutorBarrier).
  Notification step_done;
  Mutex status_mu;
  absl::Status step_status;
  std::atomic<int> pending(static_cast<int>(eks->partitions.size()));
  if (eks->partitions.empty()) step_done.Notify();
  for (const auto& partition : eks->partitions) {
    partition.executor->RunAsync(exec_args, [&](const absl::Status& s) {
      if (!s.ok()) {
        MutexLock lock(&status_mu);
        if (step_status.ok()) step_status = s;
        step_cancellation.StartCancel();
      }
      if (pending.fetch_sub(1) == 1) step_done.Notify();
    });
  }
  const int64_t timeout_ms = run_options.timeout_in_ms > 0
                                 ? run_options.timeout_in_ms
                                 : options_.config.operation_timeout_in_ms;
  if (timeout_ms > 0 &&
      !step_done.WaitForNotificationWithTimeout(absl::Milliseconds(timeout_ms))) {
    step_cancellation.StartCancel();
    step_done.WaitForNotification();
    return absl::DeadlineExceededError(absl::StrCat("Timed out after ", timeout_ms,
                                                    " ms waiting for step ",
                                                    exec_args.step_id));
  }
  step_done.WaitForNotification();
  {
    MutexLock lock(&status_mu);
    MINITF_RETURN_IF_ERROR(step_status);
  }
  if (trace) stats.Finalize(&run_metadata->step_stats);
  if (outputs != nullptr) {
    std::vector<Tensor> retvals;
    MINITF_RETURN_IF_ERROR(frame.ConsumeRetvals(&retvals));
    outputs->clear();
    for (const std::string& name : fetch_order) {
      outputs->push_back(retvals[eks->output_index.at(name)]);
    }
  }
  return absl::OkStatus();
}

}  // namespace minitf
