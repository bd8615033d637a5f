// While loops end to end: ops::WhileLoop and ops::Cond built graphs run by a
// DirectSession (the executor's frames, PropagatorState), with the
// scenarios of TensorFlow's while_loop and control-flow tests.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/cc/while_loop.h"
#include "ops/standard_ops.h"
#include "platform/status_macros.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_registry.h"
#include "runtime/op_requires.h"
#include "runtime/shape_inference.h"
#include "session/direct_session.h"

namespace minitf {

// Fails when its input equals `value`: an error in one given iteration.
REGISTER_OP("_TestFailAtValue")
    .Input("x: int32")
    .Output("y: int32")
    .Attr("value: int")
    .SetShapeFn(shape_fns::UnchangedShape);
class TestFailAtValueOp : public OpKernel {
 public:
  explicit TestFailAtValueOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("value", &value_));
  }
  void Compute(OpKernelContext* ctx) override {
    const int32_t x = ctx->input(0).scalar<int32_t>()();
    OP_REQUIRES(ctx, x != value_,
                absl::InvalidArgumentError(absl::StrCat("reached the value ", x)));
    ctx->set_output(0, ctx->input(0));
  }

 private:
  int64_t value_ = 0;
};
REGISTER_KERNEL_BUILDER(Name("_TestFailAtValue").Device(DEVICE_CPU), TestFailAtValueOp);

namespace {

using ::testing::HasSubstr;

SessionOptions CpuOnly(int inter_op_threads = 2) {
  SessionOptions options;
  options.config.device_count["GPU"] = 0;
  options.config.inter_op_parallelism_threads = inter_op_threads;
  return options;
}

// Runs the graph of `root` and fetches `fetches`.
absl::StatusOr<std::vector<Tensor>> RunGraph(const Scope& root,
                                             const std::vector<std::string>& fetches,
                                             const SessionOptions& options = CpuOnly()) {
  GraphDef def;
  MINITF_RETURN_IF_ERROR(root.ToGraphDef(&def));
  MINITF_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, NewSession(options));
  MINITF_RETURN_IF_ERROR(session->Create(def));
  std::vector<Tensor> out;
  MINITF_RETURN_IF_ERROR(session->Run({}, fetches, {}, &out));
  return out;
}

// while (i < n) { sum += i; i += 1; }
absl::Status SumLoop(const Scope& scope, Output i0, Output sum0, int n,
                     std::vector<Output>* out, ops::WhileLoopOptions options = {}) {
  return ops::WhileLoop(
      scope, {i0, sum0},
      [n](const Scope& s, const std::vector<Output>& v, Output* cond) {
        *cond = ops::Less(s, v[0], n);
        return s.status();
      },
      [](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
        *next = {ops::Add(s, v[0], 1), ops::Add(s, v[1], v[0])};
        return s.status();
      },
      out, options);
}

TEST(WhileLoopTest, SumsZeroToNine) {
  Scope root = Scope::NewRootScope();
  std::vector<Output> out;
  ASSERT_TRUE(SumLoop(root, ops::Const(root, 0), ops::Const(root, 0), 10, &out).ok());
  auto result = RunGraph(root, {out[0].name(), out[1].name()});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ((*result)[0].scalar<int32_t>()(), 10);
  EXPECT_EQ((*result)[1].scalar<int32_t>()(), 45);
}

TEST(WhileLoopTest, ALoopWhoseConditionIsFalseAtOnceRunsNoIteration) {
  Scope root = Scope::NewRootScope();
  std::vector<Output> out;
  ASSERT_TRUE(SumLoop(root, ops::Const(root, 7), ops::Const(root, 3), 5, &out).ok());
  auto result = RunGraph(root, {out[0].name(), out[1].name()});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ((*result)[0].scalar<int32_t>()(), 7);
  EXPECT_EQ((*result)[1].scalar<int32_t>()(), 3);
}

