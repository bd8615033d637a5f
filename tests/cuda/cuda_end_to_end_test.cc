// Training on a CUDA GPU through the session API gives the CPU's losses:
// the built-in models of bench/models (MLP, CNN, transformer) train 20 steps
// on a session whose GPU platform is pinned to "CUDA" and on a CPU-only
// session, from the same initial weights and batch; so do the MLP with a
// device memory limit small enough that VMem spills tensors into pinned
// host memory, and with the limit shrunk and grown again between steps
// through AdjustableAllocator (tests/bench/antman_training_test.cc does the
// same on SimGPU through the control plane). Skipped without a GPU.
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "allocator/adjustable_allocator.h"
#include "bench/models/cnn_model.h"
#include "bench/models/mlp_model.h"
#include "bench/models/transformer_model.h"
#include "device/gpu/gpu_device.h"
#include "gtest/gtest.h"
#include "session/session.h"
#include "tests/cuda/cuda_test_device.h"

namespace minitf {
namespace {

using test::VisibleCudaDevices;

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int kSteps = 20;

// How far a CUDA step's loss may be from the CPU's, relative to the CPU's.
// The two do the same arithmetic in a different order: cuBLAS and cuDNN pick
// their own blocking and reduction trees (and may use fused multiply-adds),
// the CUDA reductions sum in a tree where Eigen sums in chunks per thread.
// Each op then differs in the last bits of a float (about 1e-7 relative;
// more for long sums), and 20 steps of gradient descent carry the
// difference forward. The models below are configured to be well
// conditioned: on the CPU, changing the learning rate by 1e-6 (relative)
// moves no step's loss by more than about 5e-6 (relative). 1e-3 leaves a
// wide margin over that while still catching a wrong kernel, which is off by
// far more. (The MLP at a learning rate of 0.1 or more with 64 features
// oscillates: the same 1e-6 change moves its losses by up to 4e-4, so a
// comparison of such runs would measure that chaos, not the kernels.)
constexpr double kLossRelativeTolerance = 1e-3;
// For losses near zero, where a relative bound means nothing.
constexpr double kLossAbsoluteTolerance = 1e-5;

GPUDevice* GPUOf(Session* session) {
  for (Device* d : session->ListDevices()) {
    if (auto* gpu = dynamic_cast<GPUDevice*>(d)) return gpu;
  }
  return nullptr;
}

SessionOptions BaseOptions() {
  SessionOptions options;
  options.config.intra_op_parallelism_threads = 2;
  options.config.inter_op_parallelism_threads = 2;
  return options;
}

SessionOptions CpuOnlyOptions() {
  SessionOptions options = BaseOptions();
  options.config.device_count["GPU"] = 0;
  return options;
}

// A GPU on the CUDA platform with an allocator stack of its own, so its
// memory limit is the session's to set and change.
SessionOptions CudaOptions(int64_t memory_limit_bytes = 256 * kMiB) {
  SessionOptions options = BaseOptions();
  options.config.gpu_options.platform = "CUDA";
  options.config.gpu_options.private_allocators = true;
  options.config.gpu_options.memory_limit_bytes = memory_limit_bytes;
  options.config.gpu_options.allow_growth = true;
  options.config.gpu_options.vmem = true;
  return options;
}

// Called after step `step` has finished, before the next one.
using BetweenSteps = std::function<void(Session* session, int step)>;

// The loss of each of kSteps training steps (the loss the step computed,
// before its update), on a new session made with `options`.
std::vector<float> TrainLosses(const TrainingModel& model, const Batch& batch,
                               const SessionOptions& options, const BetweenSteps& between = {},
                               std::unique_ptr<Session>* keep = nullptr) {
  std::vector<float> losses;
  absl::StatusOr<std::unique_ptr<Session>> session = NewSession(options);
  EXPECT_TRUE(session.ok()) << session.status();
  if (!session.ok()) return losses;
  absl::Status s = (*session)->Create(model.graph);
  EXPECT_TRUE(s.ok()) << s;
  s = (*session)->Run({}, {}, {model.init}, nullptr);
  EXPECT_TRUE(s.ok()) << s;
  if (!s.ok()) return losses;
  RunOptions run_options;
  run_options.timeout_in_ms = 120000;  // A hang fails the test instead of blocking it.
  for (int step = 0; step < kSteps; ++step) {
    std::vector<Tensor> out;
    s = (*session)->Run(run_options, batch.Feeds(model), {model.loss}, {model.train}, &out,
                        nullptr);
    EXPECT_TRUE(s.ok()) << "step " << step << ": " << s;
    if (!s.ok() || out.empty()) break;
    losses.push_back(out[0].scalar<float>()());
    if (between) between(session->get(), step);
  }
  if (keep != nullptr) *keep = *std::move(session);
  return losses;
}

void ExpectLossesMatch(const std::vector<float>& cuda, const std::vector<float>& cpu) {
  ASSERT_EQ(cuda.size(), static_cast<size_t>(kSteps));
  ASSERT_EQ(cpu.size(), static_cast<size_t>(kSteps));
  for (int step = 0; step < kSteps; ++step) {
    const double expected = cpu[step];
    EXPECT_TRUE(std::isfinite(cuda[step])) << "step " << step;
    EXPECT_NEAR(cuda[step], expected,
                kLossAbsoluteTolerance + kLossRelativeTolerance * std::abs(expected))
        << "step " << step;
  }
  // The models learn: the comparison is not between two flat lines.
  EXPECT_LT(cpu.back(), cpu.front());
}

class CudaEndToEndTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  }

