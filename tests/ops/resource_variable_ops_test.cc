// Tests of the resource variable ops (VarHandleOp, ReadVariableOp,
// AssignVariableOp, AssignAdd/SubVariableOp, VarIsInitializedOp,
// DestroyResourceOp) and the resource optimizer updates
// (ResourceApplyGradientDescent, ResourceApplyMomentum, ResourceApplyAdam),
// through a DirectSession with every node on the CPU or on a SimGPU.
// Update values are computed by hand from TensorFlow's formulas.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/standard_ops.h"
#include "runtime/op_registry.h"
#include "runtime/resource_mgr.h"
#include "session/session.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf {
namespace {

using test::ExpectTensorEqual;
using test::ExpectTensorNear;
using test::InferShapes;
using test::MakeNodeDef;
using ::testing::AllOf;
using ::testing::HasSubstr;

using Feeds = std::vector<std::pair<std::string, Tensor>>;

constexpr char kGPU[] = "/device:GPU:0";

// ---- Tensors of type resource ----

TEST(ResourceTensorTest, HoldsHandlesThatCopyAndPrint) {
  EXPECT_EQ(DataTypeString(DT_RESOURCE), "resource");
  EXPECT_EQ(*DataTypeFromString("resource"), DT_RESOURCE);
  EXPECT_EQ(static_cast<int>(DT_RESOURCE), 20);
  Tensor t = Tensor::Scalar<ResourceHandle>(ResourceHandle{"/device:CPU:0", "c", "w"});
  const Tensor copy = t.DeepCopy();
  t.scalar<ResourceHandle>()().name = "changed";
  EXPECT_EQ(copy.scalar<ResourceHandle>()().name, "w");
  EXPECT_THAT(copy.DebugString(), AllOf(HasSubstr("resource"), HasSubstr("c/w")));
}

// ---- Shape functions ----

TEST(ResourceVariableShapeTest, HandlesAndScalarsMustBeScalars) {
  auto handle = InferShapes(
      MakeNodeDef("h", "VarHandleOp", {{"dtype", DT_FLOAT}, {"shape", TensorShape({2})}}), {});
  ASSERT_TRUE(handle.ok()) << handle.status();
  EXPECT_EQ((*handle)[0], PartialTensorShape(TensorShape()));

  NodeDef sgd = MakeNodeDef("my_sgd", "ResourceApplyGradientDescent", {{"T", DT_FLOAT}});
  EXPECT_TRUE(InferShapes(sgd, {PartialTensorShape(TensorShape()), PartialTensorShape(TensorShape()),
                                PartialTensorShape({2})})
                  .ok());
  auto bad = InferShapes(sgd, {PartialTensorShape(TensorShape()), PartialTensorShape({2}),
                               PartialTensorShape({2})});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("my_sgd"));
}

// ---- Through a session, on the CPU and on a SimGPU ----

SessionOptions OptionsFor(bool gpu) {
  SessionOptions options;
  options.config.gpu_options.platform = "SimGPU";
  options.config.gpu_options.simgpu_options = "memory=256MiB,mode=functional";
  if (!gpu) options.config.device_count["GPU"] = 0;
  return options;
}

class ResourceVariableTest : public ::testing::TestWithParam<bool> {
 protected:
  bool gpu() const { return GetParam(); }
  // A scope whose ops are pinned to the device under test.
  Scope OnDevice(const Scope& root) const { return gpu() ? root.WithDevice(kGPU) : root; }

  void Create(const Scope& root) {
    GraphDef def;
    ASSERT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
    auto session = NewSession(OptionsFor(gpu()));
    ASSERT_TRUE(session.ok()) << session.status();
    session_ = *std::move(session);
    ASSERT_TRUE(session_->Create(def).ok());
  }
  absl::Status Run(const Feeds& feeds, const std::vector<std::string>& targets) {
    std::vector<Tensor> unused;
    return session_->Run(feeds, {}, targets, &unused);
  }
  absl::StatusOr<Tensor> Fetch(const std::string& name, const Feeds& feeds = {}) {
    std::vector<Tensor> out;
    absl::Status s = session_->Run(feeds, {name}, {}, &out);
    if (!s.ok()) return s;
    return out[0];
  }

