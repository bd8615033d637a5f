// MaxPool, MaxPoolGrad, AvgPool and AvgPoolGrad under data_format NCHW:
// each result is the NHWC one (the direct-loop references of
// conv_reference.h for the max pools, the NHWC kernel for the average ones)
// with the channels moved to dimension 1; the windows and strides list
// [batch, depth, rows, cols]; the shape functions keep the layout.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/ops/conv_reference.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf {
namespace {

using test::ExpectTensorNear;
using test::InferShapes;
using test::KernelRunner;
using test::MakeNodeDef;
using test::NhwcToNchw;
using test::PoolSpec;
using test::RandomTensor;
using test::SizesOf;
using ::testing::HasSubstr;

AttrValueMap PoolAttrs(const PoolSpec& s, DataType dtype, bool nchw) {
  const std::vector<int64_t> ksize = nchw
                                         ? std::vector<int64_t>{1, 1, s.window_rows, s.window_cols}
                                         : std::vector<int64_t>{1, s.window_rows, s.window_cols, 1};
  const std::vector<int64_t> strides =
      nchw ? std::vector<int64_t>{1, 1, s.stride_rows, s.stride_cols}
           : std::vector<int64_t>{1, s.stride_rows, s.stride_cols, 1};
  return {{"T", dtype},
          {"ksize", ksize},
          {"strides", strides},
          {"padding", s.same ? "SAME" : "VALID"},
          {"data_format", nchw ? "NCHW" : "NHWC"}};
}

Tensor RunOne(const std::string& op, const AttrValueMap& attrs, const std::vector<Tensor>& inputs) {
  KernelRunner runner(MakeNodeDef("pool", op, attrs), 2);
  auto out = runner.Run(inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? (*out)[0] : Tensor();
}

struct PoolCase {
  TensorShape input;  // NHWC
  PoolSpec spec;
};

std::vector<PoolCase> Cases() {
  return {
      {{1, 4, 4, 1}, {.window_rows = 2, .window_cols = 2, .stride_rows = 2, .stride_cols = 2}},
      {{2, 7, 6, 3},
       {.window_rows = 3, .window_cols = 3, .stride_rows = 2, .stride_cols = 2, .same = true}},
      {{2, 5, 8, 4}, {.window_rows = 2, .window_cols = 3, .stride_rows = 1, .stride_cols = 2}},
  };
}

std::string Describe(const PoolCase& c) {
  return absl::StrCat(c.input.DebugString(), " window ", c.spec.window_rows, "x",
                      c.spec.window_cols, " stride ", c.spec.stride_rows, "x", c.spec.stride_cols,
                      c.spec.same ? " SAME" : " VALID");
}

template <typename T>
void ExpectEveryPoolMatchesNhwc(double tolerance) {
  uint32_t seed = 1;
  const DataType dtype = DataTypeToEnum<T>::value;
  for (const PoolCase& c : Cases()) {
    SCOPED_TRACE(Describe(c));
    const AttrValueMap nchw = PoolAttrs(c.spec, dtype, true);
    const AttrValueMap nhwc = PoolAttrs(c.spec, dtype, false);
    const Tensor x = RandomTensor<T>(c.input, seed++);
    const Tensor y = test::RefMaxPool<T>(x, c.spec);
    const Tensor dy = RandomTensor<T>(y.shape(), seed++);
    ExpectTensorNear(RunOne("MaxPool", nchw, {NhwcToNchw<T>(x)}), NhwcToNchw<T>(y), tolerance,
                     tolerance);
    ExpectTensorNear(
        RunOne("MaxPoolGrad", nchw, {NhwcToNchw<T>(x), NhwcToNchw<T>(y), NhwcToNchw<T>(dy)}),
        NhwcToNchw<T>(test::RefMaxPoolGrad<T>(x, dy, c.spec)), tolerance, tolerance);
    ExpectTensorNear(RunOne("AvgPool", nchw, {NhwcToNchw<T>(x)}),
                     NhwcToNchw<T>(RunOne("AvgPool", nhwc, {x})), tolerance, tolerance);
    ExpectTensorNear(
        RunOne("AvgPoolGrad", nchw, {SizesOf(NhwcToNchw<T>(x).shape()), NhwcToNchw<T>(dy)}),
        NhwcToNchw<T>(RunOne("AvgPoolGrad", nhwc, {SizesOf(c.input), dy})), tolerance, tolerance);
  }
}

TEST(PoolNchwTest, FloatMatchesNhwc) { ExpectEveryPoolMatchesNhwc<float>(1e-6); }

TEST(PoolNchwTest, DoubleMatchesNhwc) { ExpectEveryPoolMatchesNhwc<double>(1e-12); }

TEST(PoolNchwTest, ShapesAndErrorsFollowTheLayout) {
  const PoolSpec spec = {.window_rows = 3, .window_cols = 3, .stride_rows = 2, .stride_cols = 2};
  for (const char* op : {"MaxPool", "AvgPool"}) {
    SCOPED_TRACE(op);
    auto shapes = InferShapes(MakeNodeDef("pool", op, PoolAttrs(spec, DT_FLOAT, true)),
                              {PartialTensorShape({2, 3, 9, 7})});
    ASSERT_TRUE(shapes.ok()) << shapes.status();
    EXPECT_EQ((*shapes)[0], PartialTensorShape({2, 3, 4, 3}));
  }
  // Under NCHW the depth is entry 1 of ksize.
  AttrValueMap deep = PoolAttrs(spec, DT_FLOAT, true);
  deep["ksize"] = std::vector<int64_t>{1, 2, 3, 3};
  KernelRunner across_depth(MakeNodeDef("pool", "MaxPool", deep));
  EXPECT_EQ(across_depth.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(across_depth.status().message(), HasSubstr("batch and depth"));
  // The pooled shape an input must have is NCHW.
  KernelRunner grad(MakeNodeDef("pool", "MaxPoolGrad", PoolAttrs(spec, DT_FLOAT, true)));
  const Tensor x(DT_FLOAT, TensorShape({1, 2, 7, 7}));
  const Tensor nhwc_pooled(DT_FLOAT, TensorShape({1, 3, 3, 2}));
  auto out = grad.Run({x, nhwc_pooled, nhwc_pooled});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("gives [1,2,3,3]"));
}

}  // namespace
}  // namespace minitf
