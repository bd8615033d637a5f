#include "python/src/session_binding.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "device/device.h"
#include "platform/mutex.h"
#include "pybind11/stl.h"
#include "python/src/interruptible.h"
#include "python/src/numpy_tensor.h"
#include "python/src/status_error.h"
#include "runtime/cancellation.h"
#include "platform/file.h"
#include "runtime/graph_def_io.h"
#include "session/antman/gpu_config.h"
#include "session/session.h"

namespace minitf::python {
namespace py = pybind11;

namespace {

// ConfigProto's fields as minitf.ConfigProto hands them over; an unknown
// key is an error (no setting is silently ignored).
SessionOptions ParseConfig(const py::dict& config) {
  SessionOptions options;
  ConfigProto& c = options.config;
  for (const auto& [key_handle, value] : config) {
    const std::string key = py::str(key_handle);
    if (key == "inter_op_parallelism_threads") {
      c.inter_op_parallelism_threads = value.cast<int>();
    } else if (key == "intra_op_parallelism_threads") {
      c.intra_op_parallelism_threads = value.cast<int>();
    } else if (key == "device_count") {
      c.device_count = value.cast<std::map<std::string, int>>();
    } else if (key == "allow_soft_placement") {
      c.allow_soft_placement = value.cast<bool>();
    } else if (key == "log_device_placement") {
      c.log_device_placement = value.cast<bool>();
    } else if (key == "operation_timeout_in_ms") {
      c.operation_timeout_in_ms = value.cast<int64_t>();
    } else if (key == "optimize") {
      if (!value.cast<bool>()) c.graph_options = GraphOptions::Unoptimized();
    } else if (key == "gpu_config_file") {
      options.gpu_config_file = value.cast<std::string>();
    } else if (key == "gpu_status_file") {
      options.gpu_status_file = value.cast<std::string>();
    } else if (key == "pacing_policy") {
      options.pacing_policy = value.cast<std::string>();
    } else {
      throw StatusError(absl::InvalidArgumentError(
          absl::StrCat("config: unknown field '", key, "'")));
    }
  }
  return options;
}

py::dict StepStatsDict(const StepStats& stats) {
  py::list devices;
  for (const DeviceStepStats& device : stats.dev_stats) {
    py::list nodes;
    for (const NodeExecStats& n : device.node_stats) {
      py::dict node;
      node["node_name"] = n.node_name;
      node["op"] = n.op;
      node["scheduled_micros"] = n.scheduled_micros;
      node["all_start_micros"] = n.all_start_micros;
      node["op_start_rel_micros"] = n.op_start_rel_micros;
      node["op_end_rel_micros"] = n.op_end_rel_micros;
      node["all_end_rel_micros"] = n.all_end_rel_micros;
      node["thread_id"] = n.thread_id;
      nodes.append(node);
    }
    py::dict entry;
    entry["device"] = device.device;
    entry["node_stats"] = nodes;
    devices.append(entry);
  }
  py::dict out;
  out["dev_stats"] = devices;
  return out;
}

py::list ArraysFromTensors(const std::vector<Tensor>& tensors,
                           const std::vector<std::string>& names) {
  py::list out;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const std::string what = i < names.size() ? absl::StrCat("fetch '", names[i], "'")
                                              : absl::StrCat("fetch ", i);
    absl::StatusOr<py::object> array = ArrayFromTensor(tensors[i], what);
    ThrowIfError(array.status());
    out.append(*array);
  }
  return out;
}

class PySession {
 public:
  PySession(const py::bytes& graph_def, bool is_text, const py::dict& config) {
    const std::string data = graph_def;
    absl::StatusOr<GraphDef> graph = is_text ? ParseTextGraphDef(data, "graph (text)")
                                             : ParseBinaryGraphDef(data, "graph");
    ThrowIfError(graph.status());
    RecordPlaceholders(*graph);
    const SessionOptions options = ParseConfig(config);
    gpu_config_file_ = options.gpu_config_file;
    absl::StatusOr<std::unique_ptr<Session>> session = NewSession(options);
    ThrowIfError(session.status());
    session_ = *std::move(session);
    ThrowIfError(session_->Create(*graph));
  }
  ~PySession() {
    py::gil_scoped_release release;
    session_->Close().IgnoreError();
  }