  // Trains on CUDA and on the CPU and compares every step's loss; checks
  // the session's GPU is a CUDA one that did the work.
  static void ExpectCudaTrainsAsCpu(const TrainingModel& model, const Batch& batch) {
    std::unique_ptr<Session> cuda_session;
    const std::vector<float> cuda = TrainLosses(model, batch, CudaOptions(), {}, &cuda_session);
    const std::vector<float> cpu = TrainLosses(model, batch, CpuOnlyOptions());
    ExpectLossesMatch(cuda, cpu);
    ASSERT_NE(cuda_session, nullptr);
    GPUDevice* gpu = GPUOf(cuda_session.get());
    ASSERT_NE(gpu, nullptr);
    EXPECT_EQ(gpu->platform_name(), "CUDA");
    EXPECT_GT(gpu->ComputeBusyTime(), absl::ZeroDuration());
  }
};

TEST_F(CudaEndToEndTest, MlpTrainsAsOnCpu) {
  const MlpConfig config;
  absl::StatusOr<TrainingModel> model = BuildMlpModel(config);
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<Batch> batch = MakeRingsBatch(config, /*batch_size=*/256, /*seed=*/1);
  ASSERT_TRUE(batch.ok()) << batch.status();
  ExpectCudaTrainsAsCpu(*model, *batch);
}

TEST_F(CudaEndToEndTest, CnnTrainsAsOnCpu) {
  CnnConfig config;
  absl::StatusOr<TrainingModel> model = BuildCnnModel(config);
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<Batch> batch = MakeBarsBatch(config, /*batch_size=*/32, /*seed=*/3);
  ASSERT_TRUE(batch.ok()) << batch.status();
  ExpectCudaTrainsAsCpu(*model, *batch);
}

TEST_F(CudaEndToEndTest, TransformerTrainsAsOnCpu) {
  TransformerConfig config;
  absl::StatusOr<TrainingModel> model = BuildTransformerModel(config);
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<Batch> batch = MakeSequenceBatch(config, /*batch_size=*/16, /*seed=*/1);
  ASSERT_TRUE(batch.ok()) << batch.status();
  ExpectCudaTrainsAsCpu(*model, *batch);
}

// The MLP of tests/bench/antman_training_test.cc (several MiB of
// activations and gradients per step, weights of about 0.2 MiB) at a
// learning rate where its training is well conditioned (see above): at
// 0.02 its CPU loss falls for three steps, then climbs past where it began
// (2.07 -> 1.82 -> 2.45 -> 2.27 over 20 steps); at 0.01 it falls at every
// step (2.07 -> 1.39).
class CudaVMemTest : public CudaEndToEndTest {
 protected:
  void SetUp() override {
    CudaEndToEndTest::SetUp();
    if (IsSkipped()) return;
    MlpConfig config;
    config.features = 64;
    config.hidden = 512;
    config.classes = 3;
    config.learning_rate = 0.01f;
    absl::StatusOr<TrainingModel> model = BuildMlpModel(config);
    ASSERT_TRUE(model.ok()) << model.status();
    model_ = *std::move(model);
    absl::StatusOr<Batch> batch = MakeRingsBatch(config, /*batch_size=*/1024, /*seed=*/7);
    ASSERT_TRUE(batch.ok()) << batch.status();
    batch_ = *std::move(batch);
  }

  TrainingModel model_;
  Batch batch_;
};

