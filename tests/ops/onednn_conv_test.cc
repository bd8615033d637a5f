// oneDNN's convolutions (ops/kernels/onednn_conv.h) against the im2col
// functors (conv_functors.h), the CPU kernels' other path, in all three
// directions over the windows ResNet-50 and TensorFlow's conv tests use:
// SAME with even and odd padding, strides that leave input rows unread,
// dilations, 1x1 and 7x7 filters, a batch of one, and the 3x3 windows
// Winograd's kernels take. Also the switches (TF_ENABLE_ONEDNN_OPTS,
// MINITF_ONEDNN_WINOGRAD), which plans take Winograd, the process's shared
// plans and what `minitf run --profile` names. ctest runs this again with
// TF_ENABLE_ONEDNN_OPTS=0, MINITF_ONEDNN_WINOGRAD=0 and with
// MINITF_MAX_CPU_ISA=avx2 and =baseline.
#include "ops/kernels/onednn_conv.h"
#include "ops/kernels/onednn_host.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ops/kernels/conv_functors.h"
#include "ops/kernels/window_geometry.h"
#include "ops/util/window_attrs.h"
#include "platform/cpu_isa.h"
#include "runtime/tensor_shape.h"
#include "runtime/threadpool.h"

namespace minitf::functor {
namespace {

using Direction = OneDnnConv::Direction;

struct Case {
  std::string name;
  TensorShape input;   // NHWC
  TensorShape filter;  // HWIO
  Conv2DParameters params;
};

std::vector<Case> Cases() {
  Conv2DParameters same;
  same.padding = Padding::kSame;
  Conv2DParameters same2 = same;
  same2.stride_rows = same2.stride_cols = 2;
  Conv2DParameters valid2;
  valid2.stride_rows = valid2.stride_cols = 2;
  Conv2DParameters dilated = same;
  dilated.dilation_rows = 2;
  dilated.dilation_cols = 3;
  Conv2DParameters uneven;
  uneven.stride_rows = 3;
  uneven.stride_cols = 1;
  return {
      {"3x3 same", TensorShape({2, 9, 9, 16}), TensorShape({3, 3, 16, 24}), same},
      {"3x3 same stride 2, odd padding", TensorShape({2, 10, 10, 8}), TensorShape({3, 3, 8, 16}),
       same2},
      {"1x1 valid stride 2 over an odd size", TensorShape({3, 7, 7, 32}),
       TensorShape({1, 1, 32, 64}), valid2},
      {"7x7 stem stride 2", TensorShape({2, 23, 23, 3}), TensorShape({7, 7, 3, 16}), same2},
      {"dilated 2x3", TensorShape({1, 12, 13, 4}), TensorShape({3, 3, 4, 5}), dilated},
      {"valid, strides 3 by 1, non-square filter", TensorShape({2, 11, 8, 5}),
       TensorShape({2, 4, 5, 7}), uneven},
      {"a batch of one, one channel", TensorShape({1, 5, 6, 1}), TensorShape({3, 2, 1, 1}), same},
      // Winograd's (32 4x4 output tiles and more): the padded and the
      // unpadded window, sizes that leave the last tiles partial, and
      // channels that are no multiple of 16.
      {"3x3 same, 32 tiles", TensorShape({2, 16, 16, 16}), TensorShape({3, 3, 16, 32}), same},
      {"3x3 valid, partial tiles", TensorShape({1, 27, 31, 32}), TensorShape({3, 3, 32, 16}),
       Conv2DParameters()},
      {"3x3 same, 24 channels", TensorShape({4, 12, 12, 24}), TensorShape({3, 3, 24, 8}), same},
  };
}

std::vector<float> Random(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// Runs oneDNN's convolution on `threads` threads; fails the test unless it ran.
std::vector<float> RunOneDnn(Direction direction, const Conv2DGeometry& g, int threads,
                             const std::vector<float>& a, const std::vector<float>& b,
                             int64_t out_elements) {
  OneDnnConv conv(direction, g);
  const absl::StatusOr<int64_t> bytes = conv.WorkspaceBytes();
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  if (!bytes.ok()) return {};
  std::vector<float> workspace(*bytes / sizeof(float) + 16);
  void* aligned = workspace.data();
  size_t space = workspace.size() * sizeof(float);
  EXPECT_NE(std::align(64, *bytes, aligned, space), nullptr);
  // NaN everywhere first: every output element must be written.
  std::vector<float> out(out_elements, std::nanf(""));
  const absl::Status run = conv.Run(threads, a.data(), b.data(), out.data(), aligned);
  EXPECT_TRUE(run.ok()) << run;
  return out;
}

std::vector<float> RunIm2col(Direction direction, const Conv2DGeometry& g,
                             const std::vector<float>& a, const std::vector<float>& b,
                             int64_t out_elements) {
  ThreadPool pool("intra_op", 2);
  const Eigen::ThreadPoolDevice& d = pool.eigen_device();
  std::vector<float> out(out_elements);
  switch (direction) {
    case Direction::kForward: {
      std::vector<float> ws(Conv2DFunctor<float>::WorkspaceElements(d, g));
      Conv2DFunctor<float>()(d, g, a.data(), b.data(), out.data(), ws.data());
      break;
    }
    case Direction::kBackpropInput: {
      std::vector<float> ws(Conv2DBackpropInputFunctor<float>::WorkspaceElements(d, g));
      Conv2DBackpropInputFunctor<float>()(d, g, a.data(), b.data(), out.data(), ws.data());
      break;
    }
    case Direction::kBackpropFilter: {
      std::vector<float> ws(Conv2DBackpropFilterFunctor<float>::WorkspaceElements(d, g));
      Conv2DBackpropFilterFunctor<float>()(d, g, a.data(), b.data(), out.data(), ws.data());
      break;
    }
  }
  return out;
}

// Each element within tolerance * (1 + the larger magnitude of the two):
// sums of `terms` products of values in [-1, 1] in another order (oneDNN's
// direct or Winograd kernels, im2col's GEMM) differ by about sqrt(terms)
// roundings, so the tolerance is 1e-6 * sqrt(terms), and never below 1e-5.
void ExpectClose(const std::vector<float>& actual, const std::vector<float>& expected,
                 int64_t terms, const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  const float tolerance = std::max(1e-5f, 1e-6f * std::sqrt(static_cast<float>(terms)));
  for (size_t i = 0; i < actual.size(); ++i) {
    const float bound = tolerance * (1.0f + std::max(std::abs(actual[i]), std::abs(expected[i])));
    ASSERT_NEAR(actual[i], expected[i], bound) << what << ", element " << i;
  }
}

TEST(OneDnnConvTest, AllThreeDirectionsMatchIm2col) {
  for (const Case& c : Cases()) {
    const absl::StatusOr<Conv2DGeometry> g = MakeConv2DGeometry(c.params, c.input, c.filter);
    ASSERT_TRUE(g.ok()) << c.name << ": " << g.status();
    const std::vector<float> input = Random(g->input_elements(), 1);
    const std::vector<float> filter = Random(g->filter_elements(), 2);
    const std::vector<float> out_grad = Random(g->output_elements(), 3);
    for (int threads : {1, 2}) {
      const std::string what = c.name + ", " + std::to_string(threads) + " threads";
      ExpectClose(RunOneDnn(Direction::kForward, *g, threads, input, filter, g->output_elements()),
                  RunIm2col(Direction::kForward, *g, input, filter, g->output_elements()),
                  g->patch_size(), "Conv2D, " + what);
      ExpectClose(
          RunOneDnn(Direction::kBackpropInput, *g, threads, filter, out_grad, g->input_elements()),
          RunIm2col(Direction::kBackpropInput, *g, filter, out_grad, g->input_elements()),
          g->filter_rows * g->filter_cols * g->out_depth, "Conv2DBackpropInput, " + what);
      ExpectClose(
          RunOneDnn(Direction::kBackpropFilter, *g, threads, input, out_grad, g->filter_elements()),
          RunIm2col(Direction::kBackpropFilter, *g, input, out_grad, g->filter_elements()),
          g->batch * g->out_rows * g->out_cols, "Conv2DBackpropFilter, " + what);
    }
  }
}

// Which algorithm a plan takes: Winograd for a 3x3 stride-1 window over 32
// tiles and more where the processor has AVX-512 and MINITF_ONEDNN_WINOGRAD
// is not 0 (ctest runs this binary with it 0 and capped at AVX2 too).
TEST(OneDnnConvTest, WinogradTakesTheLargeThreeByThreeWindowsOnly) {
  if (!OneDnnEnabled()) GTEST_SKIP() << "oneDNN is off: " << WhyOneDnnOff();
  Conv2DParameters same;
  same.padding = Padding::kSame;
  Conv2DParameters same2 = same;
  same2.stride_rows = same2.stride_cols = 2;
  Conv2DParameters dilated = same;
  dilated.dilation_rows = dilated.dilation_cols = 2;
  const bool can = OneDnnWinogradEnabled() && ActiveCpuIsa() == CpuIsa::kAvx512;
  struct Expectation {
    TensorShape input, filter;
    Conv2DParameters params;
    bool winograd;
  };
  const std::vector<Expectation> cases = {
      {TensorShape({2, 16, 16, 64}), TensorShape({3, 3, 64, 64}), same, can},
      {TensorShape({8, 7, 7, 512}), TensorShape({3, 3, 512, 512}), same, can},
      {TensorShape({4, 7, 7, 512}), TensorShape({3, 3, 512, 512}), same, false},  // 16 tiles
      {TensorShape({2, 32, 32, 64}), TensorShape({3, 3, 64, 64}), same2, false},
      {TensorShape({2, 32, 32, 64}), TensorShape({3, 3, 64, 64}), dilated, false},
      {TensorShape({2, 32, 32, 64}), TensorShape({1, 1, 64, 64}), same, false},
  };
  for (const Expectation& c : cases) {
    const absl::StatusOr<Conv2DGeometry> g = MakeConv2DGeometry(c.params, c.input, c.filter);
    ASSERT_TRUE(g.ok()) << g.status();
    for (Direction d :
         {Direction::kForward, Direction::kBackpropInput, Direction::kBackpropFilter}) {
      OneDnnConv conv(d, *g);
      ASSERT_TRUE(conv.WorkspaceBytes().ok());
      EXPECT_EQ(conv.winograd(), c.winograd)
          << c.input.DebugString() << " * " << c.filter.DebugString() << ", direction "
          << static_cast<int>(d);
    }
  }
}

// The process's plans: one per direction and geometry, the same object on
// every call; oneDNN's refusal remembered as Unimplemented.
TEST(OneDnnConvTest, SharedPlansAreMadeOnce) {
  if (!OneDnnEnabled()) GTEST_SKIP() << "oneDNN is off: " << WhyOneDnnOff();
  Conv2DParameters same;
  same.padding = Padding::kSame;
  const absl::StatusOr<Conv2DGeometry> g =
      MakeConv2DGeometry(same, TensorShape({2, 9, 9, 16}), TensorShape({3, 3, 16, 24}));
  ASSERT_TRUE(g.ok()) << g.status();
  const auto forward = SharedOneDnnConv(Direction::kForward, *g);
  ASSERT_TRUE(forward.ok()) << forward.status();
  const auto again = SharedOneDnnConv(Direction::kForward, *g);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(forward->get(), again->get());
  const auto backward = SharedOneDnnConv(Direction::kBackpropInput, *g);
  ASSERT_TRUE(backward.ok()) << backward.status();
  EXPECT_NE(forward->get(), backward->get());
  OneDnnConv own(Direction::kForward, *g);
  EXPECT_EQ((*forward)->workspace_bytes(), *own.WorkspaceBytes());

  const absl::StatusOr<Conv2DGeometry> empty =
      MakeConv2DGeometry(same, TensorShape({0, 4, 4, 2}), TensorShape({3, 3, 2, 5}));
  ASSERT_TRUE(empty.ok()) << empty.status();
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(SharedOneDnnConv(Direction::kForward, *empty).status().code(),
              absl::StatusCode::kUnimplemented);
  }
}

TEST(OneDnnConvTest, AnEmptyTensorIsLeftToIm2col) {
  Conv2DParameters same;
  same.padding = Padding::kSame;
  const absl::StatusOr<Conv2DGeometry> g =
      MakeConv2DGeometry(same, TensorShape({0, 4, 4, 2}), TensorShape({3, 3, 2, 5}));
  ASSERT_TRUE(g.ok()) << g.status();
  OneDnnConv conv(Direction::kForward, *g);
  EXPECT_EQ(conv.WorkspaceBytes().status().code(), absl::StatusCode::kUnimplemented);
}

TEST(OneDnnConvTest, ParsesTensorFlowsSwitch) {
  for (const char* on : {"1", "true", "TRUE", "True"}) {
    const absl::StatusOr<bool> v = ParseOneDnnOpts(on);
    ASSERT_TRUE(v.ok()) << on;
    EXPECT_TRUE(*v) << on;
  }
  for (const char* off : {"0", "false", "FALSE"}) {
    const absl::StatusOr<bool> v = ParseOneDnnOpts(off);
    ASSERT_TRUE(v.ok()) << off;
    EXPECT_FALSE(*v) << off;
  }
  const absl::StatusOr<bool> bad = ParseOneDnnOpts("yes");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("TF_ENABLE_ONEDNN_OPTS=\"yes\""), std::string::npos)
      << bad.status();
  const absl::StatusOr<bool> winograd = ParseOnOff("MINITF_ONEDNN_WINOGRAD", "off");
  EXPECT_EQ(winograd.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(winograd.status().message().find("MINITF_ONEDNN_WINOGRAD=\"off\""), std::string::npos)
      << winograd.status();
}

// The process's environment decides (ctest runs this binary with and
// without TF_ENABLE_ONEDNN_OPTS=0 and MINITF_MAX_CPU_ISA=baseline).
TEST(OneDnnConvTest, TheEnvironmentTurnsItOffAndTheProfileSaysSo) {
  const char* opts = std::getenv("TF_ENABLE_ONEDNN_OPTS");
  const bool switched_off = opts != nullptr && !ParseOneDnnOpts(opts).value_or(true);
  const bool baseline = ActiveCpuIsa() == CpuIsa::kBaseline;
  EXPECT_EQ(OneDnnEnabled(), !switched_off && !baseline);
  const char* winograd = std::getenv("MINITF_ONEDNN_WINOGRAD");
  EXPECT_EQ(OneDnnWinogradEnabled(),
            winograd == nullptr || ParseOnOff("MINITF_ONEDNN_WINOGRAD", winograd).value_or(true));
  const std::string name = HostConvolutionName();
  if (OneDnnEnabled()) {
    EXPECT_EQ(name.rfind("oneDNN ", 0), 0u) << name;
    EXPECT_EQ(name.find("Winograd") != std::string::npos,
              OneDnnWinogradEnabled() && ActiveCpuIsa() == CpuIsa::kAvx512)
        << name;
    if (ActiveCpuIsa() == CpuIsa::kAvx2) {
      EXPECT_NE(name.find("avx2"), std::string::npos) << name;
    }
  } else {
    EXPECT_EQ(name.rfind("im2col and OpenBLAS (", 0), 0u) << name;
    EXPECT_NE(name.find(switched_off ? "TF_ENABLE_ONEDNN_OPTS" : "MINITF_MAX_CPU_ISA"),
              std::string::npos)
        << name;
  }
}

}  // namespace
}  // namespace minitf::functor