  // Returns (fetched arrays, step stats or None).
  py::tuple Run(const std::vector<std::pair<std::string, py::object>>& feeds,
                const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
                int64_t timeout_in_ms, bool trace) {
    std::vector<std::pair<std::string, Tensor>> inputs;
    inputs.reserve(feeds.size());
    for (const auto& [name, value] : feeds) {
      absl::StatusOr<Tensor> t = TensorFromArray(value, absl::StrCat("feed '", name, "'"));
      ThrowIfError(t.status());
      inputs.emplace_back(name, *std::move(t));
    }
    CancellationManager cancel;
    RunOptions options;
    options.timeout_in_ms = timeout_in_ms;
    options.trace_level = trace ? RunOptions::FULL_TRACE : RunOptions::NO_TRACE;
    options.cancellation_manager = &cancel;
    RunMetadata metadata;
    std::vector<Tensor> outputs;
    ThrowIfError(RunInterruptibly(
        [&] { return session_->Run(options, inputs, fetches, targets, &outputs, &metadata); },
        &cancel));
    py::object stats = trace ? py::object(StepStatsDict(metadata.step_stats)) : py::none();
    return py::make_tuple(ArraysFromTensors(outputs, fetches), stats);
  }

  int64_t MakeCallable(const std::vector<std::string>& feeds,
                       const std::vector<std::string>& fetches,
                       const std::vector<std::string>& targets) {
    auto callable = std::make_shared<Callable>();
    callable->options = CallableOptions{.feed = feeds, .fetch = fetches, .target = targets};
    ThrowIfError(Bind(callable.get()));
    MutexLock lock(&mu_);
    const int64_t id = next_callable_++;
    callables_[id] = std::move(callable);
    return id;
  }

  py::list RunCallable(int64_t id, const std::vector<py::object>& values) {
    std::shared_ptr<Callable> callable = Find(id);
    if (values.size() != callable->options.feed.size()) {
      throw StatusError(absl::InvalidArgumentError(
          absl::StrCat("the callable feeds ", callable->options.feed.size(), " tensors, ",
                       values.size(), " values were given")));
    }
    std::vector<Tensor> inputs;
    inputs.reserve(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      absl::StatusOr<Tensor> t =
          TensorFromArray(values[i], absl::StrCat("feed '", callable->options.feed[i], "'"));
      ThrowIfError(t.status());
      inputs.push_back(*std::move(t));
    }
    std::vector<Tensor> outputs;
    CancellationManager* cancel;
    Session::CallableHandle handle;
    {
      MutexLock lock(&callable->mu);
      cancel = callable->cancel.get();
      handle = callable->handle;
    }
    absl::Status status;
    try {
      status = RunInterruptibly(
          [&] { return session_->RunCallable(handle, inputs, &outputs, nullptr); }, cancel);
    } catch (py::error_already_set&) {
      // The interrupt cancelled the callable's manager: bind it again, with
      // a new one, for the next call.
      py::gil_scoped_release release;
      Bind(callable.get()).IgnoreError();
      throw;
    }
    ThrowIfError(status);
    return ArraysFromTensors(outputs, callable->options.fetch);
  }

  void ReleaseCallable(int64_t id) {
    std::shared_ptr<Callable> callable = Find(id);
    {
      MutexLock lock(&mu_);
      callables_.erase(id);
    }
    MutexLock lock(&callable->mu);
    ThrowIfError(session_->ReleaseCallable(callable->handle));
  }

  // Adds the nodes of a serialized GraphDef to the session's graph (the
  // nodes a Python Graph gained since the session last saw it).
  void Extend(const py::bytes& graph_def) {
    absl::StatusOr<GraphDef> graph = ParseBinaryGraphDef(std::string(graph_def), "graph");
    ThrowIfError(graph.status());
    RecordPlaceholders(*graph);
    py::gil_scoped_release release;
    ThrowIfError(session_->Extend(*graph));
  }

  // Rewrites the session's AntMan config file (the `gpu_config_file` it was
  // made with) with `max_device_mem` bytes for `device` and `perf_control`,
  // each kept as the file has it when not given; the session applies it
  // before its next step (docs/ANTMAN.md).
  void SetGpuConfig(std::optional<int64_t> max_device_mem, std::optional<int> perf_control,
                    const std::string& device) {
    if (gpu_config_file_.empty()) {
      throw StatusError(absl::FailedPreconditionError(
          "the session has no GPU config file: make it with config gpu_config_file=PATH"));
    }
    GPUConfig gpu;
    // The settings not given stay as the file has them (none yet: it may
    // not exist).
    absl::StatusOr<std::string> text =
        ReadRegularFile(gpu_config_file_, int64_t{1} << 20, "a GPU config");
    if (text.ok()) {
      absl::StatusOr<GPUConfig> current = ParseGPUConfig(*text, gpu_config_file_);
      ThrowIfError(current.status());
      gpu = *current;
    } else if (!absl::IsNotFound(text.status())) {
      ThrowIfError(text.status());
    }
    if (max_device_mem.has_value()) {
      if (*max_device_mem <= 0) {
        throw StatusError(absl::InvalidArgumentError(absl::StrCat(
            "max_device_mem wants a positive number of bytes, got ", *max_device_mem)));
      }
      absl::StatusOr<std::string> key = NormalizeGPUConfigDeviceKey(device);
      ThrowIfError(key.status());
      gpu.max_device_mem[*key] = *max_device_mem;
    }
    if (perf_control.has_value()) {
      if (*perf_control < 0 || *perf_control > 100) {
        throw StatusError(absl::InvalidArgumentError(
            absl::StrCat("perf_control wants 0..100, got ", *perf_control)));
      }
      gpu.perf_control = *perf_control;
    }
    ThrowIfError(WriteFileAtomically(gpu_config_file_, GPUConfigToJson(gpu)));
  }