TEST(WhileLoopTest, ParallelIterationsDoNotChangeTheResult) {
  for (int64_t parallel : {1, 2, 16}) {
    for (int threads : {1, 4}) {
      Scope root = Scope::NewRootScope();
      std::vector<Output> out;
      ops::WhileLoopOptions options;
      options.parallel_iterations = parallel;
      ASSERT_TRUE(
          SumLoop(root, ops::Const(root, 0), ops::Const(root, 0), 1000, &out, options).ok());
      auto result = RunGraph(root, {out[1].name()}, CpuOnly(threads));
      ASSERT_TRUE(result.ok()) << result.status();
      EXPECT_EQ((*result)[0].scalar<int32_t>()(), 499500)
          << "parallel_iterations " << parallel << ", threads " << threads;
    }
  }
}

TEST(WhileLoopTest, ExpensiveBodiesOnThePoolGiveTheSameResult) {
  // MatMul is expensive: iterations' bodies run on the inter-op pool, up to
  // parallel_iterations at once.
  for (int64_t parallel : {1, 16}) {
    Scope root = Scope::NewRootScope();
    std::vector<Output> out;
    ops::WhileLoopOptions options;
    options.parallel_iterations = parallel;
    Output identity = ops::Const(root, Tensor::FromVector<float>({1, 0, 0, 1}, {2, 2}));
    ASSERT_TRUE(ops::WhileLoop(
                    root, {ops::Const(root, 0), identity},
                    [](const Scope& s, const std::vector<Output>& v, Output* cond) {
                      *cond = ops::Less(s, v[0], 20);
                      return s.status();
                    },
                    [](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
                      Output twice = ops::Const(s, Tensor::FromVector<float>({2, 0, 0, 2}, {2, 2}));
                      *next = {ops::Add(s, v[0], 1), ops::MatMul(s, v[1], twice)};
                      return s.status();
                    },
                    &out, options)
                    .ok());
    auto result = RunGraph(root, {out[1].name()}, CpuOnly(4));
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ((*result)[0].flat<float>()(0), 1048576.0f);  // 2^20
    EXPECT_EQ((*result)[0].flat<float>()(1), 0.0f);
  }
}

TEST(WhileLoopTest, NestedLoopsRunTheInnerLoopPerOuterIteration) {
  // for i in 0..3: for j in 0..4: total += i * j  -> (0+1+2) * (0+1+2+3) = 18
  Scope root = Scope::NewRootScope();
  std::vector<Output> out;
  ASSERT_TRUE(
      ops::WhileLoop(
          root, {ops::Const(root, 0), ops::Const(root, 0)},
          [](const Scope& s, const std::vector<Output>& v, Output* cond) {
            *cond = ops::Less(s, v[0], 3);
            return s.status();
          },
          [](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
            std::vector<Output> inner;
            MINITF_RETURN_IF_ERROR(ops::WhileLoop(
                s, {ops::Const(s, 0), v[1], v[0]},
                [](const Scope& is, const std::vector<Output>& w, Output* cond) {
                  *cond = ops::Less(is, w[0], 4);
                  return is.status();
                },
                [](const Scope& is, const std::vector<Output>& w, std::vector<Output>* n) {
                  *n = {ops::Add(is, w[0], 1), ops::Add(is, w[1], ops::Mul(is, w[0], w[2])),
                        ops::Identity(is, w[2])};
                  return is.status();
                },
                &inner));
            *next = {ops::Add(s, v[0], 1), inner[1]};
            return s.status();
          },
          &out)
          .ok())
      << root.status();
  auto result = RunGraph(root, {out[1].name()});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ((*result)[0].scalar<int32_t>()(), 18);
}

TEST(WhileLoopTest, AnErrorInIterationFiveAbortsTheStepNamingTheNode) {
  Scope root = Scope::NewRootScope();
  std::vector<Output> out;
  ASSERT_TRUE(ops::WhileLoop(
                  root, {ops::Const(root, 0)},
                  [](const Scope& s, const std::vector<Output>& v, Output* cond) {
                    *cond = ops::Less(s, v[0], 10);
                    return s.status();
                  },
                  [](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
                    Output checked = OpBuilder(s.WithOpName("check"), "_TestFailAtValue")
                                         .Input(v[0])
                                         .Attr("value", 5)
                                         .Finalize1();
                    *next = {ops::Add(s, checked, 1)};
                    return s.status();
                  },
                  &out)
                  .ok());
  auto result = RunGraph(root, {out[0].name()});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(), HasSubstr("while/body/check"));
  EXPECT_THAT(result.status().message(), HasSubstr("reached the value 5"));
}

