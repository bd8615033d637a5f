// On a GPU, a training step keeps its activations and variables on the
// device: with CUDA's kernel set (SimGPU's default), the only tensors that
// cross PCIe in a step are the fed batch on the way in and a few bytes of
// shape arithmetic. ResNet-50: not the activations of the blocks (Pad,
// Slice, Tile and the other array ops have CUDA kernels). BERT: not the
// word-embedding table (30522 x 768 floats) or its sparse gradient
// (GatherV2, Unique, UnsortedSegmentSum and ScatterAdd have CUDA kernels, so
// the embedding's Adam slots and their Assigns stay on the GPU with them).
// The transformer layer (the transformer_adam fixture) runs no op on the
// host at all.
// The graphs are the ones TensorFlow wrote (tests/fixtures/tf/); SimGPU
// runs them in timing mode (about a second per step here).
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bench/harness/jobs/graph_job.h"
#include "gtest/gtest.h"
#include "session/session.h"

namespace minitf::harness {
namespace {

struct Crossings {
  int64_t to_device_bytes = 0;
  int64_t to_host_bytes = 0;
  std::vector<std::string> large;  // receives of more than kSmall bytes
};

constexpr int64_t kSmall = 64 << 10;

Crossings CrossingsOf(const StepStats& stats) {
  Crossings c;
  for (const DeviceStepStats& dev : stats.dev_stats) {
    const bool gpu = absl::StrContains(dev.device, "GPU");
    for (const NodeExecStats& n : dev.node_stats) {
      if (n.op != "_Recv" && n.op != "_HostRecv") continue;
      int64_t bytes = 0;
      for (const NodeOutputStats& o : n.outputs) bytes += o.allocated_bytes;
      (gpu ? c.to_device_bytes : c.to_host_bytes) += bytes;
      if (bytes > kSmall)
        c.large.push_back(absl::StrCat(n.node_name, " on ", dev.device, ": ", bytes));
    }
  }
  return c;
}

// One traced training step of the fixture `name` on SimGPU, after its
// initialization; the step's stats in *stats and its fed bytes in
// *fed_bytes.
void RunTracedStep(const std::string& name, const std::string& model, StepStats* stats,
                   int64_t* fed_bytes) {
  absl::StatusOr<JobSpec> spec = GraphJobFromManifest(
      std::string(MINITF_SOURCE_DIR) + "/tests/fixtures/tf/" + name + "/manifest.json", model);
  ASSERT_TRUE(spec.ok()) << spec.status();
  absl::StatusOr<JobModel> job = BuildGraphJobModel(*spec);
  ASSERT_TRUE(job.ok()) << job.status();
  SessionOptions options;
  options.config.gpu_options.platform = "SimGPU";
  options.config.gpu_options.simgpu_options = "memory=16GiB,mode=timing";
  options.config.allow_soft_placement = true;
  auto session = NewSession(options);
  ASSERT_TRUE(session.ok()) << session.status();
  ASSERT_TRUE((*session)->Create(job->graph).ok());
  ASSERT_TRUE((*session)->Run({}, {}, {job->init}, nullptr).ok());
  RunOptions run_options;
  run_options.trace_level = RunOptions::FULL_TRACE;
  RunMetadata metadata;
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run(run_options, job->feeds, {}, {job->train}, &out, &metadata);
  ASSERT_TRUE(s.ok()) << s;
  *stats = metadata.step_stats;
  *fed_bytes = 0;
  for (const auto& [feed, tensor] : job->feeds) *fed_bytes += tensor.TotalBytes();
}

TEST(GpuStepCopiesTest, AResNet50StepMovesOnlyItsBatchToTheDevice) {
  StepStats stats;
  int64_t fed_bytes = 0;
  ASSERT_NO_FATAL_FAILURE(RunTracedStep("resnet50_train", "resnet50", &stats, &fed_bytes));
  const Crossings c = CrossingsOf(stats);
  // The images (32 x 224 x 224 x 3 floats) and labels, and no more than a
  // few shape tensors besides.
  EXPECT_GE(c.to_device_bytes, 32 * 224 * 224 * 3 * 4);
  EXPECT_LE(c.to_device_bytes, fed_bytes + kSmall);
  EXPECT_LE(c.to_host_bytes, kSmall);
  ASSERT_EQ(c.large.size(), 1u) << "only the images cross in bulk, not: "
                                << absl::StrJoin(c.large, "; ");
  EXPECT_TRUE(absl::StrContains(c.large[0], "GPU")) << c.large[0];
}

TEST(GpuStepCopiesTest, ABertStepKeepsItsEmbeddingsOnTheDevice) {
  StepStats stats;
  int64_t fed_bytes = 0;
  ASSERT_NO_FATAL_FAILURE(RunTracedStep("bert_train", "bert", &stats, &fed_bytes));
  const Crossings c = CrossingsOf(stats);
  // The batch (input_ids, input_mask: 8 x 128 int32; labels) is a few KB:
  // nothing crosses in bulk either way.
  EXPECT_LE(c.to_device_bytes, fed_bytes + kSmall);
  EXPECT_LE(c.to_host_bytes, kSmall);
  EXPECT_TRUE(c.large.empty()) << "crossed in bulk: " << absl::StrJoin(c.large, "; ");
}

TEST(GpuStepCopiesTest, ATransformerStepRunsEveryOpOnTheDevice) {
  StepStats stats;
  int64_t fed_bytes = 0;
  ASSERT_NO_FATAL_FAILURE(RunTracedStep("transformer_adam", "transformer", &stats, &fed_bytes));
  // On the host only the step's feeds (_Arg) and their sends to the GPU:
  // attention, layer norm, GELU and Adam's updates all have CUDA kernels.
  std::vector<std::string> on_host;
  for (const DeviceStepStats& dev : stats.dev_stats) {
    if (absl::StrContains(dev.device, "GPU")) continue;
    for (const NodeExecStats& n : dev.node_stats) {
      if (n.op != "_Arg" && n.op != "_Send") on_host.push_back(n.node_name + " (" + n.op + ")");
    }
  }
  EXPECT_TRUE(on_host.empty()) << "on the host: " << absl::StrJoin(on_host, ", ");
}

}  // namespace
}  // namespace minitf::harness
