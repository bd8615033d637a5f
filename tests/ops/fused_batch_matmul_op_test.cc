// _MklFusedBatchMatMulV2 (the remapper's BatchMatMulV2 + Mul + AddV2 on the
// CPU, as TensorFlow's oneDNN build fuses an attention's scaled, masked
// scores): the values BatchMatMulV2, Mul and AddV2 give one after another,
// with each adjoint, with addends broadcast along every dimension TensorFlow
// allows and along rows and columns, for one product (one after another)
// and many (shared out over the pool), with k = 0, with fused_ops [Mul]
// alone; and its errors, each an InvalidArgument naming the node: a factor
// of two elements or of a higher rank than the product's, an addend that
// does not broadcast to the product, fused_ops it does not know or a
// num_args that does not match them.
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/types.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf {
namespace {

using test::KernelRunner;
using test::MakeNodeDef;

Tensor Values(const TensorShape& shape, float scale) {
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.flat<float>()(i) = scale * static_cast<float>((i * 7) % 13 - 6);
  }
  return t;
}

NodeDef FusedDef(bool adj_x, bool adj_y, std::vector<std::string> fused_ops, int64_t num_args) {
  return MakeNodeDef("scores", "_MklFusedBatchMatMulV2",
                     {{"T", DT_FLOAT},
                      {"adj_x", adj_x},
                      {"adj_y", adj_y},
                      {"num_args", num_args},
                      {"fused_ops", std::move(fused_ops)}});
}

Tensor RunOne(NodeDef def, const std::vector<Tensor>& inputs) {
  KernelRunner runner(std::move(def));
  absl::StatusOr<std::vector<Tensor>> out = runner.Run(inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? (*out)[0] : Tensor();
}

// BatchMatMulV2, Mul and AddV2 (when `addend` is set), each its own kernel.
Tensor Unfused(const Tensor& x, const Tensor& y, bool adj_x, bool adj_y, const Tensor& factor,
               const Tensor* addend) {
  Tensor product = RunOne(
      MakeNodeDef("bmm", "BatchMatMulV2", {{"T", DT_FLOAT}, {"adj_x", adj_x}, {"adj_y", adj_y}}),
      {x, y});
  Tensor scaled = RunOne(MakeNodeDef("mul", "Mul", {{"T", DT_FLOAT}}), {product, factor});
  if (addend == nullptr) return scaled;
  return RunOne(MakeNodeDef("add", "AddV2", {{"T", DT_FLOAT}}), {scaled, *addend});
}

void ExpectSame(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.shape(), want.shape());
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    EXPECT_NEAR(got.flat<float>()(i), want.flat<float>()(i), 1e-5f) << i;
  }
}

TEST(FusedBatchMatMulOpTest, GivesWhatTheUnfusedKernelsGive) {
  const Tensor factor = Tensor::FromVector<float>({0.125f}, TensorShape({}));
  // Products [2,3,4,5] (many) and [1,1,4,5] (one); masks over every head,
  // as an attention's, and ones broadcast along rows or columns.
  for (const int64_t batch : {2, 1}) {
    const int64_t heads = batch == 2 ? 3 : 1;
    for (const TensorShape& mask :
         {TensorShape({batch, 1, 4, 5}), TensorShape({batch, 1, 1, 5}), TensorShape({1, 1, 4, 1}),
          TensorShape({batch, heads, 4, 5}), TensorShape({5})}) {
      for (bool adj_x : {false, true}) {
        for (bool adj_y : {false, true}) {
          SCOPED_TRACE(mask.DebugString() + (adj_x ? " adj_x" : "") + (adj_y ? " adj_y" : ""));
          const Tensor x = Values(
              adj_x ? TensorShape({batch, heads, 6, 4}) : TensorShape({batch, heads, 4, 6}), 0.5f);
          const Tensor y = Values(
              adj_y ? TensorShape({batch, heads, 5, 6}) : TensorShape({batch, heads, 6, 5}), 0.25f);
          const Tensor addend = Values(mask, -1.5f);
          ExpectSame(RunOne(FusedDef(adj_x, adj_y, {"Mul", "Add"}, 2), {x, y, factor, addend}),
                     Unfused(x, y, adj_x, adj_y, factor, &addend));
        }
      }
    }
  }
}