TEST(WhileLoopTest, ALoopInsideACondRunsOnlyOnItsBranch) {
  for (bool take_loop : {true, false}) {
    Scope root = Scope::NewRootScope();
    Output pred = ops::Placeholder(root.WithOpName("pred"), DT_BOOL);
    std::vector<Output> out;
    ASSERT_TRUE(ops::Cond(
                    root, pred, {ops::Const(root, 0)},
                    [](const Scope& s, const std::vector<Output>& v, std::vector<Output>* o) {
                      std::vector<Output> loop;
                      MINITF_RETURN_IF_ERROR(SumLoop(s, v[0], ops::Const(s, 0), 10, &loop));
                      *o = {loop[1]};
                      return s.status();
                    },
                    [](const Scope& s, const std::vector<Output>& v, std::vector<Output>* o) {
                      *o = {ops::Add(s, v[0], -1)};
                      return s.status();
                    },
                    &out)
                    .ok())
        << root.status();
    GraphDef def;
    ASSERT_TRUE(root.ToGraphDef(&def).ok());
    auto session = NewSession(CpuOnly());
    ASSERT_TRUE(session.ok());
    ASSERT_TRUE((*session)->Create(def).ok());
    std::vector<Tensor> result;
    absl::Status s = (*session)->Run({{"pred", Tensor::Scalar<bool>(take_loop)}}, {out[0].name()},
                                     {}, &result);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(result[0].scalar<int32_t>()(), take_loop ? 45 : -1);
  }
}

TEST(WhileLoopTest, ACondInsideALoopPicksPerIteration) {
  // sum over i < 10 of (i even ? i : -i) = (0+2+4+6+8) - (1+3+5+7+9) = -5
  Scope root = Scope::NewRootScope();
  std::vector<Output> out;
  ASSERT_TRUE(
      ops::WhileLoop(
          root, {ops::Const(root, 0), ops::Const(root, 0)},
          [](const Scope& s, const std::vector<Output>& v, Output* cond) {
            *cond = ops::Less(s, v[0], 10);
            return s.status();
          },
          [](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
            Output half = ops::Div(s, v[0], 2);
            Output even = ops::Equal(s, ops::Mul(s, half, 2), v[0]);
            std::vector<Output> picked;
            MINITF_RETURN_IF_ERROR(ops::Cond(
                s, even, {v[0]},
                [](const Scope& b, const std::vector<Output>& x, std::vector<Output>* o) {
                  *o = {ops::Identity(b, x[0])};
                  return b.status();
                },
                [](const Scope& b, const std::vector<Output>& x, std::vector<Output>* o) {
                  *o = {ops::Neg(b, x[0])};
                  return b.status();
                },
                &picked));
            *next = {ops::Add(s, v[0], 1), ops::Add(s, v[1], picked[0])};
            return s.status();
          },
          &out)
          .ok())
      << root.status();
  auto result = RunGraph(root, {out[1].name()});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ((*result)[0].scalar<int32_t>()(), -5);
}

