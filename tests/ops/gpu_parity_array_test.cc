// CPU/GPU parity of the array ops that join, split, slice, grow, gather and
// index tensors, and of the shape-only and forwarding ones (the harness, the
// tolerance and the coverage rule are in gpu_parity.h): every dtype each
// takes, int32 and int64 index arguments (host memory on the GPU), and errors
// that fail the same way on both devices.
#include <string>
#include <vector>

#include "tests/ops/gpu_parity.h"

namespace minitf::gpu_parity {
namespace {

using Outputs = std::vector<Output>;

class GPUParityArrayTest : public ::testing::TestWithParam<ParityCase> {};

TEST_P(GPUParityArrayTest, GpuKernelRunsOnTheGpuAndMatchesTheCpuKernel) {
  ExpectGPUMatchesCpu(GetParam());
}

Tensor IndexScalar(DataType dtype, int64_t v) {
  return dtype == DT_INT64 ? Tensor::Scalar<int64_t>(v)
                           : Tensor::Scalar<int32_t>(static_cast<int32_t>(v));
}

// The ops that move elements of any dtype, for each dtype; shape arguments
// alternate between int32 and int64 with the dtype.
std::vector<ParityCase> DataMovementCases() {
  std::vector<ParityCase> cases;
  for (DataType t : kAllTypes) {
    const std::string n = "_" + TypeName(t);
    const DataType index = (t == DT_DOUBLE || t == DT_INT64) ? DT_INT64 : DT_INT32;
    cases.push_back({"ConcatV2" + n,
                     {Random(t, {2, 3}), Random(t, {2, 4}), Random(t, {2, 0})},
                     [index](const Scope& s, const Outputs& in) {
                       return Outputs{ops::Concat(s.WithOpName("op"), {in[0], in[1], in[2]},
                                                  IndexScalar(index, -1))};
                     }});
    cases.push_back({"Pack" + n, {Random(t, {2, 3}), Random(t, {2, 3})},
                     [](const Scope& s, const Outputs& in) {
                       return Outputs{ops::Stack(s.WithOpName("op"), {in[0], in[1]}, {.axis = 1})};
                     }});
    cases.push_back({"Unpack" + n, {Random(t, {2, 3, 2})},
                     [](const Scope& s, const Outputs& in) {
                       return ops::Unstack(s.WithOpName("op"), in[0], 3, {.axis = -2});
                     }});
    cases.push_back({"Split" + n, {Random(t, {4, 6})},
                     [](const Scope& s, const Outputs& in) {
                       return ops::Split(s.WithOpName("op"), 1, in[0], 3);
                     }});
    cases.push_back({"SplitV" + n, {Random(t, {5, 2}), IndexVector(index, {1, -1, 2})},
                     [](const Scope& s, const Outputs& in) {
                       return ops::SplitV(s.WithOpName("op"), in[0], in[1], 0, 3);
                     }});
    cases.push_back({"Slice" + n,
                     {Random(t, {4, 5, 3}), IndexVector(index, {1, 0, 1}),
                      IndexVector(index, {2, -1, 2})},
                     [](const Scope& s, const Outputs& in) {
                       return Outputs{ops::Slice(s.WithOpName("op"), in[0], in[1], in[2])};
                     }});
    // x[1:, ::-2, tf.newaxis, 0]
    cases.push_back({"StridedSlice" + n,
                     {Random(t, {3, 5, 4}), IndexVector(index, {1, 0, 0, 0}),
                      IndexVector(index, {0, 0, 0, 1}), IndexVector(index, {1, -2, 1, 1})},
                     [](const Scope& s, const Outputs& in) {
                       return Outputs{ops::StridedSlice(
                           s.WithOpName("op"), in[0], in[1], in[2], in[3],
                           {.begin_mask = 2, .end_mask = 3, .new_axis_mask = 4,
                            .shrink_axis_mask = 8})};
                     }});
    cases.push_back({"StridedSliceGrad" + n,
                     {IndexVector(index, {3, 5, 4}), IndexVector(index, {1, 0, 0, 0}),
                      IndexVector(index, {0, 0, 0, 1}), IndexVector(index, {1, -2, 1, 1}),
                      Random(t, {2, 3, 1})},
                     [](const Scope& s, const Outputs& in) {
                       return Outputs{ops::StridedSliceGrad(
                           s.WithOpName("op"), in[0], in[1], in[2], in[3], in[4],
                           {.begin_mask = 2, .end_mask = 3, .new_axis_mask = 4,
                            .shrink_axis_mask = 8})};
                     }});
    cases.push_back({"Squeeze" + n, {Random(t, {1, 3, 1, 2})},
                     [](const Scope& s, const Outputs& in) {
                       return Outputs{ops::Squeeze(s.WithOpName("op"), in[0], {.axis = {0}})};
                     }});
    cases.push_back({"ExpandDims" + n, {Random(t, {3, 2}), IndexScalar(index, -1)},
                     [](const Scope& s, const Outputs& in) {
                       return Outputs{ops::ExpandDims(s.WithOpName("op"), in[0], in[1])};
                     }});
    const Tensor paddings = index == DT_INT64
                                ? Tensor::FromVector<int64_t>({1, 0, 2, 1}, TensorShape({2, 2}))
                                : Tensor::FromVector<int32_t>({1, 0, 2, 1}, TensorShape({2, 2}));
    cases.push_back({"Pad" + n, {Random(t, {2, 3}), paddings},
                     [](const Scope& s, const Outputs& in) {
                       return Outputs{ops::Pad(s.WithOpName("op"), in[0], in[1])};
                     }});
    cases.push_back({"PadV2" + n, {Random(t, {2, 3}), paddings, Random(t, {})},
                     [](const Scope& s, const Outputs& in) {
                       return Outputs{ops::PadV2(s.WithOpName("op"), in[0], in[1], in[2])};
                     }});
    cases.push_back({"Tile" + n, {Random(t, {2, 3}), IndexVector(index, {2, 3})},
                     [](const Scope& s, const Outputs& in) {
                       return Outputs{ops::Tile(s.WithOpName("op"), in[0], in[1])};
                     }});
    cases.push_back({"BroadcastTo" + n, {Random(t, {3, 1}), IndexVector(index, {2, 3, 4})},
                     [](const Scope& s, const Outputs& in) {
                       return Outputs{ops::BroadcastTo(s.WithOpName("op"), in[0], in[1])};
                     }});
    cases.push_back({"GatherV2" + n,
                     {Random(t, {4, 5, 2}), IndexVector(index, {4, 0, 4, 2}),
                      IndexScalar(index, 1)},
                     [](const Scope& s, const Outputs& in) {
                       return Outputs{ops::GatherV2(s.WithOpName("op"), in[0], in[1], in[2])};
                     }});
    cases.push_back({"OneHot" + n,
                     {IndexVector(index, {0, 3, -1, 2, 5}), Random(t, {}), Random(t, {})},
                     [](const Scope& s, const Outputs& in) {
                       return Outputs{
                           ops::OneHot(s.WithOpName("op"), in[0], 4, in[1], in[2], {.axis = 0})};
                     }});
    for (const char* op : {"StopGradient", "PreventGradient", "Snapshot"}) {
      cases.push_back({op + n, {Random(t, {3, 4})},
                       [op = std::string(op)](const Scope& s, const Outputs& in) {
                         const Scope named = s.WithOpName("op");
                         if (op == "StopGradient") return Outputs{ops::StopGradient(named, in[0])};
                         if (op == "Snapshot") return Outputs{ops::Snapshot(named, in[0])};
                         return Outputs{ops::PreventGradient(named, in[0], {.message = "no"})};
                       }});
    }
    cases.push_back({"Size" + n, {Random(t, {3, 0, 2})},
                     [index](const Scope& s, const Outputs& in) {
                       return Outputs{ops::Size(s.WithOpName("op"), in[0], {.out_type = index})};
                     }});
    cases.push_back({"Rank" + n, {Random(t, {3, 1, 2})},
                     [](const Scope& s, const Outputs& in) {
                       return Outputs{ops::Rank(s.WithOpName("op"), in[0])};
                     }});
    cases.push_back({"ShapeN" + n, {Random(t, {3, 0, 2}), Random(t, {4})},
                     [index](const Scope& s, const Outputs& in) {
                       return OpBuilder(s.WithOpName("op"), "ShapeN")
                           .InputList(in)
                           .Attr("out_type", index)
                           .Finalize();
                     }});
    cases.push_back({"IdentityN" + n, {Random(t, {3, 4}), Random(DT_FLOAT, {2})},
                     [](const Scope& s, const Outputs& in) {
                       return OpBuilder(s.WithOpName("op"), "IdentityN").InputList(in).Finalize();
                     }});
  }
  return cases;
}

// The ops on integer shapes and indices, and the numeric ones.
// 5, -1, 5, 3, -1, 0, 5 as a vector of `t`.
Tensor Repeats(DataType t) {
  const std::vector<int64_t> values = {5, -1, 5, 3, -1, 0, 5};
  const TensorShape shape({7});
  switch (t) {
    case DT_FLOAT:
      return Tensor::FromVector<float>(std::vector<float>(values.begin(), values.end()), shape);
    case DT_DOUBLE:
      return Tensor::FromVector<double>(std::vector<double>(values.begin(), values.end()), shape);
    case DT_BOOL:
      return Tensor::FromVector<bool>({true, false, true, true, false, false, true});
    default:
      return IndexVector(t, values);
  }
}

std::vector<ParityCase> IndexCases() {
  std::vector<ParityCase> cases;
  for (DataType index : {DT_INT32, DT_INT64}) {
    const std::string n = "_" + TypeName(index);
    cases.push_back({"ConcatOffset" + n,
                     {IndexVector(index, {2, 3, 5}), IndexVector(index, {2, 7, 5})},
                     [](const Scope& s, const Outputs& in) {
                       return ops::ConcatOffset(s.WithOpName("op"), 1, {in[0], in[1]});
                     }});
    cases.push_back({"BroadcastGradientArgs" + n,
                     {IndexVector(index, {2, 1, 5}), IndexVector(index, {3, 1})},
                     [](const Scope& s, const Outputs& in) {
                       return ops::BroadcastGradientArgs(s.WithOpName("op"), in[0], in[1]);
                     }});
    cases.push_back({"InvertPermutation" + n, {IndexVector(index, {3, 4, 0, 2, 1})},
                     [](const Scope& s, const Outputs& in) {
                       return Outputs{ops::InvertPermutation(s.WithOpName("op"), in[0])};
                     }});
  }
  for (DataType t : kNumberTypes) {
    const std::string n = "_" + TypeName(t);
    const bool integral = t == DT_INT32 || t == DT_INT64;
    const auto scalar = [t](double v) {
      Tensor x(t, TensorShape());
      switch (t) {
        case DT_FLOAT:
          x.scalar<float>()() = static_cast<float>(v);
          break;
        case DT_DOUBLE:
          x.scalar<double>()() = v;
          break;
        case DT_INT32:
          x.scalar<int32_t>()() = static_cast<int32_t>(v);
          break;
        default:
          x.scalar<int64_t>()() = static_cast<int64_t>(v);
      }
      return x;
    };
    cases.push_back({"Range" + n,
                     {scalar(integral ? 10 : 1.5), scalar(integral ? -3 : -2),
                      scalar(integral ? -4 : -0.25)},
                     [](const Scope& s, const Outputs& in) {
                       return Outputs{ops::Range(s.WithOpName("op"), in[0], in[1], in[2])};
                     }});
    cases.push_back({"UnsortedSegmentSum" + n,
                     {Random(t, {6, 3}), IndexVector(t == DT_INT64 ? DT_INT64 : DT_INT32,
                                                     {2, 0, -1, 2, 3, 0}),
                      IndexScalar(DT_INT32, 4)},
                     [](const Scope& s, const Outputs& in) {
                       return Outputs{
                           ops::UnsortedSegmentSum(s.WithOpName("op"), in[0], in[1], in[2])};
                     }});
  }
  // Repeats, in an order that is not sorted: y keeps first appearances.
  for (DataType t : kAllTypes) {
    for (DataType out_idx : {DT_INT32, DT_INT64}) {
      cases.push_back({absl::StrCat("Unique_", TypeName(t), "_", TypeName(out_idx)),
                       {Repeats(t)},
                       [out_idx](const Scope& s, const Outputs& in) {
                         auto unique = ops::Unique(s.WithOpName("op"), in[0], {.out_idx = out_idx});
                         return Outputs{unique.y, unique.idx};
                       }});
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(DataMovement, GPUParityArrayTest,
                         ::testing::ValuesIn(DataMovementCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(Index, GPUParityArrayTest, ::testing::ValuesIn(IndexCases()),
                         CaseName);

// ---------------------------------------------------------------------------
// Errors: the same status code and message on both devices, naming the node.

std::vector<ParityCase> ErrorCases() {
  return {
      {"GatherV2_IndexOutOfRange",
       {Random(DT_FLOAT, {4, 2}), IndexVector(DT_INT64, {1, 4})},
       [](const Scope& s, const Outputs& in) {
         return Outputs{ops::GatherV2(s.WithOpName("op"), in[0], in[1], 0)};
       }},
      {"StridedSlice_ShrinkIndexOutOfBounds",
       {Random(DT_FLOAT, {3, 2}), IndexVector(DT_INT32, {5}), IndexVector(DT_INT32, {6})},
       [](const Scope& s, const Outputs& in) {
         return Outputs{ops::StridedSlice(s.WithOpName("op"), in[0], in[1], in[2], {1},
                                          {.shrink_axis_mask = 1})};
       }},
      {"ConcatV2_MismatchedDimensions",
       {Random(DT_FLOAT, {2, 3}), Random(DT_FLOAT, {3, 3})},
       [](const Scope& s, const Outputs& in) {
         return Outputs{ops::Concat(s.WithOpName("op"), {in[0], in[1]}, 1)};
       }},
      {"Split_Uneven",
       {Random(DT_FLOAT, {2, 5})},
       [](const Scope& s, const Outputs& in) {
         return ops::Split(s.WithOpName("op"), 1, in[0], 2);
       }},
      {"Squeeze_DimensionNotOne",
       {Random(DT_FLOAT, {1, 3})},
       [](const Scope& s, const Outputs& in) {
         return Outputs{ops::Squeeze(s.WithOpName("op"), in[0], {.axis = {1}})};
       }},
      {"Range_ZeroDelta",
       {Tensor::Scalar<float>(0), Tensor::Scalar<float>(0)},
       [](const Scope& s, const Outputs& in) {
         return Outputs{ops::Range(s.WithOpName("op"), in[0], 3.0f, in[1])};
       }},
  };
}

class GPUErrorParityArrayTest : public ::testing::TestWithParam<ParityCase> {};

TEST_P(GPUErrorParityArrayTest, FailsWithTheCpuStatusCodeNamingTheNode) {
  ExpectSameErrorOnGPUAndCpu(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Error, GPUErrorParityArrayTest, ::testing::ValuesIn(ErrorCases()),
                         CaseName);

// ---------------------------------------------------------------------------
// Coverage.

TEST(GPUParityArrayCoverageTest, EveryOpWithASimGpuKernelHasAParityFile) {
  ExpectEverySimGPUOpIsOwnedByAParityFile();
}

TEST(GPUParityArrayCoverageTest, EverySimGpuKernelOfTheArrayOpsRunsInACase) {
  std::vector<GraphDef> graphs;
  for (const auto& cases : {DataMovementCases(), IndexCases()}) {
    for (const ParityCase& c : cases) graphs.push_back(GPUGraphOf(c));
  }
  ExpectSimGPUKernelsExercised(kArrayFileOps, graphs);
}

}  // namespace
}  // namespace minitf::gpu_parity
