#include "session/direct_session.h"

#include <algorithm>
#include <random>

#include "absl/cleanup/cleanup.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "device/device_factory.h"
#include "optimizer/graph_dump.h"
#include "optimizer/graph_optimizer.h"
#include "platform/cpu_info.h"
#include "platform/logging.h"
#include "platform/mutex.h"
#include "platform/status_macros.h"
#include "runtime/call_frame.h"
#include "runtime/memory_types.h"
#include "session/control_loops.h"
#include "session/graph_partition.h"
#include "session/placer.h"
#include "session/subgraph.h"

namespace minitf {

namespace {

int DefaultThreads(int requested) {
  if (requested > 0) return requested;
  return NumSchedulableCPUs();
}

// "x" -> "x:0"; errors name the malformed string.
absl::StatusOr<std::string> CanonicalTensorName(const std::string& name, absl::string_view what) {
  absl::StatusOr<TensorId> id = ParseTensorName(name);
  if (!id.ok() || id->IsControl()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " '", name, "' is not a tensor name"));
  }
  return id->ToString();
}

SessionRunActionRegistry* RegistryOf(const SessionOptions& options) {
  return options.action_registry != nullptr ? options.action_registry
                                            : SessionRunActionRegistry::Global();
}

DeviceSet DeviceSetOf(const DeviceMgr& device_mgr) {
  DeviceSet set;
  for (Device* d : device_mgr.ListDevices()) set.AddDevice(d);
  return set;
}

// Device name -> a random incarnation, as TensorFlow's are.
absl::flat_hash_map<std::string, uint64_t> RandomIncarnations(const DeviceMgr& device_mgr) {
  std::random_device seed;
  std::mt19937_64 random(seed());
  absl::flat_hash_map<std::string, uint64_t> incarnations;
  for (Device* d : device_mgr.ListDevices()) incarnations[d->name()] = random();
  return incarnations;
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
    const SessionOptions& given_options) {
  SessionOptions options = given_options;
  // The session-run actions fill in what they own (AntMan's control plane:
  // GPU_CONFIG_FILE, GPU_STATUS_FILE and the GPU settings they need).
  RegistryOf(options)->FillSessionOptions(&options);
  DeviceOptions device_options;
  device_options.device_count = options.config.device_count;
  device_options.intra_op_parallelism_threads = options.config.intra_op_parallelism_threads;
  device_options.gpu_options = options.config.gpu_options;
  std::vector<std::unique_ptr<Device>> devices;
  MINITF_RETURN_IF_ERROR(DeviceFactory::AddDevices(device_options, &devices));
  auto mgr = std::make_unique<DeviceMgr>(std::move(devices));
  return std::unique_ptr<DirectSession>(new DirectSession(options, std::move(mgr)));
}

DirectSession::DirectSession(const SessionOptions& options,
                             std::unique_ptr<DeviceMgr> device_mgr)
    : options_(options),
      action_registry_(RegistryOf(options)),
      device_mgr_(std::move(device_mgr)),
      device_set_(DeviceSetOf(*device_mgr_)),
      incarnations_(RandomIncarnations(*device_mgr_)),
      inter_op_pool_(std::make_unique<ThreadPool>(
          "inter_op", DefaultThreads(options_.config.inter_op_parallelism_threads))),
      runner_([pool = inter_op_pool_.get()](std::function<void()> fn) {
        pool->Schedule(std::move(fn));
      }) {}

DirectSession::~DirectSession() {
  // A device's stream callback (a transfer finishing) can still be handing
  // work to the inter-op pool after the step that waited for it returned;
  // drain the devices so no thread is inside the pool when it goes.
  for (Device* device : device_mgr_->ListDevices()) (void)device->Sync();
  // Action states (config listeners, pacing) reference the devices; so do
  // the executors. Drop both first.
  action_states_.Clear();
  {
    MutexLock lock(&callables_mu_);
    callables_.clear();
  }
  MutexLock lock(&executor_mu_);
  executors_.clear();
}

