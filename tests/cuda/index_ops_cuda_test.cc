// CPU/CUDA parity of the kernels that gather, scatter, count and encode by
// index: GatherV2, UnsortedSegmentSum, OneHot, Unique, InvertPermutation
// (one kernel each, run on host inputs) and ScatterAdd (a variable on the
// GPU, no soft placement, so its Assign runs there too). Every dtype their
// CUDA kernels take, int32 indices (host memory) and int64 indices (device
// memory), empty inputs, and bad indices that fail as on the CPU (TensorFlow's
// GPU kernels would write zeros or skip them). Skipped without a GPU.
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "ops/standard_ops.h"
#include "platform/status_macros.h"
#include "session/session.h"
#include "tests/cuda/cuda_test_device.h"

namespace minitf {
namespace {

using test::ExpectCudaMatchesCpu;
using test::MakeNodeDef;
using test::RandomTensor;
using test::VisibleCudaDevices;

const std::vector<DataType> kValueTypes = {DT_FLOAT, DT_DOUBLE, DT_INT64, DT_BOOL};
const std::vector<DataType> kIndexTypes = {DT_INT32, DT_INT64};

// Values of `dtype` from uniform floats in [-50, 50).
Tensor Values(DataType dtype, const TensorShape& shape, unsigned seed = 1) {
  const Tensor base = RandomTensor(shape, -50, 50, seed);
  const float* in = base.data<float>();
  Tensor t(dtype, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if (dtype == DT_FLOAT) t.data<float>()[i] = in[i];
    if (dtype == DT_DOUBLE) t.data<double>()[i] = static_cast<double>(in[i]) * 1.25;
    if (dtype == DT_INT64) t.data<int64_t>()[i] = static_cast<int64_t>(in[i] * 1000);
    if (dtype == DT_BOOL) t.data<bool>()[i] = in[i] > 0;
  }
  return t;
}

// An int32 or int64 tensor of `shape` holding `v`.
Tensor Indices(DataType dtype, const std::vector<int64_t>& v, const TensorShape& shape) {
  if (dtype == DT_INT64) return Tensor::FromVector<int64_t>(v, shape);
  const std::vector<int32_t> narrow(v.begin(), v.end());
  return Tensor::FromVector<int32_t>(narrow, shape);
}
Tensor Indices(DataType dtype, const std::vector<int64_t>& v) {
  return Indices(dtype, v, TensorShape({static_cast<int64_t>(v.size())}));
}

class IndexOpsCudaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (VisibleCudaDevices() == 0) GTEST_SKIP() << "no CUDA device visible";
  }
};

TEST_F(IndexOpsCudaTest, GatherV2MatchesTheCpuForEveryDtypeAndAxis) {
  for (DataType t : kValueTypes) {
    for (DataType index : kIndexTypes) {
      SCOPED_TRACE(DataTypeString(t) + " " + DataTypeString(index));
      auto node = [&](int64_t batch_dims) {
        return MakeNodeDef(
            "gather", "GatherV2",
            {{"Tparams", t}, {"Tindices", index}, {"Taxis", DT_INT32}, {"batch_dims", batch_dims}});
      };
      const Tensor params = Values(t, {6, 4, 3});
      const Tensor ids = Indices(index, {5, 0, 0, 3, 1, 5}, TensorShape({2, 3}));
      for (int32_t axis : {0, -1}) {
        const Tensor small = Indices(index, {2, 0, 1, 1, 2, 0}, TensorShape({2, 3}));
        ExpectCudaMatchesCpu(node(0), {params, axis == 0 ? ids : small,
                                       Tensor::FromVector<int32_t>({axis}, TensorShape({}))});
      }
      // Axis 1 of [6, 4, 3]: outer 6, limit 4, inner 3.
      ExpectCudaMatchesCpu(node(0), {params, Indices(index, {3, 3, 0}),
                                     Tensor::FromVector<int32_t>({1}, TensorShape({}))});
      // batch_dims 1: indices [6, 2] pick rows of each batch's [4, 3].
      ExpectCudaMatchesCpu(
          node(1),
          {params, Indices(index, {0, 3, 1, 1, 2, 0, 3, 3, 0, 1, 2, 2}, TensorShape({6, 2})),
           Tensor::FromVector<int32_t>({1}, TensorShape({}))});
      // Empty indices, and a scalar index.
      ExpectCudaMatchesCpu(
          node(0), {params, Indices(index, {}), Tensor::FromVector<int32_t>({0}, TensorShape({}))});
      ExpectCudaMatchesCpu(node(0), {params, Indices(index, {4}, TensorShape({})),
                                     Tensor::FromVector<int32_t>({0}, TensorShape({}))});
    }
  }
}