TEST_F(CudaVMemTest, TensorsSpillToPinnedHostMemoryAndTrainingStillMatchesCpu) {
  // Below one step's working set, above the weights: VMem puts the rest of
  // the tensors in pinned host memory, which the kernels read over PCIe.
  std::unique_ptr<Session> session;
  const std::vector<float> cuda =
      TrainLosses(model_, batch_, CudaOptions(/*memory_limit_bytes=*/2 * kMiB), {}, &session);
  const std::vector<float> cpu = TrainLosses(model_, batch_, CpuOnlyOptions());
  ExpectLossesMatch(cuda, cpu);
  ASSERT_NE(session, nullptr);
  GPUDevice* gpu = GPUOf(session.get());
  ASSERT_NE(gpu, nullptr);
  ASSERT_NE(gpu->allocator_stack()->vmem(), nullptr);
  const VMemStats stats = gpu->allocator_stack()->vmem()->GetVMemStats();
  EXPECT_GT(stats.peak_host_bytes_in_use, 0);
  EXPECT_GT(stats.num_host_allocs, 0);
  EXPECT_LE(gpu->allocator_stack()->device_bfc()->GetStats()->peak_bytes_in_use, 2 * kMiB);
}

TEST_F(CudaVMemTest, MemoryLimitShrinksAndGrowsBetweenStepsWithoutChangingTheLosses) {
  constexpr int kShrinkAfter = 4;  // The limit changes after these steps.
  constexpr int kGrowAfter = 10;
  constexpr int64_t kLimit = 256 * kMiB;
  constexpr int64_t kSmall = 2 * kMiB;
  struct StepRecord {
    int64_t device_peak = 0;
    int64_t limit = 0;  // The limit the step ran under.
    int64_t host_peak = 0;
  };
  std::vector<StepRecord> records;
  const AdjustableAllocator adjust;
  const BetweenSteps between = [&](Session* session, int step) {
    GPUDevice* gpu = GPUOf(session);
    ASSERT_NE(gpu, nullptr);
    BFCAllocator* device_bfc = gpu->allocator_stack()->device_bfc();
    VMemAllocator* vmem = gpu->allocator_stack()->vmem();
    ASSERT_NE(vmem, nullptr);
    StepRecord r;
    r.device_peak = device_bfc->GetStats()->peak_bytes_in_use;
    r.limit = static_cast<int64_t>(adjust.GetMemPoolStats(*device_bfc).memory_limit);
    r.host_peak = vmem->GetVMemStats().peak_host_bytes_in_use;
    records.push_back(r);
    const int steps_done = step + 1;
    if (steps_done >= kShrinkAfter && steps_done < kGrowAfter) {
      // Live buffers may keep the limit above the target; asked again at
      // every boundary until reached, as GPUResourceManagement does.
      const size_t reached = adjust.AdjustMemoryLimit(kSmall, device_bfc);
      EXPECT_GE(reached, static_cast<size_t>(kSmall));
      EXPECT_LT(reached, static_cast<size_t>(kLimit));
    }
    if (steps_done == kGrowAfter) {
      EXPECT_EQ(adjust.AdjustMemoryLimit(kLimit, device_bfc), static_cast<size_t>(kLimit));
    }
    vmem->ClearStats();  // Peaks per step (clears the device BFC's too).
  };
  const std::vector<float> cuda = TrainLosses(model_, batch_, CudaOptions(kLimit), between);
  const std::vector<float> cpu = TrainLosses(model_, batch_, CpuOnlyOptions());
  ExpectLossesMatch(cuda, cpu);
  ASSERT_EQ(records.size(), static_cast<size_t>(kSteps));

  for (int step = 0; step < kShrinkAfter; ++step) {
    EXPECT_EQ(records[step].limit, kLimit) << "step " << step;
    EXPECT_EQ(records[step].host_peak, 0) << "step " << step;
  }
  // Shrunk: the device stays within the limit in force (the target, or what
  // live buffers pinned above it), and the rest is on the host.
  for (int step = kShrinkAfter; step < kGrowAfter; ++step) {
    EXPECT_LT(records[step].limit, kLimit) << "step " << step;
    EXPECT_LE(records[step].device_peak, records[step].limit) << "step " << step;
    EXPECT_GT(records[step].host_peak, 0) << "step " << step;
  }
  // Grown back: the host bytes are gone within two steps.
  EXPECT_EQ(records[kGrowAfter].limit, kLimit);
  EXPECT_EQ(records[kGrowAfter + 1].host_peak, 0);
  EXPECT_EQ(records[kSteps - 1].host_peak, 0);
}

}  // namespace
}  // namespace minitf