  std::unique_ptr<Session> session_;
};

TEST_P(ResourceVariableTest, AssignReadAddSubAndInitializedState) {
  Scope root = Scope::NewRootScope();
  auto value = ops::Placeholder(root.WithOpName("value"), DT_FLOAT);
  Scope s = OnDevice(root);
  auto v = ops::VarHandleOp(s.WithOpName("v"), DT_FLOAT, PartialTensorShape({2}));
  ops::AssignVariableOp(s.WithOpName("assign"), v, value);
  ops::AssignAddVariableOp(s.WithOpName("add"), v, value);
  ops::AssignSubVariableOp(s.WithOpName("sub"), v, value);
  ops::ReadVariableOp(s.WithOpName("read"), v, DT_FLOAT);
  ops::VarIsInitializedOp(s.WithOpName("is_initialized"), v);
  Create(root);

  auto before = Fetch("is_initialized");
  ASSERT_TRUE(before.ok()) << before.status();
  ExpectTensorEqual(*before, Tensor::Scalar<bool>(false));
  auto uninit = Fetch("read");
  ASSERT_FALSE(uninit.ok());
  EXPECT_EQ(uninit.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(uninit.status().message(),
              AllOf(HasSubstr("variable v"), HasSubstr("uninitialized"), HasSubstr("read")));
  EXPECT_EQ(Run({{"value", Tensor::FromVector<float>({1, 1})}}, {"add"}).code(),
            absl::StatusCode::kFailedPrecondition);

  ASSERT_TRUE(Run({{"value", Tensor::FromVector<float>({1, 2})}}, {"assign"}).ok());
  ExpectTensorEqual(*Fetch("is_initialized"), Tensor::Scalar<bool>(true));
  const Tensor first = *Fetch("read");
  ExpectTensorEqual(first, Tensor::FromVector<float>({1, 2}));
  ASSERT_TRUE(Run({{"value", Tensor::FromVector<float>({10, 20})}}, {"add"}).ok());
  ExpectTensorEqual(*Fetch("read"), Tensor::FromVector<float>({11, 22}));
  ASSERT_TRUE(Run({{"value", Tensor::FromVector<float>({1, 2})}}, {"sub"}).ok());
  ExpectTensorEqual(*Fetch("read"), Tensor::FromVector<float>({10, 20}));
  // A value read earlier is not changed by later updates (copy on write).
  ExpectTensorEqual(first, Tensor::FromVector<float>({1, 2}));
  // Without validate_shape an assignment may change the shape.
  ASSERT_TRUE(Run({{"value", Tensor::FromVector<float>({7, 8, 9})}}, {"assign"}).ok());
  ExpectTensorEqual(*Fetch("read"), Tensor::FromVector<float>({7, 8, 9}));
}

TEST_P(ResourceVariableTest, IntegerAndDoubleVariables) {
  Scope root = Scope::NewRootScope();
  Scope s = OnDevice(root);
  auto i32 = ops::VarHandleOp(s.WithOpName("i32"), DT_INT32, PartialTensorShape({3}));
  auto i64 = ops::VarHandleOp(s.WithOpName("i64"), DT_INT64, PartialTensorShape(TensorShape()));
  auto f64 = ops::VarHandleOp(s.WithOpName("f64"), DT_DOUBLE, PartialTensorShape({2}));
  ops::AssignVariableOp(s.WithOpName("init_i32"), i32, Tensor::FromVector<int32_t>({1, 2, 3}));
  ops::AssignVariableOp(s.WithOpName("init_i64"), i64, Tensor::Scalar<int64_t>(40));
  ops::AssignVariableOp(s.WithOpName("init_f64"), f64, Tensor::FromVector<double>({0.5, 1.5}));
  ops::AssignAddVariableOp(s.WithOpName("add_i32"), i32, Tensor::FromVector<int32_t>({5, 5, 5}));
  ops::AssignSubVariableOp(s.WithOpName("sub_i64"), i64, Tensor::Scalar<int64_t>(2));
  ops::AssignAddVariableOp(s.WithOpName("add_f64"), f64, Tensor::FromVector<double>({1, 1}));
  ops::ReadVariableOp(s.WithOpName("read_i32"), i32, DT_INT32);
  ops::ReadVariableOp(s.WithOpName("read_i64"), i64, DT_INT64);
  ops::ReadVariableOp(s.WithOpName("read_f64"), f64, DT_DOUBLE);
  Create(root);
  ASSERT_TRUE(Run({}, {"init_i32", "init_i64", "init_f64"}).ok());
  ASSERT_TRUE(Run({}, {"add_i32", "sub_i64", "add_f64"}).ok());
  ASSERT_TRUE(Run({}, {"add_i32", "sub_i64"}).ok());
  ExpectTensorEqual(*Fetch("read_i32"), Tensor::FromVector<int32_t>({11, 12, 13}));
  ExpectTensorEqual(*Fetch("read_i64"), Tensor::Scalar<int64_t>(36));
  ExpectTensorEqual(*Fetch("read_f64"), Tensor::FromVector<double>({1.5, 2.5}));
}

TEST_P(ResourceVariableTest, DtypeAndShapeErrors) {
  Scope root = Scope::NewRootScope();
  Scope s = OnDevice(root);
  auto v = ops::VarHandleOp(s.WithOpName("v"), DT_FLOAT, PartialTensorShape({2}));
  ops::AssignVariableOp(s.WithOpName("init"), v, Tensor::FromVector<float>({1, 2}));
  ops::AssignVariableOp(s.WithOpName("assign_int"), v, Tensor::FromVector<int32_t>({1, 2}));
  ops::AssignVariableOp(s.WithOpName("assign_long"), v, Tensor::FromVector<float>({1, 2, 3}),
                        {.validate_shape = true});
  ops::AssignAddVariableOp(s.WithOpName("add_long"), v, Tensor::FromVector<float>({1, 2, 3}));
  ops::ReadVariableOp(s.WithOpName("read_int"), v, DT_INT32);
  ops::ReadVariableOp(s.WithOpName("read"), v, DT_FLOAT);
  Create(root);
  ASSERT_TRUE(Run({}, {"init"}).ok());

  absl::Status s1 = Run({}, {"assign_int"});
  EXPECT_EQ(s1.code(), absl::StatusCode::kInvalidArgument) << s1;
  EXPECT_THAT(s1.message(), AllOf(HasSubstr("assign_int"), HasSubstr("wrong dtype"),
                                  HasSubstr("float"), HasSubstr("int32")));
  auto s2 = Fetch("read_int");
  EXPECT_EQ(s2.status().code(), absl::StatusCode::kInvalidArgument) << s2.status();
  EXPECT_THAT(s2.status().message(), AllOf(HasSubstr("read_int"), HasSubstr("wrong dtype")));
  absl::Status s3 = Run({}, {"assign_long"});
  EXPECT_EQ(s3.code(), absl::StatusCode::kInvalidArgument) << s3;
  EXPECT_THAT(s3.message(), AllOf(HasSubstr("assign_long"), HasSubstr("[2]"), HasSubstr("[3]")));
  absl::Status s4 = Run({}, {"add_long"});
  EXPECT_EQ(s4.code(), absl::StatusCode::kInvalidArgument) << s4;
  EXPECT_THAT(s4.message(), AllOf(HasSubstr("add_long"), HasSubstr("[2]"), HasSubstr("[3]")));
  ExpectTensorEqual(*Fetch("read"), Tensor::FromVector<float>({1, 2}));
}

TEST_P(ResourceVariableTest, SharedNameNamesOneVariableAndDestroyDropsIt) {
  Scope root = Scope::NewRootScope();
  Scope s = OnDevice(root);
  auto a = ops::VarHandleOp(s.WithOpName("a"), DT_FLOAT, PartialTensorShape(TensorShape()),
                            {.container = "", .shared_name = "shared"});
  auto b = ops::VarHandleOp(s.WithOpName("b"), DT_FLOAT, PartialTensorShape(TensorShape()),
                            {.container = "", .shared_name = "shared"});
  ops::AssignVariableOp(s.WithOpName("init"), a, 3.0f);
  ops::ReadVariableOp(s.WithOpName("read_b"), b, DT_FLOAT);
  ops::DestroyResourceOp(s.WithOpName("destroy"), a);
  ops::DestroyResourceOp(s.WithOpName("destroy_strict"), b, /*ignore_lookup_error=*/false);
  Create(root);
  ASSERT_TRUE(Run({}, {"init"}).ok());
  ExpectTensorEqual(*Fetch("read_b"), Tensor::Scalar<float>(3));
  ASSERT_TRUE(Run({}, {"destroy"}).ok());
  EXPECT_EQ(Fetch("read_b").status().code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(Run({}, {"destroy"}).ok());  // ignore_lookup_error
  absl::Status strict = Run({}, {"destroy_strict"});
  EXPECT_EQ(strict.code(), absl::StatusCode::kNotFound) << strict;
  EXPECT_THAT(strict.message(), AllOf(HasSubstr("destroy_strict"), HasSubstr("shared")));
}

TEST_P(ResourceVariableTest, GradientDescentAndMomentumUpdates) {
  Scope root = Scope::NewRootScope();
  auto grad = ops::Placeholder(root.WithOpName("grad"), DT_FLOAT);
  Scope s = OnDevice(root);
  auto var = ops::VarHandleOp(s.WithOpName("var"), DT_FLOAT, PartialTensorShape({2}));
  auto accum = ops::VarHandleOp(s.WithOpName("accum"), DT_FLOAT, PartialTensorShape({2}));
  auto nvar = ops::VarHandleOp(s.WithOpName("nvar"), DT_FLOAT, PartialTensorShape({2}));
  auto naccum = ops::VarHandleOp(s.WithOpName("naccum"), DT_FLOAT, PartialTensorShape({2}));
  ops::AssignVariableOp(s.WithOpName("init_var"), var, Tensor::FromVector<float>({1, 2}));
  ops::AssignVariableOp(s.WithOpName("init_accum"), accum, Tensor::FromVector<float>({0.1f, 0.2f}));
  ops::AssignVariableOp(s.WithOpName("init_nvar"), nvar, Tensor::FromVector<float>({1, 2}));
  ops::AssignVariableOp(s.WithOpName("init_naccum"), naccum,
                        Tensor::FromVector<float>({0.1f, 0.2f}));
  ops::ResourceApplyGradientDescent(s.WithOpName("sgd"), var, 0.5f, grad);
  ops::ResourceApplyMomentum(s.WithOpName("momentum"), var, accum, 0.5f, grad, 0.9f);
  ops::ResourceApplyMomentum(s.WithOpName("nesterov"), nvar, naccum, 0.5f, grad, 0.9f,
                             {.use_locking = false, .use_nesterov = true});
  ops::ReadVariableOp(s.WithOpName("read_var"), var, DT_FLOAT);
  ops::ReadVariableOp(s.WithOpName("read_accum"), accum, DT_FLOAT);
  ops::ReadVariableOp(s.WithOpName("read_nvar"), nvar, DT_FLOAT);
  Create(root);
  ASSERT_TRUE(Run({}, {"init_var", "init_accum", "init_nvar", "init_naccum"}).ok());
  const Feeds g = {{"grad", Tensor::FromVector<float>({1, -1})}};

  // accum = 0.9 accum + g = [1.09, -0.82]; var -= 0.5 accum.
  ASSERT_TRUE(Run(g, {"momentum"}).ok());
  ExpectTensorNear(*Fetch("read_accum"), Tensor::FromVector<float>({1.09f, -0.82f}));
  ExpectTensorNear(*Fetch("read_var"), Tensor::FromVector<float>({0.455f, 2.41f}));
  // accum = [1.981, -1.738]; var = [-0.5355, 3.279].
  ASSERT_TRUE(Run(g, {"momentum"}).ok());
  ExpectTensorNear(*Fetch("read_var"), Tensor::FromVector<float>({-0.5355f, 3.279f}));
  // var -= 0.5 g.
  ASSERT_TRUE(Run(g, {"sgd"}).ok());
  ExpectTensorNear(*Fetch("read_var"), Tensor::FromVector<float>({-1.0355f, 3.779f}));
  // Nesterov: var -= 0.5 g + 0.45 accum, accum = [1.09, -0.82].
  ASSERT_TRUE(Run(g, {"nesterov"}).ok());
  ExpectTensorNear(*Fetch("read_nvar"), Tensor::FromVector<float>({0.0095f, 2.869f}));

  absl::Status bad = Run({{"grad", Tensor::FromVector<float>({1, 2, 3})}}, {"momentum"});
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument) << bad;
  EXPECT_THAT(bad.message(), AllOf(HasSubstr("momentum"), HasSubstr("var and grad"),
                                   HasSubstr("[2]"), HasSubstr("[3]")));
}

TEST_P(ResourceVariableTest, AdamUpdates) {
  Scope root = Scope::NewRootScope();
  auto beta1_power = ops::Placeholder(root.WithOpName("beta1_power"), DT_FLOAT);
  auto beta2_power = ops::Placeholder(root.WithOpName("beta2_power"), DT_FLOAT);
  Scope s = OnDevice(root);
  auto var = ops::VarHandleOp(s.WithOpName("var"), DT_FLOAT, PartialTensorShape({2}));
  auto m = ops::VarHandleOp(s.WithOpName("m"), DT_FLOAT, PartialTensorShape({2}));
  auto v = ops::VarHandleOp(s.WithOpName("v"), DT_FLOAT, PartialTensorShape({2}));
  auto uninit = ops::VarHandleOp(s.WithOpName("uninit"), DT_FLOAT, PartialTensorShape({2}));
  ops::AssignVariableOp(s.WithOpName("init_var"), var, Tensor::FromVector<float>({1, 2}));
  ops::AssignVariableOp(s.WithOpName("init_m"), m, Tensor::FromVector<float>({0, 0}));
  ops::AssignVariableOp(s.WithOpName("init_v"), v, Tensor::FromVector<float>({0, 0}));
  const Tensor grad = Tensor::FromVector<float>({0.1f, -0.2f});
  ops::ResourceApplyAdam(s.WithOpName("adam"), var, m, v,
                         {beta1_power, beta2_power, 0.1f, 0.9f, 0.999f, 1e-8f, grad});
  ops::ResourceApplyAdam(s.WithOpName("adam_uninit"), var, m, uninit,
                         {beta1_power, beta2_power, 0.1f, 0.9f, 0.999f, 1e-8f, grad});
  ops::ReadVariableOp(s.WithOpName("read_var"), var, DT_FLOAT);
  ops::ReadVariableOp(s.WithOpName("read_m"), m, DT_FLOAT);
  ops::ReadVariableOp(s.WithOpName("read_v"), v, DT_FLOAT);
  Create(root);
  ASSERT_TRUE(Run({}, {"init_var", "init_m", "init_v"}).ok());

  // Step 1: lr_t = 0.1 sqrt(0.001) / 0.1; m = 0.1 g; v = 0.001 g^2; the step
  // lr_t m / sqrt(v) is 0.1 per element (epsilon aside).
  ASSERT_TRUE(Run({{"beta1_power", Tensor::Scalar<float>(0.9f)},
                   {"beta2_power", Tensor::Scalar<float>(0.999f)}},
                  {"adam"})
                  .ok());
  ExpectTensorNear(*Fetch("read_m"), Tensor::FromVector<float>({0.01f, -0.02f}));
  ExpectTensorNear(*Fetch("read_v"), Tensor::FromVector<float>({1e-5f, 4e-5f}), 1e-9, 1e-5);
  ExpectTensorNear(*Fetch("read_var"), Tensor::FromVector<float>({0.9f, 2.1f}));
  // Step 2: m = [0.019, -0.038], v = [1.999e-5, 7.996e-5]; the step is again
  // 0.1 (lr_t m / sqrt(v) = 0.1 * (0.019 / 0.19) * sqrt(0.001999 / 1.999e-5)).
  ASSERT_TRUE(Run({{"beta1_power", Tensor::Scalar<float>(0.81f)},
                   {"beta2_power", Tensor::Scalar<float>(0.998001f)}},
                  {"adam"})
                  .ok());
  ExpectTensorNear(*Fetch("read_m"), Tensor::FromVector<float>({0.019f, -0.038f}));
  ExpectTensorNear(*Fetch("read_v"), Tensor::FromVector<float>({1.999e-5f, 7.996e-5f}), 1e-9,
                   1e-5);
  ExpectTensorNear(*Fetch("read_var"), Tensor::FromVector<float>({0.8f, 2.2f}));

  absl::Status s2 = Run({{"beta1_power", Tensor::Scalar<float>(0.9f)},
                         {"beta2_power", Tensor::Scalar<float>(0.999f)}},
                        {"adam_uninit"});
  EXPECT_EQ(s2.code(), absl::StatusCode::kFailedPrecondition) << s2;
  EXPECT_THAT(s2.message(), AllOf(HasSubstr("adam_uninit"), HasSubstr("uninit")));
  absl::Status s3 = Run({{"beta1_power", Tensor::FromVector<float>({0.9f})},
                         {"beta2_power", Tensor::Scalar<float>(0.999f)}},
                        {"adam"});
  EXPECT_EQ(s3.code(), absl::StatusCode::kInvalidArgument) << s3;
  EXPECT_THAT(s3.message(), AllOf(HasSubstr("adam"), HasSubstr("beta1_power is not a scalar")));
  ExpectTensorNear(*Fetch("read_var"), Tensor::FromVector<float>({0.8f, 2.2f}));
}

INSTANTIATE_TEST_SUITE_P(Devices, ResourceVariableTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return std::string(info.param ? "SimGPU" : "CPU");
                         });