TEST_F(IndexOpsCudaTest, GatherV2FailsOnABadIndexAsTheCpuDoes) {
  for (DataType index : kIndexTypes) {
    SCOPED_TRACE(DataTypeString(index));
    const NodeDef node = MakeNodeDef(
        "gather", "GatherV2", {{"Tparams", DT_FLOAT}, {"Tindices", index}, {"Taxis", DT_INT32}});
    const Tensor axis = Tensor::FromVector<int32_t>({0}, TensorShape({}));
    for (int64_t bad : {6, -1, 1000000}) {
      ExpectCudaMatchesCpu(node,
                           {Values(DT_FLOAT, {6, 5}), Indices(index, {1, 2, bad, 0, bad}), axis});
    }
    // Every index is bad when the axis is empty.
    ExpectCudaMatchesCpu(node, {Values(DT_FLOAT, {0, 5}), Indices(index, {0}), axis});
    ExpectCudaMatchesCpu(node, {Values(DT_FLOAT, {0, 5}), Indices(index, {}), axis});
  }
}

TEST_F(IndexOpsCudaTest, UnsortedSegmentSumMatchesTheCpu) {
  for (DataType index : kIndexTypes) {
    for (DataType num_type : kIndexTypes) {
      SCOPED_TRACE(DataTypeString(index) + " " + DataTypeString(num_type));
      const NodeDef node =
          MakeNodeDef("segment_sum", "UnsortedSegmentSum",
                      {{"T", DT_FLOAT}, {"Tindices", index}, {"Tnumsegments", num_type}});
      auto num = [&](int64_t n) { return Indices(num_type, {n}, TensorShape({})); };
      // Repeated ids, a negative id (dropped) and an empty segment.
      const Tensor ids = Indices(index, {2, 0, 2, -1, 4, 2, 0});
      ExpectCudaMatchesCpu(node, {RandomTensor({7, 3, 2}), ids, num(6)}, 1e-5, 1e-5);
      ExpectCudaMatchesCpu(node, {RandomTensor({7}), ids, num(5)}, 1e-5, 1e-5);
      // Ids of rank 2; many rows into few segments.
      std::vector<int64_t> many(400);
      for (size_t i = 0; i < many.size(); ++i) many[i] = static_cast<int64_t>(i * 7 % 3);
      ExpectCudaMatchesCpu(
          node, {RandomTensor({20, 20, 16}), Indices(index, many, TensorShape({20, 20})), num(3)},
          1e-4, 1e-5);
      // Empty ids: all zeros; no segments: an empty output.
      ExpectCudaMatchesCpu(node, {RandomTensor({0, 4}), Indices(index, {}), num(3)});
      ExpectCudaMatchesCpu(node, {RandomTensor({3, 4}), Indices(index, {-1, -2, -1}), num(0)});
      // An id >= num_segments, and a negative num_segments.
      ExpectCudaMatchesCpu(node, {RandomTensor({3, 4}), Indices(index, {0, 3, 1}), num(3)});
      ExpectCudaMatchesCpu(node, {RandomTensor({3, 4}), Indices(index, {0, 1, 1}), num(-1)});
    }
  }
}

