#include "python/src/coordinator_binding.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "pybind11/stl.h"
#include "python/src/status_error.h"
#include "session/antman/coordinator.h"

namespace minitf::python {
namespace py = pybind11;

namespace {

py::dict JobDict(const CoordinatedJob& job) {
  py::dict d;
  d["role"] = job.role;
  d["steps"] = job.steps;
  d["steps_per_s"] = job.steps_per_s < 0 ? py::object(py::none()) : py::float_(job.steps_per_s);
  d["peak_bytes"] = job.peak_bytes;
  d["max_device_mem"] = job.max_device_mem;
  d["perf_control"] = job.perf_control;
  return d;
}

// A policy's answer for one job: {"max_device_mem": bytes, "perf_control": 0..100}.
CoordinatedConfig ConfigFrom(const std::string& job, const py::handle& value) {
  if (!py::isinstance<py::dict>(value)) {
    throw StatusError(absl::InvalidArgumentError(absl::StrCat(
        "the coordinator's policy gave job '", job,
        "' no dict {\"max_device_mem\": bytes, \"perf_control\": 0..100}")));
  }
  py::dict d = py::reinterpret_borrow<py::dict>(value);
  for (const auto& [key, unused] : d) {
    const std::string k = py::str(key);
    if (k != "max_device_mem" && k != "perf_control") {
      throw StatusError(absl::InvalidArgumentError(absl::StrCat(
          "the coordinator's policy gave job '", job, "' an unknown setting '", k, "'")));
    }
  }
  CoordinatedConfig config;
  config.max_device_mem = d.contains("max_device_mem") ? d["max_device_mem"].cast<int64_t>() : 0;
  config.perf_control = d.contains("perf_control") ? d["perf_control"].cast<int>() : 100;
  return config;
}

class PyCoordinator {
 public:
  PyCoordinator(const std::string& dir, const py::object& policy, int64_t gpu_memory_bytes,
                double target, double window_s, double calibrate_s, double recalibrate_s,
                double stale_s) {
    CoordinatorOptions options;
    options.dir = dir;
    options.gpu_memory_bytes = gpu_memory_bytes;
    options.target = target;
    options.window_s = window_s;
    options.calibrate_s = calibrate_s;
    options.recalibrate_s = recalibrate_s;
    options.stale_s = stale_s;
    if (gpu_memory_bytes <= 0) {
      throw StatusError(absl::InvalidArgumentError(
          absl::StrCat("gpu_memory_bytes wants the GPU's capacity, got ", gpu_memory_bytes)));
    }
    if (py::isinstance<py::str>(policy)) {
      options.policy = policy.cast<std::string>();
      ThrowIfError(CheckCoordinatorPolicy(options.policy));
    } else if (PyCallable_Check(policy.ptr())) {
      options.policy = "python";
      options.custom_policy = [this, policy](double time_s, const std::vector<CoordinatedJob>& jobs)
          -> absl::StatusOr<std::map<std::string, CoordinatedConfig>> {
        return CallPolicy(policy, time_s, jobs);
      };
    } else {
      throw StatusError(absl::InvalidArgumentError(
          "policy wants 'antman', 'tgs' or a callable (time_s, jobs) -> configs"));
    }
    coordinator_ = std::make_unique<Coordinator>(std::move(options));
  }

  // One round; its decisions as dicts. A Python policy's exception is
  // raised here, as it was raised.
  py::list Tick() {
    absl::StatusOr<std::vector<Decision>> made = coordinator_->Tick();
    if (policy_error_.has_value()) {
      py::error_already_set error = std::move(*policy_error_);
      policy_error_.reset();
      throw error;
    }
    ThrowIfError(made.status());
    py::list out;
    for (const Decision& d : *made) {
      py::dict row;
      row["time_s"] = d.time_s;
      row["job"] = d.job;
      row["setting"] = d.setting;
      row["old_value"] = d.old_value;
      row["new_value"] = d.new_value;
      row["reason"] = d.reason;
      out.append(row);
    }
    return out;
  }

  double SoloRate(const std::string& job) const { return coordinator_->SoloRate(job); }

 private:
  absl::StatusOr<std::map<std::string, CoordinatedConfig>> CallPolicy(
      const py::object& policy, double time_s, const std::vector<CoordinatedJob>& jobs) {
    try {
      py::dict views;
      for (const CoordinatedJob& job : jobs) views[py::str(job.name)] = JobDict(job);
      py::object answer = policy(time_s, views);
      std::map<std::string, CoordinatedConfig> configs;
      if (answer.is_none()) return configs;
      if (!py::isinstance<py::dict>(answer)) {
        return absl::InvalidArgumentError(
            "the coordinator's policy returned no dict of job name -> config");
      }
      for (const auto& [name, value] : py::reinterpret_borrow<py::dict>(answer)) {
        const std::string job = py::str(name);
        configs[job] = ConfigFrom(job, value);
      }
      return configs;
    } catch (py::error_already_set& e) {
      policy_error_.emplace(std::move(e));
      return absl::AbortedError("the coordinator's policy raised");
    } catch (const StatusError& e) {
      return absl::Status(e.code(), e.what());
    }
  }

  std::unique_ptr<Coordinator> coordinator_;
  std::optional<py::error_already_set> policy_error_;
};

}  // namespace

void DefineCoordinator(py::module_& module) {
  py::class_<PyCoordinator>(module, "Coordinator", "AntMan's local coordinator over a directory.")
      .def(py::init<const std::string&, const py::object&, int64_t, double, double, double,
                    double, double>(),
           py::arg("dir"), py::arg("policy"), py::arg("gpu_memory_bytes"), py::arg("target"),
           py::arg("window_s"), py::arg("calibrate_s"), py::arg("recalibrate_s"),
           py::arg("stale_s"))
      .def("tick", &PyCoordinator::Tick,
           "One round: reads the jobs' files, decides, rewrites the configs that change; "
           "returns the decisions.")
      .def("solo_rate", &PyCoordinator::SoloRate, py::arg("job"));
}

}  // namespace minitf::python
