// Pacing accuracy (Google Benchmark): how closely each pacing policy holds
// a training job to its perfControl target on SimGPU.
//
//   build/bin/bench_pacing [--benchmark_filter=precise]
//
// BM_Pacing/<policy>/<target>: the CNN training example (bench/models) at
// 32x32 images, 256 channels, batch 256, on the default SimGPU (a V100) in
// timing mode — a GPU-bound job: its kernels take milliseconds, the host's
// gaps between them about 0.1-0.2 ms — alone on the device, under a config
// file with perfControl = target. After 3 warm-up steps under that target,
// 20 steps are measured; the job's GPU share is its kernels' busy
// time on the compute engine divided by the wall time of those steps
// (loop included, so the sleeps after steps count). Target 100 is the
// unrestricted baseline measured in the same run.
// Counters:
//   target_pct     perfControl
//   share_pct      the achieved GPU share, percent
//   error_pp       share_pct - target_pct (percentage points)
//   step_ms        mean wall time per step
//   solo_share_pct the unrestricted job's share in this process (what
//                  `antman` scales: it aims at target% of this)
#include <stdlib.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bench/models/cnn_model.h"
#include "benchmark/benchmark.h"
#include "device/gpu/gpu_device.h"
#include "platform/status_macros.h"
#include "session/direct_session.h"

namespace minitf {
namespace {

constexpr int kWarmupSteps = 3;
constexpr int kMeasuredSteps = 20;
// The job and its device (see the header comment).
constexpr int kImageSize = 32;
constexpr int kChannels = 256;
constexpr int kBatchSize = 256;
constexpr char kSimGPUOptions[] = "memory=16GiB,mode=timing";

struct Job {
  std::unique_ptr<DirectSession> session;
  GPUDevice* gpu = nullptr;
  TrainingModel model;
  Batch batch;
};

std::string TempDir() {
  std::string pattern = "/tmp/minitf_pacing_XXXXXX";
  char* dir = mkdtemp(pattern.data());
  return dir != nullptr ? std::string(dir) : std::string("/tmp");
}

absl::Status Step(Job& job) {
  std::vector<Tensor> out;
  return job.session->Run(job.batch.Feeds(job.model), {job.model.loss}, {job.model.train}, &out);
}

// The GPU share of `steps` steps: busy time / wall time.
absl::StatusOr<double> MeasureShare(Job& job, int steps, absl::Duration* wall) {
  const absl::Duration busy_before = job.gpu->ComputeBusyTime();
  const absl::Time start = absl::Now();
  for (int i = 0; i < steps; ++i) {
    absl::Status s = Step(job);
    if (!s.ok()) return s;
  }
  *wall = absl::Now() - start;
  return absl::FDivDuration(job.gpu->ComputeBusyTime() - busy_before, *wall);
}

// MINITF_PACING_SIMGPU overrides the device (docs/SIMGPU.md syntax).
std::string SimGPUOptions() {
  const char* env = getenv("MINITF_PACING_SIMGPU");
  return env != nullptr ? std::string(env) : std::string(kSimGPUOptions);
}

absl::StatusOr<Job> MakeJob(const std::string& config_file, const std::string& policy) {
  Job job;
  CnnConfig config;
  config.image_size = kImageSize;
  config.channels = kChannels;
  config.device = "/device:GPU:0";
  MINITF_ASSIGN_OR_RETURN(job.model, BuildCnnModel(config));
  MINITF_ASSIGN_OR_RETURN(job.batch, MakeBarsBatch(config, kBatchSize, /*seed=*/1));
  SessionOptions options;
  options.config.gpu_options.platform = "SimGPU";
  options.config.gpu_options.simgpu_options = SimGPUOptions();
  options.config.gpu_options.private_allocators = true;
  options.gpu_config_file = config_file;
  options.pacing_policy = policy;
  MINITF_ASSIGN_OR_RETURN(job.session, DirectSession::New(options));
  MINITF_RETURN_IF_ERROR(job.session->Create(job.model.graph));
  MINITF_RETURN_IF_ERROR(job.session->Run({}, {}, {job.model.init}, nullptr));
  for (Device* d : job.session->ListDevices()) {
    if (auto* gpu = dynamic_cast<GPUDevice*>(d)) job.gpu = gpu;
  }
  if (job.gpu == nullptr) return absl::InternalError("the session has no GPU");
  return job;
}

double g_solo_share = 0;

void BM_Pacing(benchmark::State& state, const std::string& policy, int target) {
  const std::string dir = TempDir();
  const std::string config_file = dir + "/job.json";
  {
    std::ofstream out(config_file);
    out << "{\"perfControl\": " << target << "}";
  }
  absl::StatusOr<Job> job = MakeJob(config_file, policy);
  if (!job.ok()) {
    state.SkipWithError(job.status().ToString().c_str());
    return;
  }
  for (auto _ : state) {
    for (int i = 0; i < kWarmupSteps; ++i) {
      if (absl::Status s = Step(*job); !s.ok()) {
        state.SkipWithError(s.ToString().c_str());
        return;
      }
    }
    absl::Duration wall;
    absl::StatusOr<double> share = MeasureShare(*job, kMeasuredSteps, &wall);
    if (!share.ok()) {
      state.SkipWithError(share.status().ToString().c_str());
      return;
    }
    state.SetIterationTime(absl::ToDoubleSeconds(wall));
    if (target == 100) g_solo_share = *share;
    state.counters["target_pct"] = target;
    state.counters["share_pct"] = 100 * *share;
    state.counters["error_pp"] = 100 * *share - target;
    state.counters["step_ms"] = absl::ToDoubleMilliseconds(wall) / kMeasuredSteps;
    state.counters["solo_share_pct"] = 100 * g_solo_share;
  }
}

void RegisterAll() {
  benchmark::RegisterBenchmark("BM_Pacing/solo/100", BM_Pacing, std::string("precise"), 100)
      ->UseManualTime()
      ->Iterations(1)
      ->Unit(benchmark::kMillisecond);
  for (const char* policy : {"precise", "antman"}) {
    for (int target = 10; target <= 90; target += 10) {
      benchmark::RegisterBenchmark(absl::StrCat("BM_Pacing/", policy, "/", target).c_str(),
                                   BM_Pacing, std::string(policy), target)
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond);
    }
  }
}

}  // namespace
}  // namespace minitf

int main(int argc, char** argv) {
  minitf::RegisterAll();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