TEST(WhileLoopTest, AConstantEnterIsSeenByEveryIteration) {
  // Built by hand: k enters as a loop invariant (is_constant) and is not a
  // loop variable; the body adds it in every iteration.
  GraphDef def;
  auto node = [&](std::string name, std::string op, std::vector<std::string> inputs,
                  AttrValueMap attrs) {
    NodeDef n;
    n.name = std::move(name);
    n.op = std::move(op);
    n.input = std::move(inputs);
    n.attr = std::move(attrs);
    def.node.push_back(std::move(n));
  };
  auto constant = [&](std::string name, int32_t v, std::vector<std::string> inputs = {}) {
    node(std::move(name), "Const", std::move(inputs),
         {{"dtype", DT_INT32}, {"value", Tensor::Scalar<int32_t>(v)}});
  };
  const AttrValueMap int_t = {{"T", DT_INT32}};
  constant("i0", 0);
  constant("k", 5);
  node("enter_i", "Enter", {"i0"}, {{"T", DT_INT32}, {"frame_name", std::string("loop")}});
  node("enter_k", "Enter", {"k"},
       {{"T", DT_INT32}, {"frame_name", std::string("loop")}, {"is_constant", true}});
  node("merge", "Merge", {"enter_i", "next"}, {{"T", DT_INT32}, {"N", 2}});
  constant("limit", 50, {"^merge"});
  node("less", "Less", {"merge", "limit"}, int_t);
  node("cond", "LoopCond", {"less"}, {});
  node("switch", "Switch", {"merge", "cond"}, int_t);
  node("body", "Add", {"switch:1", "enter_k"}, int_t);
  node("next", "NextIteration", {"body"}, int_t);
  node("exit", "Exit", {"switch"}, int_t);
  auto session = NewSession(CpuOnly());
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Create(def).ok());
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run({}, {"exit"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].scalar<int32_t>()(), 50);
}

TEST(WhileLoopTest, TheSameSessionRunsTheLoopAgainAndAgain) {
  Scope root = Scope::NewRootScope();
  Output n = ops::Placeholder(root.WithOpName("n"), DT_INT32);
  std::vector<Output> out;
  ASSERT_TRUE(ops::WhileLoop(
                  root, {ops::Const(root, 0), ops::Const(root, 0), n},
                  [](const Scope& s, const std::vector<Output>& v, Output* cond) {
                    *cond = ops::Less(s, v[0], v[2]);
                    return s.status();
                  },
                  [](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
                    *next = {ops::Add(s, v[0], 1), ops::Add(s, v[1], v[0]),
                             ops::Identity(s, v[2])};
                    return s.status();
                  },
                  &out)
                  .ok());
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  auto session = NewSession(CpuOnly());
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Create(def).ok());
  for (int limit : {0, 1, 10, 100, 3}) {
    std::vector<Tensor> result;
    absl::Status s =
        (*session)->Run({{"n", Tensor::Scalar<int32_t>(limit)}}, {out[1].name()}, {}, &result);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(result[0].scalar<int32_t>()(), limit * (limit - 1) / 2) << "n = " << limit;
  }
}