absl::Status DirectSession::Create(const GraphDef& graph) {
  MINITF_RETURN_IF_ERROR(CheckNotClosed());
  MutexLock lock(&graph_mu_);
  if (graph_created_) {
    return absl::AlreadyExistsError(
        "Session::Create was already called; use Extend to add nodes");
  }
  // Validate and place now, so a bad graph is reported here, not at the
  // first Run, and every Run keeps the devices chosen here.
  MINITF_RETURN_IF_ERROR(ValidateRequestedDevices(graph.node, device_set_, PlacerOptionsOf()));
  MINITF_ASSIGN_OR_RETURN(placement_, PlaceWholeGraph(graph, {}));
  graph_def_ = graph;
  graph_created_ = true;
  return absl::OkStatus();
}

absl::Status DirectSession::Extend(const GraphDef& graph) {
  MINITF_RETURN_IF_ERROR(CheckNotClosed());
  MutexLock lock(&graph_mu_);
  GraphDef extended = graph_def_;
  for (const NodeDef& n : graph.node) extended.node.push_back(n);
  MINITF_RETURN_IF_ERROR(ValidateRequestedDevices(graph.node, device_set_, PlacerOptionsOf()));
  // The nodes placed before keep their devices; only the new ones are placed.
  MINITF_ASSIGN_OR_RETURN(placement_, PlaceWholeGraph(extended, placement_));
  graph_def_ = std::move(extended);
  graph_created_ = true;
  return absl::OkStatus();
}

std::vector<Device*> DirectSession::ListDevices() const { return device_mgr_->ListDevices(); }

absl::StatusOr<DirectSession::Placement> DirectSession::PlaceWholeGraph(
    const GraphDef& graph_def, const Placement& placed) const {
  MINITF_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, ConvertGraphDefToGraph(graph_def));
  AssignPlacedDevices(placed, graph.get());
  MINITF_RETURN_IF_ERROR(PlaceGraph(graph.get(), device_set_, PlacerOptionsOf()));
  Placement placement;
  for (const Node* n : graph->op_nodes()) placement[n->name()] = n->assigned_device_name();
  return placement;
}

void DirectSession::AssignPlacedDevices(const Placement& placement, Graph* graph) {
  for (Node* n : graph->op_nodes()) {
    auto it = placement.find(n->name());
    if (it != placement.end()) n->set_assigned_device_name(it->second);
  }
}

PlacerOptions DirectSession::PlacerOptionsOf() const {
  PlacerOptions placer_options;
  placer_options.allow_soft_placement = options_.config.allow_soft_placement;
  placer_options.log_device_placement = options_.config.log_device_placement;
  return placer_options;
}

absl::Status DirectSession::CheckNotClosed() const {
  // TensorFlow's answer: the work asked for is cancelled, not misordered.
  MutexLock lock(&close_mu_);
  if (closed_) return absl::CancelledError("Session has been closed.");
  return absl::OkStatus();
}

absl::Status DirectSession::BeginCall() {
  MutexLock lock(&close_mu_);
  if (closed_) return absl::CancelledError("Session has been closed.");
  ++calls_in_flight_;
  return absl::OkStatus();
}

void DirectSession::EndCall() {
  MutexLock lock(&close_mu_);
  if (--calls_in_flight_ == 0 && closed_) no_calls_in_flight_.SignalAll();
}

absl::Status DirectSession::Close() {
  {
    MutexLock lock(&close_mu_);
    if (closed_) return absl::OkStatus();
    closed_ = true;
  }
  // New calls now fail; the steps already running are cancelled (a step
  // that registers after this fails at once), and their calls return.
  cancellation_manager_.StartCancel();
  {
    MutexLock lock(&close_mu_);
    while (calls_in_flight_ > 0) no_calls_in_flight_.Wait(&close_mu_);
  }
  {
    // The handles stay known, so ReleaseCallable still answers OK.
    MutexLock lock(&callables_mu_);
    for (std::shared_ptr<const Callable>& callable : callables_) callable.reset();
  }
  MutexLock lock(&executor_mu_);
  executors_.clear();
  return absl::OkStatus();
}

int DirectSession::NumCachedExecutors() const {
  MutexLock lock(&executor_mu_);
  return static_cast<int>(executors_.size());
}

