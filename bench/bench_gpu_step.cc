// Where a training step's host time goes on a GPU, measured on SimGPU so the
// host path can be improved on a machine without one: the ResNet-50 and
// BERT training graphs TensorFlow wrote (tests/fixtures/tf), placed with
// CUDA's kernel set, in timing mode (kernels take their modeled time and do
// no arithmetic), each step traced (RunOptions FULL_TRACE).
//
//   MINITF_SIMGPU=mode=timing build/bin/bench_gpu_step [STEPS] [resnet50|bert ...]
//
// For each graph, medians over STEPS traced steps (default 5) after one
// untraced warm-up step:
//   step        the step's wall time, and the GPU's modeled busy time in
//               it (the baseline: a host that kept the GPU busy would make
//               the ratio 1)
//   untraced    the same for STEPS steps run without tracing after them
//   SimGPU      kernels the engine ran per step, and how many ran their
//               body (in timing mode, the ops that waited for the device)
//   GPU nodes   nodes run on the GPU per step, and of those the
//               synchronous ones' host time (SimGPU's kernels are
//               asynchronous: their host time is not in the trace)
//   CPU nodes   the nodes placed on the CPU (no CUDA kernel) and their time
//   copies      tensors sent host -> device and device -> host per step,
//               and their bytes: activations leaving the GPU
// then the CPU ops that take the most time over the traced steps, as
// `minitf run --profile` tables them (op_profile.h), transfers left out: the
// ops with no CUDA kernel, whose inputs and outputs cross PCIe.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "bench/harness/jobs/graph_job.h"
#include "bench/harness/jobs/op_profile.h"
#include "bench/harness/scenario/scenario.h"
#include "device/gpu/gpu_device.h"
#include "platform/status_macros.h"
#include "session/direct_session.h"
#include "stream/sim_gpu/sim_gpu_executor.h"