TEST(WhileLoopTest, ALoopWhoseBodyRunsOnTheGpuTransfersInsideTheFrame) {
  // The body's Mul is pinned to the SimGPU, the counter (int32, host
  // memory) is not, so each iteration moves the value between the memories.
  SessionOptions options;
  options.config.inter_op_parallelism_threads = 2;
  options.config.gpu_options.platform = "SimGPU";
  Scope root = Scope::NewRootScope();
  std::vector<Output> out;
  ASSERT_TRUE(ops::WhileLoop(
                  root, {ops::Const(root, 0), ops::Const(root, 1.0f)},
                  [](const Scope& s, const std::vector<Output>& v, Output* cond) {
                    *cond = ops::Less(s, v[0], 10);
                    return s.status();
                  },
                  [](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
                    Output doubled = ops::Mul(s.WithDevice("/device:GPU:0"), v[1], 2.0f);
                    *next = {ops::Add(s, v[0], 1), doubled};
                    return s.status();
                  },
                  &out)
                  .ok());
  auto result = RunGraph(root, {out[1].name()}, options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ((*result)[0].scalar<float>()(), 1024.0f);
}

TEST(WhileLoopTest, ANestedLoopWhoseInnerBodyRunsOnTheGpu) {
  // The GPU gets a control loop for the inner frame inside one for the
  // outer frame: for i < 3: for j < 4: x *= 2  ->  2^12.
  SessionOptions options;
  options.config.inter_op_parallelism_threads = 2;
  options.config.gpu_options.platform = "SimGPU";
  Scope root = Scope::NewRootScope();
  std::vector<Output> out;
  ASSERT_TRUE(
      ops::WhileLoop(
          root, {ops::Const(root, 0), ops::Const(root, 1.0f)},
          [](const Scope& s, const std::vector<Output>& v, Output* cond) {
            *cond = ops::Less(s, v[0], 3);
            return s.status();
          },
          [](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
            std::vector<Output> inner;
            MINITF_RETURN_IF_ERROR(ops::WhileLoop(
                s, {ops::Const(s, 0), v[1]},
                [](const Scope& is, const std::vector<Output>& w, Output* cond) {
                  *cond = ops::Less(is, w[0], 4);
                  return is.status();
                },
                [](const Scope& is, const std::vector<Output>& w, std::vector<Output>* n) {
                  *n = {ops::Add(is, w[0], 1), ops::Mul(is.WithDevice("/device:GPU:0"), w[1], 2.0f)};
                  return is.status();
                },
                &inner));
            *next = {ops::Add(s, v[0], 1), inner[1]};
            return s.status();
          },
          &out)
          .ok())
      << root.status();
  auto result = RunGraph(root, {out[1].name()}, options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ((*result)[0].scalar<float>()(), 4096.0f);
}

TEST(WhileLoopTest, BodyOutputsMustMatchTheLoopVariables) {
  Scope root = Scope::NewRootScope();
  std::vector<Output> out;
  absl::Status s = ops::WhileLoop(
      root, {ops::Const(root, 0)},
      [](const Scope& sc, const std::vector<Output>& v, Output* cond) {
        *cond = ops::Less(sc, v[0], 10);
        return sc.status();
      },
      [](const Scope& sc, const std::vector<Output>& v, std::vector<Output>* next) {
        *next = {ops::Cast(sc, v[0], DT_FLOAT)};
        return sc.status();
      },
      &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("body: output 0 has type float, expected int32"));
  EXPECT_FALSE(root.ok());
}

TEST(WhileLoopTest, ACycleThatIsNotALoopIsStillRejectedWithItsPath) {
  GraphDef def;
  for (auto [name, input] : {std::pair<std::string, std::string>{"a", "c"}, {"b", "a"},
                             {"c", "b"}}) {
    NodeDef n;
    n.name = name;
    n.op = "Identity";
    n.input = {input};
    n.attr["T"] = DT_FLOAT;
    def.node.push_back(n);
  }
  auto session = NewSession(CpuOnly());
  ASSERT_TRUE(session.ok());
  absl::Status s = (*session)->Create(def);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("cycle"));
  // The path, from whichever node the walk closes at.
  EXPECT_THAT(s.message(), HasSubstr("a -> b"));
  EXPECT_THAT(s.message(), HasSubstr("b -> c"));
  EXPECT_THAT(s.message(), HasSubstr("c -> a"));
}

TEST(WhileLoopTest, UsingATensorFromOutsideTheLoopInTheBodyIsAnError) {
  Scope root = Scope::NewRootScope();
  Output outside = ops::Const(root.WithOpName("outside"), 3);
  std::vector<Output> out;
  ASSERT_TRUE(ops::WhileLoop(
                  root, {ops::Const(root, 0)},
                  [](const Scope& s, const std::vector<Output>& v, Output* cond) {
                    *cond = ops::Less(s, v[0], 10);
                    return s.status();
                  },
                  [outside](const Scope& s, const std::vector<Output>& v,
                            std::vector<Output>* next) {
                    *next = {ops::Add(s.WithOpName("add_outside"), v[0], outside)};
                    return s.status();
                  },
                  &out)
                  .ok());
  auto result = RunGraph(root, {out[0].name()});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  // Named where the frames first disagree: the loop's Merge, fed by the
  // NextIteration that add_outside pulled into the root frame.
  EXPECT_THAT(result.status().message(), HasSubstr("'while/Merge'"));
  EXPECT_THAT(result.status().message(), HasSubstr("different frames"));
}

}  // namespace
}  // namespace minitf