TEST_F(IndexOpsCudaTest, OneHotMatchesTheCpuForEveryDtype) {
  for (DataType t : kValueTypes) {
    for (DataType index : kIndexTypes) {
      SCOPED_TRACE(DataTypeString(t) + " " + DataTypeString(index));
      const Tensor on = Values(t, {}, 3);
      const Tensor off = Values(t, {}, 4);
      auto depth = [](int32_t d) { return Tensor::FromVector<int32_t>({d}, TensorShape({})); };
      // Out-of-range and negative indices give rows of off_value.
      const Tensor ids = Indices(index, {0, 3, -1, 2, 5, 1}, TensorShape({2, 3}));
      for (int64_t axis : {-1, 0, 1}) {
        const NodeDef node =
            MakeNodeDef("one_hot", "OneHot", {{"T", t}, {"TI", index}, {"axis", axis}});
        ExpectCudaMatchesCpu(node, {ids, depth(4), on, off});
      }
      const NodeDef node = MakeNodeDef("one_hot", "OneHot", {{"T", t}, {"TI", index}});
      ExpectCudaMatchesCpu(node, {Indices(index, {2}, TensorShape({})), depth(3), on, off});
      ExpectCudaMatchesCpu(node, {Indices(index, {}), depth(3), on, off});
      ExpectCudaMatchesCpu(node, {ids, depth(0), on, off});
      ExpectCudaMatchesCpu(node, {ids, depth(-2), on, off});
    }
  }
}

TEST_F(IndexOpsCudaTest, UniqueKeepsTheCpusFirstAppearanceOrder) {
  for (DataType out_idx : kIndexTypes) {
    SCOPED_TRACE(DataTypeString(out_idx));
    auto node = [&](DataType t) {
      return MakeNodeDef("unique", "Unique", {{"T", t}, {"out_idx", out_idx}});
    };
    ExpectCudaMatchesCpu(
        node(DT_FLOAT),
        {Tensor::FromVector<float>({3, -1, 3, 0.0f, 7, -0.0f, -1, 2.5f, 3}, TensorShape({9}))});
    // Many repeats of few values, in a scrambled order.
    std::vector<int64_t> repeats(5000);
    for (size_t i = 0; i < repeats.size(); ++i) {
      repeats[i] = static_cast<int64_t>((i * 7919) % 613) - 300;
    }
    ExpectCudaMatchesCpu(node(DT_INT64), {Indices(DT_INT64, repeats)});
    ExpectCudaMatchesCpu(node(DT_INT32), {Indices(DT_INT32, repeats)});
    ExpectCudaMatchesCpu(node(DT_INT64),
                         {Indices(DT_INT64, {std::numeric_limits<int64_t>::min(), 5,
                                             std::numeric_limits<int64_t>::max(), 5, -5})});
    std::vector<float> distinct(3000);
    for (size_t i = 0; i < distinct.size(); ++i) distinct[i] = 1500.0f - static_cast<float>(i);
    ExpectCudaMatchesCpu(node(DT_FLOAT),
                         {Tensor::FromVector<float>(distinct, TensorShape({3000}))});
    // Empty x; x must be a vector.
    for (DataType t : {DT_FLOAT, DT_INT32, DT_INT64}) {
      const bool narrow = t == DT_INT32;
      ExpectCudaMatchesCpu(node(t), {narrow ? Indices(DT_INT32, {}) : Values(t, {0})});
      ExpectCudaMatchesCpu(node(t), {narrow ? Indices(DT_INT32, {1, 2, 3, 4}, TensorShape({2, 2}))
                                            : Values(t, {2, 2})});
    }
  }
}

TEST_F(IndexOpsCudaTest, InvertPermutationRunsOnHostMemory) {
  const NodeDef node = MakeNodeDef("invert", "InvertPermutation", {{"T", DT_INT32}});
  ExpectCudaMatchesCpu(node, {Indices(DT_INT32, {3, 0, 4, 1, 2})});
  ExpectCudaMatchesCpu(node, {Indices(DT_INT32, {})});
  ExpectCudaMatchesCpu(node, {Indices(DT_INT32, {0, 0, 1})});
  ExpectCudaMatchesCpu(node, {Indices(DT_INT32, {0, 5, 1})});
}