namespace minitf::harness {
namespace {

// One traced step, summed.
struct StepFigures {
  double wall_ms = 0;
  double gpu_busy_ms = 0;
  // SimGPU only: kernels the engine ran, and of those the ones whose body ran
  // (in timing mode: the ops that wait for the device).
  int64_t kernels = 0;
  int64_t bodies = 0;
  int64_t gpu_nodes = 0;
  int64_t gpu_sync_nodes = 0;
  int64_t gpu_sync_us = 0;
  int64_t cpu_nodes = 0;
  int64_t cpu_us = 0;
  int64_t h2d = 0, h2d_bytes = 0;
  int64_t d2h = 0, d2h_bytes = 0;
};

bool IsRecv(const std::string& op) { return op == "_Recv" || op == "_HostRecv"; }

int64_t OutputBytes(const NodeExecStats& n) {
  int64_t bytes = 0;
  for (const NodeOutputStats& o : n.outputs) bytes += o.allocated_bytes;
  return bytes;
}

StepFigures Summarize(const StepStats& stats) {
  StepFigures f;
  for (const DeviceStepStats& dev : stats.dev_stats) {
    const bool gpu = absl::StrContains(dev.device, "GPU");
    for (const NodeExecStats& n : dev.node_stats) {
      const int64_t us = std::max<int64_t>(0, n.op_end_rel_micros - n.op_start_rel_micros);
      if (IsRecv(n.op)) {
        // A receive on the GPU brings a tensor from the host; on the CPU,
        // from the GPU (same-device edges need no _Recv).
        (gpu ? f.h2d : f.d2h) += 1;
        (gpu ? f.h2d_bytes : f.d2h_bytes) += OutputBytes(n);
        continue;
      }
      if (n.op == "_Send" || n.op == "_HostSend") continue;
      if (gpu) {
        ++f.gpu_nodes;
        if (!n.async) {
          ++f.gpu_sync_nodes;
          f.gpu_sync_us += us;
        }
      } else {
        ++f.cpu_nodes;
        f.cpu_us += us;
      }
    }
  }
  return f;
}

template <typename Get>
double Median(const std::vector<StepFigures>& steps, Get get) {
  std::vector<double> v;
  for (const StepFigures& s : steps) v.push_back(static_cast<double>(get(s)));
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

absl::Status Profile(const std::string& name, int steps) {
  absl::StatusOr<JobSpec> spec = GraphJobFromManifest(
      absl::StrCat(MINITF_SOURCE_DIR, "/tests/fixtures/tf/", name, "_train/manifest.json"), name);
  if (!spec.ok()) return spec.status();
  absl::StatusOr<JobModel> model = BuildGraphJobModel(*spec);
  if (!model.ok()) return model.status();
  SessionOptions options;
  options.config.allow_soft_placement = true;
  absl::StatusOr<std::unique_ptr<DirectSession>> session = DirectSession::New(options);
  if (!session.ok()) return session.status();
  if (absl::Status s = (*session)->Create(model->graph); !s.ok()) return s;
  if (!model->init.empty()) {
    if (absl::Status s = (*session)->Run({}, {}, {model->init}, nullptr); !s.ok()) return s;
  }
  GPUDevice* gpu = nullptr;
  for (Device* d : (*session)->ListDevices()) {
    if (gpu == nullptr) gpu = dynamic_cast<GPUDevice*>(d);
  }
  if (gpu == nullptr) return absl::FailedPreconditionError("the session has no GPU");
  std::vector<Tensor> out;
  if (absl::Status s = (*session)->Run(model->feeds, {}, {model->train}, &out); !s.ok()) return s;
  const auto* sim = dynamic_cast<const se::SimGPUExecutor*>(gpu->executor());
  OpProfile cpu_ops;  // The traced steps' CPU nodes.
  // One step, traced or not; the device's figures are counter deltas.
  const auto run_step = [&](bool traced, std::vector<StepFigures>* into) -> absl::Status {
    RunOptions run_options;
    if (traced) run_options.trace_level = RunOptions::FULL_TRACE;
    RunMetadata metadata;
    const absl::Duration busy_before = gpu->ComputeBusyTime();
    const int64_t kernels_before = sim != nullptr ? sim->KernelCount() : 0;
    const int64_t bodies_before = sim != nullptr ? sim->BodyCount() : 0;
    const absl::Time start = absl::Now();
    MINITF_RETURN_IF_ERROR(
        (*session)->Run(run_options, model->feeds, {}, {model->train}, &out, &metadata));
    StepFigures f = Summarize(metadata.step_stats);
    f.wall_ms = absl::ToDoubleMilliseconds(absl::Now() - start);
    f.gpu_busy_ms = absl::ToDoubleMilliseconds(gpu->ComputeBusyTime() - busy_before);
    if (sim != nullptr) {
      f.kernels = sim->KernelCount() - kernels_before;
      f.bodies = sim->BodyCount() - bodies_before;
    }
    if (traced) {
      // The CPU's ops, less the transfers (their time is the wait for the
      // device).
      std::erase_if(metadata.step_stats.dev_stats, [](const DeviceStepStats& dev) {
        return !absl::StrContains(dev.device, "CPU");
      });
      for (DeviceStepStats& dev : metadata.step_stats.dev_stats) {
        std::erase_if(dev.node_stats, [](const NodeExecStats& n) {
          return IsRecv(n.op) || n.op == "_Send" || n.op == "_HostSend";
        });
      }
      cpu_ops.AddStep(metadata.step_stats, f.wall_ms / 1e3);
    }
    into->push_back(std::move(f));
    return absl::OkStatus();
  };
  std::vector<StepFigures> figures;
  for (int i = 0; i < steps; ++i) MINITF_RETURN_IF_ERROR(run_step(/*traced=*/true, &figures));
  // The same steps untraced: tracing costs the host time per node, which
  // a host running ahead of the device may not have to spare.
  std::vector<StepFigures> untraced;
  for (int i = 0; i < steps; ++i) MINITF_RETURN_IF_ERROR(run_step(/*traced=*/false, &untraced));
  const double wall = Median(figures, [](const StepFigures& f) { return f.wall_ms; });
  const double busy = Median(figures, [](const StepFigures& f) { return f.gpu_busy_ms; });
  const double gpu_nodes = Median(figures, [](const StepFigures& f) { return f.gpu_nodes; });
  const double sync_nodes = Median(figures, [](const StepFigures& f) { return f.gpu_sync_nodes; });
  const double sync_us = Median(figures, [](const StepFigures& f) { return f.gpu_sync_us; });
  std::printf("%s training step, %d traced steps (medians):\n", name.c_str(), steps);
  std::printf("  step          %9.1f ms wall; GPU busy (modeled) %.1f ms = %.2f of wall\n", wall,
              busy, wall > 0 ? busy / wall : 0);
  const double untraced_wall = Median(untraced, [](const StepFigures& f) { return f.wall_ms; });
  const double untraced_busy =
      Median(untraced, [](const StepFigures& f) { return f.gpu_busy_ms; });
  std::printf("  untraced      %9.1f ms wall; GPU busy (modeled) %.1f ms = %.2f of wall\n",
              untraced_wall, untraced_busy, untraced_wall > 0 ? untraced_busy / untraced_wall : 0);
  std::printf("  GPU nodes     %9.0f per step; %.0f synchronous, %.1f ms of host time\n", gpu_nodes,
              sync_nodes, sync_us / 1e3);
  std::printf("  SimGPU        %9.0f kernels per step; %.0f ran their body (waited for the device)\n",
              Median(figures, [](const StepFigures& f) { return f.kernels; }),
              Median(figures, [](const StepFigures& f) { return f.bodies; }));
  std::printf("  CPU nodes     %9.0f per step; %.1f ms of op time\n",
              Median(figures, [](const StepFigures& f) { return f.cpu_nodes; }),
              Median(figures, [](const StepFigures& f) { return f.cpu_us; }) / 1e3);
  std::printf(
      "  copies        %9.0f host->device (%.1f MB), %.0f device->host (%.1f MB) per step\n",
      Median(figures, [](const StepFigures& f) { return f.h2d; }),
      Median(figures, [](const StepFigures& f) { return f.h2d_bytes; }) / 1e6,
      Median(figures, [](const StepFigures& f) { return f.d2h; }),
      Median(figures, [](const StepFigures& f) { return f.d2h_bytes; }) / 1e6);
  std::printf("  CPU ops by time:\n%s", FormatOpProfile(cpu_ops, 8).c_str());
  return absl::OkStatus();
}

}  // namespace
}  // namespace minitf::harness

int main(int argc, char** argv) {
  int steps = 5;
  std::vector<std::string> graphs;
  for (int i = 1; i < argc; ++i) {
    int n = 0;
    if (absl::SimpleAtoi(argv[i], &n) && n > 0) {
      steps = n;
    } else {
      graphs.push_back(argv[i]);
    }
  }
  if (graphs.empty()) graphs = {"resnet50", "bert"};
  for (const std::string& g : graphs) {
    if (g != "resnet50" && g != "bert") {
      std::fprintf(stderr, "bench_gpu_step: unknown graph '%s' (resnet50 or bert)\n", g.c_str());
      return 2;
    }
    absl::Status s = minitf::harness::Profile(g, steps);
    if (!s.ok()) {
      std::fprintf(stderr, "bench_gpu_step: %s: %s\n", g.c_str(), s.ToString().c_str());
      return 1;
    }
  }
  return 0;
}