// A session with a GPU that has created root's graph and run its "init";
// nullptr (with the failure recorded) if any of that failed.
std::unique_ptr<Session> GpuSessionAfterInit(const Scope& root) {
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  auto session = NewSession(OptionsFor(/*gpu=*/true));
  EXPECT_TRUE(session.ok()) << session.status();
  if (!session.ok()) return nullptr;
  const absl::Status created = (*session)->Create(def);
  EXPECT_TRUE(created.ok()) << created;
  if (!created.ok()) return nullptr;
  const absl::Status init = (*session)->Run({}, {}, {"init"}, nullptr);
  EXPECT_TRUE(init.ok()) << init;
  return init.ok() ? *std::move(session) : nullptr;
}

// Users asking for no device run where the handle's VarHandleOp is, even in
// a session whose GPU would otherwise take them.
TEST(ResourceVariableDeviceTest, UsersThatAskForNoDeviceFollowTheHandle) {
  Scope root = Scope::NewRootScope();
  auto v = ops::VarHandleOp(root.WithOpName("v").WithDevice("/device:CPU:0"), DT_FLOAT,
                            PartialTensorShape(TensorShape()));
  ops::AssignVariableOp(root.WithOpName("init"), v, 2.5f);
  ops::ReadVariableOp(root.WithOpName("read"), v, DT_FLOAT);
  std::unique_ptr<Session> session = GpuSessionAfterInit(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status s = session->Run({}, {"read"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].data<float>()[0], 2.5f);
}

// A handle's users go where its VarHandleOp is (TensorFlow's colocation of
// resource users); one pinned to another device is an error naming both, at
// Create (which places the whole graph).
TEST(ResourceVariableDeviceTest, AHandleIsUsableOnlyOnItsDevice) {
  Scope root = Scope::NewRootScope();
  auto v = ops::VarHandleOp(root.WithOpName("v").WithDevice("/device:CPU:0"), DT_FLOAT,
                            PartialTensorShape(TensorShape()));
  ops::AssignVariableOp(root.WithOpName("init").WithDevice("/device:CPU:0"), v, 1.0f);
  ops::ReadVariableOp(root.WithOpName("read_on_gpu").WithDevice(kGPU), v, DT_FLOAT);
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  auto session = NewSession(OptionsFor(/*gpu=*/true));
  ASSERT_TRUE(session.ok()) << session.status();
  absl::Status s = (*session)->Create(def);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), AllOf(HasSubstr("Cannot colocate node 'read_on_gpu'"),
                                 HasSubstr("CPU:0"), HasSubstr("GPU:0")));
}

}  // namespace
}  // namespace minitf