TEST(FusedBatchMatMulOpTest, MulAloneScalesAndAnEmptyInnerDimensionGivesTheAddend) {
  const Tensor factor = Tensor::FromVector<float>({-2.0f}, TensorShape({1, 1, 1, 1}));
  const Tensor x = Values(TensorShape({2, 2, 3, 4}), 0.5f);
  const Tensor y = Values(TensorShape({2, 2, 4, 3}), 0.5f);
  ExpectSame(RunOne(FusedDef(false, false, {"Mul"}, 1), {x, y, factor}),
             Unfused(x, y, false, false, factor, nullptr));
  const Tensor addend = Values(TensorShape({2, 1, 3, 3}), 1.0f);
  const Tensor empty_x(DT_FLOAT, TensorShape({2, 2, 3, 0}));
  const Tensor empty_y(DT_FLOAT, TensorShape({2, 2, 0, 3}));
  const Tensor out =
      RunOne(FusedDef(false, false, {"Mul", "Add"}, 2), {empty_x, empty_y, factor, addend});
  ExpectSame(out, Unfused(empty_x, empty_y, false, false, factor, &addend));
  EXPECT_NE(out.flat<float>()(1), 0.0f);
}

// The kernel's error for `inputs`, which must be an InvalidArgument naming
// the node and containing `message`.
void ExpectInvalid(NodeDef def, const std::vector<Tensor>& inputs, const std::string& message) {
  KernelRunner runner(std::move(def));
  absl::StatusOr<std::vector<Tensor>> out = runner.Run(inputs);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
  EXPECT_NE(std::string(out.status().message()).find(message), std::string::npos) << out.status();
  EXPECT_NE(std::string(out.status().message()).find("'scores'"), std::string::npos)
      << out.status();
}

TEST(FusedBatchMatMulOpTest, BadArgumentsAreInvalidAndNamed) {
  const Tensor x = Values(TensorShape({2, 3, 4, 6}), 1);
  const Tensor y = Values(TensorShape({2, 3, 6, 5}), 1);
  const Tensor factor = Tensor::FromVector<float>({0.5f}, TensorShape({}));
  ExpectInvalid(FusedDef(false, false, {"Mul", "Add"}, 2),
                {x, y, Values(TensorShape({2}), 1), Values(TensorShape({2, 1, 4, 5}), 1)},
                "the Mul's factor must have one element and at most the product's rank, 4; "
                "got shape [2]");
  ExpectInvalid(FusedDef(false, false, {"Mul"}, 1), {x, y, Values(TensorShape({1, 1, 1, 1, 1}), 1)},
                "got shape [1,1,1,1,1]");
  // An addend AddV2 would broadcast the product to, or one that does not
  // broadcast at all.
  for (const TensorShape& shape :
       {TensorShape({2, 2, 3, 4, 5}), TensorShape({2, 1, 4, 3}), TensorShape({3, 1, 4, 5})}) {
    SCOPED_TRACE(shape.DebugString());
    ExpectInvalid(FusedDef(false, false, {"Mul", "Add"}, 2), {x, y, factor, Values(shape, 1)},
                  "Incompatible shapes: [2,3,4,5] vs. ");
  }
  ExpectInvalid(FusedDef(false, false, {"Add"}, 1), {x, y, factor}, "fused_ops must be");
  ExpectInvalid(FusedDef(false, false, {"Mul", "Add"}, 1), {x, y, factor}, "num_args 1");
  ExpectInvalid(FusedDef(false, false, {"Mul"}, 2), {x, y, factor, factor}, "num_args 2");
  // BatchMatMulV2's own checks.
  ExpectInvalid(FusedDef(false, false, {"Mul"}, 1), {x, x, factor}, "In[0]: [2,3,4,6]");
}

}  // namespace
}  // namespace minitf