absl::StatusOr<std::unique_ptr<DirectSession::ExecutorsAndKeys>> DirectSession::CreateExecutors(
    const GraphDef& graph_def, const Placement& placement, const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches, const std::vector<std::string>& targets) {
  MINITF_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, ConvertGraphDefToGraph(graph_def));
  AssignPlacedDevices(placement, graph.get());
  subgraph::RewriteResult rewrite;
  MINITF_RETURN_IF_ERROR(subgraph::RewriteGraphForExecution(
      graph.get(), feeds, fetches, targets, device_set_.client_device()->name(), &rewrite));
  // Only the feeds and fetches are new: they go to the client device.
  PlacerOptions placer_options = PlacerOptionsOf();
  placer_options.log_device_placement = false;
  MINITF_RETURN_IF_ERROR(PlaceGraph(graph.get(), device_set_, placer_options));
  MINITF_RETURN_IF_ERROR(AddControlLoops(graph.get()));
  MINITF_RETURN_IF_ERROR(
      GraphOptimizer(options_.config.graph_options, device_set_.client_device())
          .Optimize(graph.get()));

  PartitionOptions partition_options;
  partition_options.get_incarnation = [this](const std::string& device) {
    return incarnations_.at(device);
  };
  partition_options.memory_types = [this](const Node& n, MemoryTypeVector* inputs,
                                          MemoryTypeVector* outputs) -> absl::Status {
    MINITF_ASSIGN_OR_RETURN(Device * device, device_mgr_->LookupDevice(n.assigned_device_name()));
    return MemoryTypesForNode(device->device_type(), device->platform_name(), n.def(), inputs,
                              outputs);
  };
  absl::flat_hash_map<std::string, GraphDef> partitions;
  MINITF_RETURN_IF_ERROR(Partition(partition_options, graph.get(), &partitions));
  for (const auto& [device, partition] : partitions) {
    DumpGraphDef(absl::StrCat("partition_", device), partition);
  }
  auto eks = std::make_unique<ExecutorsAndKeys>();
  MINITF_ASSIGN_OR_RETURN(eks->executors,
                          ExecutorSet::Create(partitions, device_mgr_.get(), &op_segment_));
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
  Placement placement;
  {
    MutexLock lock(&graph_mu_);
    graph_def = graph_def_;
    placement = placement_;
  }
  // Built outside the lock: other signatures keep running meanwhile.
  MINITF_ASSIGN_OR_RETURN(std::unique_ptr<ExecutorsAndKeys> eks,
                          CreateExecutors(graph_def, placement, feeds, fetches, targets));
  MutexLock lock(&executor_mu_);
  auto [it, inserted] = executors_.try_emplace(key, std::move(eks));
  if (inserted) it->second->graph_id = next_graph_id_++;
  return it->second.get();
}

absl::Status DirectSession::CanonicalSignature(const std::vector<std::string>& feed_names,
                                               const std::vector<std::string>& fetch_names,
                                               const std::vector<std::string>& target_names,
                                               Signature* signature) {
  absl::flat_hash_set<std::string> seen_feeds;
  for (const std::string& name : feed_names) {
    MINITF_ASSIGN_OR_RETURN(std::string canonical, CanonicalTensorName(name, "Feed"));
    if (!seen_feeds.insert(canonical).second) {
      return absl::InvalidArgumentError(absl::StrCat("Feed '", name, "' is given twice"));
    }
    signature->feeds.push_back(std::move(canonical));
  }
  for (const std::string& name : fetch_names) {
    MINITF_ASSIGN_OR_RETURN(std::string canonical, CanonicalTensorName(name, "Fetch"));
    signature->fetches.push_back(std::move(canonical));
  }
  std::vector<std::string> fetches = Sorted(signature->fetches);
  fetches.erase(std::unique(fetches.begin(), fetches.end()), fetches.end());
  std::vector<std::string> targets = Sorted(target_names);
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  MINITF_ASSIGN_OR_RETURN(signature->executors,
                          GetOrCreateExecutors(Sorted(signature->feeds), fetches, targets));
  return absl::OkStatus();
}

absl::Status DirectSession::CheckGraphCreated(absl::string_view method) const {
  MutexLock lock(&graph_mu_);
  if (!graph_created_) {
    return absl::FailedPreconditionError(
        absl::StrCat("Session was not created with a graph before ", method));
  }
  return absl::OkStatus();
}