// ScatterAdd on a VariableV2 [5, 3]: "init" assigns "value"; "scatter32"
// and "scatter64" add "updates" at int32 and int64 indices; "read" is the
// variable's value.
GraphDef ScatterGraph() {
  Scope root = Scope::NewRootScope();
  auto value = ops::Placeholder(root.WithOpName("value"), DT_FLOAT);
  auto updates = ops::Placeholder(root.WithOpName("updates"), DT_FLOAT);
  auto ids32 = ops::Placeholder(root.WithOpName("ids32"), DT_INT32);
  auto ids64 = ops::Placeholder(root.WithOpName("ids64"), DT_INT64);
  Scope s = root.WithDevice("/device:GPU:0");
  auto var = ops::VariableV2(s.WithOpName("var"), PartialTensorShape({5, 3}), DT_FLOAT);
  ops::Assign(s.WithOpName("init"), var, value);
  ops::ScatterAdd(s.WithOpName("scatter32"), var, ids32, updates);
  ops::ScatterAdd(s.WithOpName("scatter64"), var, ids64, updates);
  ops::Identity(s.WithOpName("read"), var);
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok());
  return def;
}

using Feeds = std::vector<std::pair<std::string, Tensor>>;

// The variable after `steps` (each a target and its feeds), and the status
// of each step.
absl::StatusOr<Tensor> RunScatterSteps(bool cuda,
                                       const std::vector<std::pair<std::string, Feeds>>& steps,
                                       std::vector<absl::Status>* statuses) {
  SessionOptions options;
  if (cuda) {
    options.config.gpu_options.platform = "CUDA";
  } else {
    options.config.device_count["GPU"] = 0;
    options.config.allow_soft_placement = true;
  }
  MINITF_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, NewSession(options));
  MINITF_RETURN_IF_ERROR(session->Create(ScatterGraph()));
  for (const auto& [target, feeds] : steps) {
    statuses->push_back(session->Run(feeds, {}, {target}, nullptr));
  }
  std::vector<Tensor> out;
  MINITF_RETURN_IF_ERROR(session->Run({}, {"read"}, {}, &out));
  return out[0];
}

TEST_F(IndexOpsCudaTest, ScatterAddOnTheGpuEndsAsOnTheCpu) {
  const std::vector<std::pair<std::string, Feeds>> steps = {
      {"init", {{"value", RandomTensor({5, 3}, -1, 1, 1)}}},
      {"scatter32",
       {{"ids32", Indices(DT_INT32, {4, 0, 4, 2})}, {"updates", RandomTensor({4, 3}, -1, 1, 2)}}},
      {"scatter64",
       {{"ids64", Indices(DT_INT64, {1, 1, 1})}, {"updates", RandomTensor({3, 3}, -1, 1, 3)}}},
      // A scalar update is added to every element of each row named.
      {"scatter64",
       {{"ids64", Indices(DT_INT64, {3, 3})}, {"updates", RandomTensor({}, -1, 1, 4)}}},
      {"scatter32", {{"ids32", Indices(DT_INT32, {})}, {"updates", RandomTensor({0, 3})}}},
      // Bad indices fail the step and leave the variable as it was.
      {"scatter32",
       {{"ids32", Indices(DT_INT32, {0, 5})}, {"updates", RandomTensor({2, 3}, -1, 1, 5)}}},
      {"scatter64",
       {{"ids64", Indices(DT_INT64, {-1, 0})}, {"updates", RandomTensor({2, 3}, -1, 1, 6)}}},
      // updates of the wrong shape.
      {"scatter64", {{"ids64", Indices(DT_INT64, {0})}, {"updates", RandomTensor({1, 2})}}},
  };
  std::vector<absl::Status> gpu_statuses, cpu_statuses;
  absl::StatusOr<Tensor> gpu = RunScatterSteps(/*cuda=*/true, steps, &gpu_statuses);
  absl::StatusOr<Tensor> cpu = RunScatterSteps(/*cuda=*/false, steps, &cpu_statuses);
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  test::ExpectTensorNear(*gpu, *cpu, 1e-6, 1e-5);
  ASSERT_EQ(gpu_statuses.size(), cpu_statuses.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(gpu_statuses[i].code(), cpu_statuses[i].code()) << "step " << i;
    EXPECT_EQ(gpu_statuses[i].message(), cpu_statuses[i].message()) << "step " << i;
  }
  EXPECT_FALSE(gpu_statuses[5].ok());
  EXPECT_FALSE(gpu_statuses[6].ok());
}

}  // namespace
}  // namespace minitf