  // The DataType of the placeholder `name` ("node" or "node:0") feeds, or
  // -1 when it names no placeholder.
  int PlaceholderDtype(const std::string& name) const {
    std::string node = name;
    if (absl::EndsWith(node, ":0")) node.resize(node.size() - 2);
    auto it = placeholder_dtypes_.find(node);
    return it == placeholder_dtypes_.end() ? -1 : static_cast<int>(it->second);
  }

  std::vector<std::string> ListDevices() const {
    std::vector<std::string> names;
    for (Device* d : session_->ListDevices()) names.push_back(d->name());
    return names;
  }

  void Close() {
    py::gil_scoped_release release;
    ThrowIfError(session_->Close());
  }

 private:
  struct Callable {
    CallableOptions options;
    Mutex mu;
    // The handle and the manager its calls are cancelled with (bound into
    // its run options; replaced after an interrupt cancelled it).
    Session::CallableHandle handle ABSL_GUARDED_BY(mu) = -1;
    std::unique_ptr<CancellationManager> cancel ABSL_GUARDED_BY(mu);
  };

  absl::Status Bind(Callable* callable) {
    MutexLock lock(&callable->mu);
    if (callable->handle >= 0) session_->ReleaseCallable(callable->handle).IgnoreError();
    callable->handle = -1;
    callable->cancel = std::make_unique<CancellationManager>();
    CallableOptions options = callable->options;
    options.run_options.cancellation_manager = callable->cancel.get();
    return session_->MakeCallable(options, &callable->handle);
  }

  void RecordPlaceholders(const GraphDef& graph) {
    for (const NodeDef& node : graph.node) {
      if (node.op != "Placeholder" && node.op != "PlaceholderWithDefault") continue;
      auto dtype = node.attr.find("dtype");
      if (dtype != node.attr.end() && dtype->second.Holds<DataType>()) {
        placeholder_dtypes_[node.name] = dtype->second.type();
      }
    }
  }

  std::shared_ptr<Callable> Find(int64_t id) {
    MutexLock lock(&mu_);
    auto it = callables_.find(id);
    if (it == callables_.end()) {
      throw StatusError(absl::InvalidArgumentError(
          absl::StrCat("no callable with handle ", id, " (released, or never made)")));
    }
    return it->second;
  }

  std::unique_ptr<Session> session_;
  std::string gpu_config_file_;  // AntMan's, from the config; "" for none.
  absl::flat_hash_map<std::string, DataType> placeholder_dtypes_;  // By node name.
  Mutex mu_;
  int64_t next_callable_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<int64_t, std::shared_ptr<Callable>> callables_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

void DefineSession(py::module_& module) {
  py::class_<PySession>(module, "Session", "A DirectSession over one GraphDef.")
      .def(py::init<const py::bytes&, bool, const py::dict&>(), py::arg("graph_def"),
           py::arg("is_text"), py::arg("config"),
           "Makes the session and creates its graph from a serialized GraphDef (binary, or "
           "text when is_text).")
      .def("extend", &PySession::Extend, py::arg("graph_def"),
           "Adds the nodes of a serialized GraphDef to the session's graph.")
      .def("set_gpu_config", &PySession::SetGpuConfig, py::arg("max_device_mem"),
           py::arg("perf_control"), py::arg("device"),
           "Rewrites the session's AntMan config file (None keeps a setting).")
      .def("placeholder_dtype", &PySession::PlaceholderDtype, py::arg("name"),
           "The DataType enum of the placeholder a feed name names, or -1.")
      .def("run", &PySession::Run, py::arg("feeds"), py::arg("fetches"), py::arg("targets"),
           py::arg("timeout_in_ms") = 0, py::arg("trace") = false,
           "Runs one step: (name, array) feeds, tensor names to fetch, node names to run. "
           "Returns (arrays, step stats dict or None).")
      .def("make_callable", &PySession::MakeCallable, py::arg("feeds"), py::arg("fetches"),
           py::arg("targets"), "Binds a signature; returns its handle.")
      .def("run_callable", &PySession::RunCallable, py::arg("handle"), py::arg("values"),
           "Runs a callable with its feeds' values, in order; returns the fetched arrays.")
      .def("release_callable", &PySession::ReleaseCallable, py::arg("handle"))
      .def("list_devices", &PySession::ListDevices, "The devices' full names.")
      .def("close", &PySession::Close, "Cancels running steps and frees the executors.");
}

}  // namespace minitf::python