absl::Status DirectSession::RunExecutors(const ExecutorsAndKeys& eks, std::vector<Tensor> args,
                                         const RunOptions& run_options,
                                         RunMetadata* run_metadata,
                                         std::vector<Tensor>* retvals) {
  SessionRunActionOptions action_options;
  action_options.device_mgr = device_mgr_.get();
  action_options.device_set = &device_set_;
  action_options.session = this;
  action_options.session_options = &options_;
  action_options.states = &action_states_;
  action_options.graph_id = eks.graph_id;
  action_options.step_id = next_step_id_.fetch_add(1);
  MINITF_RETURN_IF_ERROR(
      action_registry_->RunGrouping(SessionRunActionRegistry::PRE_SESSION_RUN, action_options));

  FunctionCallFrame frame(std::move(args), eks.num_outputs);
  StepStatsCollector stats;
  const bool trace = run_options.trace_level == RunOptions::FULL_TRACE && run_metadata;
  ExecutorSet::StepArgs step;
  step.step_id = action_options.step_id;
  step.call_frame = &frame;
  step.stats_collector = trace ? &stats : nullptr;
  step.runner = runner_;
  step.timeout_ms = run_options.timeout_in_ms > 0 ? run_options.timeout_in_ms
                                                  : options_.config.operation_timeout_in_ms;
  step.session_cancellation = &cancellation_manager_;
  step.run_cancellation = run_options.cancellation_manager;
  const absl::Time start = absl::Now();
  MINITF_RETURN_IF_ERROR(eks.executors->RunStep(step));
  action_options.sess_duration_us = absl::ToInt64Microseconds(absl::Now() - start);
  MINITF_RETURN_IF_ERROR(
      action_registry_->RunGrouping(SessionRunActionRegistry::POST_SESSION_RUN, action_options));
  if (trace) stats.Finalize(&run_metadata->step_stats);
  if (retvals != nullptr) {
    std::vector<std::string> fetch_names(eks.num_outputs);
    for (const auto& [name, index] : eks.output_index) fetch_names[index] = name;
    MINITF_RETURN_IF_ERROR(frame.ConsumeRetvals(retvals, fetch_names));
  }
  return absl::OkStatus();
}

absl::Status DirectSession::Run(const RunOptions& run_options,
                                const std::vector<std::pair<std::string, Tensor>>& inputs,
                                const std::vector<std::string>& output_tensor_names,
                                const std::vector<std::string>& target_node_names,
                                std::vector<Tensor>* outputs, RunMetadata* run_metadata) {
  MINITF_RETURN_IF_ERROR(BeginCall());
  absl::Cleanup end_call = [this] { EndCall(); };
  MINITF_RETURN_IF_ERROR(CheckGraphCreated("Run()"));
  std::vector<std::string> feed_names;
  feed_names.reserve(inputs.size());
  for (const auto& [name, value] : inputs) feed_names.push_back(name);
  Signature signature;
  MINITF_RETURN_IF_ERROR(
      CanonicalSignature(feed_names, output_tensor_names, target_node_names, &signature));
  const ExecutorsAndKeys& eks = *signature.executors;

  // Feeds in call-frame order, checked against what the graph expects.
  std::vector<Tensor> args(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const int index = eks.input_index.at(signature.feeds[i]);
    MINITF_RETURN_IF_ERROR(CheckFeed(eks, index, inputs[i].first, inputs[i].second));
    args[index] = inputs[i].second;
  }
  std::vector<Tensor> retvals;
  MINITF_RETURN_IF_ERROR(RunExecutors(eks, std::move(args), run_options, run_metadata,
                                      outputs != nullptr ? &retvals : nullptr));
  if (outputs != nullptr) {
    outputs->clear();
    for (const std::string& name : signature.fetches) {
      outputs->push_back(retvals[eks.output_index.at(name)]);
    }
  }
  return absl::OkStatus();
}

absl::Status DirectSession::CheckFeed(const ExecutorsAndKeys& eks, int index,
                                      absl::string_view name, const Tensor& value) {
  if (value.dtype() != eks.feed_types[index]) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Feed '", name, "' has type ", DataTypeString(value.dtype()),
        ", but the graph expects ", DataTypeString(eks.feed_types[index])));
  }
  if (!eks.feed_shapes[index].IsCompatibleWith(value.shape())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Feed '", name, "' has shape ", value.shape().DebugString(),
        ", but the graph expects ", eks.feed_shapes[index].DebugString()));
  }
  if (!value.IsInitialized()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Feed '", name, "' (type ", DataTypeString(value.dtype()), ", shape ",
        value.shape().DebugString(), ") has no buffer: its allocation failed"));
  }
  return absl::OkStatus();
}

absl::Status DirectSession::MakeCallable(const CallableOptions& callable_options,
                                         CallableHandle* out_handle) {
  MINITF_RETURN_IF_ERROR(BeginCall());
  absl::Cleanup end_call = [this] { EndCall(); };
  MINITF_RETURN_IF_ERROR(CheckGraphCreated("MakeCallable()"));
  Signature signature;
  MINITF_RETURN_IF_ERROR(CanonicalSignature(callable_options.feed, callable_options.fetch,
                                            callable_options.target, &signature));
  auto callable = std::make_shared<Callable>();
  callable->executors = signature.executors;
  for (const std::string& feed : signature.feeds) {
    callable->arg_index.push_back(signature.executors->input_index.at(feed));
  }
  callable->retvals_in_fetch_order =
      static_cast<int>(signature.fetches.size()) == signature.executors->num_outputs;
  for (const std::string& fetch : signature.fetches) {
    const int index = signature.executors->output_index.at(fetch);
    if (index != static_cast<int>(callable->retval_index.size())) {
      callable->retvals_in_fetch_order = false;
    }
    callable->retval_index.push_back(index);
  }
  callable->feed_names = callable_options.feed;
  callable->run_options = callable_options.run_options;
  MutexLock lock(&callables_mu_);
  *out_handle = static_cast<CallableHandle>(callables_.size());
  callables_.push_back(std::move(callable));
  return absl::OkStatus();
}

absl::Status DirectSession::RunCallable(CallableHandle handle,
                                        const std::vector<Tensor>& feed_tensors,
                                        std::vector<Tensor>* fetch_tensors,
                                        RunMetadata* run_metadata) {
  MINITF_RETURN_IF_ERROR(BeginCall());
  absl::Cleanup end_call = [this] { EndCall(); };
  std::shared_ptr<const Callable> callable;
  {
    MutexLock lock(&callables_mu_);
    if (handle < 0 || handle >= static_cast<CallableHandle>(callables_.size())) {
      return absl::InvalidArgumentError(absl::StrCat("No such callable handle: ", handle));
    }
    callable = callables_[handle];
  }
  if (callable == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("Attempted to run callable after handle was released: ", handle));
  }
  const ExecutorsAndKeys& eks = *callable->executors;
  if (feed_tensors.size() != callable->arg_index.size()) {
    return absl::InvalidArgumentError(absl::StrCat("Expected ", callable->arg_index.size(),
                                                   " feed tensors, but got ",
                                                   feed_tensors.size()));
  }
  if (fetch_tensors == nullptr && !callable->retval_index.empty()) {
    return absl::InvalidArgumentError(
        "`fetch_tensors` must be provided when the callable has one or more outputs");
  }
  std::vector<Tensor> args(feed_tensors.size());
  for (size_t i = 0; i < feed_tensors.size(); ++i) {
    const int index = callable->arg_index[i];
    MINITF_RETURN_IF_ERROR(CheckFeed(eks, index, callable->feed_names[i], feed_tensors[i]));
    args[index] = feed_tensors[i];
  }
  if (fetch_tensors == nullptr) {
    return RunExecutors(eks, std::move(args), callable->run_options, run_metadata, nullptr);
  }
  if (callable->retvals_in_fetch_order) {
    return RunExecutors(eks, std::move(args), callable->run_options, run_metadata,
                        fetch_tensors);
  }
  std::vector<Tensor> retvals;
  MINITF_RETURN_IF_ERROR(
      RunExecutors(eks, std::move(args), callable->run_options, run_metadata, &retvals));
  fetch_tensors->clear();
  fetch_tensors->reserve(callable->retval_index.size());
  for (int index : callable->retval_index) fetch_tensors->push_back(retvals[index]);
  return absl::OkStatus();
}

absl::Status DirectSession::ReleaseCallable(CallableHandle handle) {
  MutexLock lock(&callables_mu_);
  if (handle < 0 || handle >= static_cast<CallableHandle>(callables_.size())) {
    return absl::InvalidArgumentError(absl::StrCat("No such callable handle: ", handle));
  }
  callables_[handle].reset();
  return absl::OkStatus();
}

}  // namespace minitf
