// The executor against scenarios of TensorFlow's executor_test.cc: a simple
// add fed through the call frame, an add of a tensor to itself ten levels
// deep, a random tree of adds, a _Recv of the wrong dtype, and a step
// aborted through its rendezvous while a _Recv waits.
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "device/cpu_device.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/standard_ops.h"
#include "platform/status_macros.h"
#include "runtime/executor.h"
#include "runtime/rendezvous.h"
#include "tests/testlib/executor_util.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf {
namespace {

using ::testing::HasSubstr;

constexpr char kDevice[] = "/job:localhost/replica:0/task:0/device:CPU:0";

class ExecutorTfScenariosTest : public ::testing::Test {
 protected:
  ExecutorTfScenariosTest() : device_(0, 2, cpu_allocator()), pool_("tf_scenarios", 2) {}

  absl::StatusOr<std::vector<Tensor>> Run(const Scope& root, const std::vector<Output>& fetches,
                                          std::vector<Tensor> args = {},
                                          Rendezvous* rendezvous = nullptr) {
    MINITF_ASSIGN_OR_RETURN(std::unique_ptr<Executor> executor,
                            test::NewExecutorForFetches(root, fetches, &device_));
    FunctionCallFrame frame(std::move(args), static_cast<int>(fetches.size()));
    CancellationManager cm;
    Executor::Args exec_args;
    exec_args.call_frame = &frame;
    exec_args.cancellation_manager = &cm;
    exec_args.rendezvous = rendezvous;
    exec_args.runner = [this](std::function<void()> fn) { pool_.Schedule(std::move(fn)); };
    MINITF_RETURN_IF_ERROR(executor->Run(exec_args));
    std::vector<Tensor> out;
    MINITF_RETURN_IF_ERROR(frame.ConsumeRetvals(&out));
    return out;
  }

  Output Arg(const Scope& root, const std::string& name, DataType type, int index) {
    return OpBuilder(root.WithOpName(name), "_Arg")
        .Attr("T", type)
        .Attr("index", static_cast<int64_t>(index))
        .Finalize1();
  }

  Output Recv(const Scope& root, const std::string& name, DataType type) {
    return OpBuilder(root.WithOpName(name), "_Recv")
        .Attr("tensor_type", type)
        .Attr("tensor_name", name)
        .Attr("send_device", std::string(kDevice))
        .Attr("send_device_incarnation", int64_t{1})
        .Attr("recv_device", std::string(kDevice))
        .Attr("client_terminated", false)
        .Finalize1();
  }

  static Rendezvous::ParsedKey KeyOf(const std::string& name) {
    Rendezvous::ParsedKey key;
    EXPECT_TRUE(Rendezvous::ParseKey(Rendezvous::CreateKey(kDevice, 1, kDevice, name), &key).ok());
    return key;
  }

  ThreadPoolDevice device_;
  ThreadPool pool_;
};

TEST_F(ExecutorTfScenariosTest, SimpleAdd) {
  Scope root = Scope::NewRootScope();
  Output a = Arg(root, "a", DT_FLOAT, 0);
  Output b = Arg(root, "b", DT_FLOAT, 1);
  auto out = Run(root, {ops::Add(root, a, b)},
                 {Tensor::Scalar<float>(1.0f), Tensor::Scalar<float>(2.0f)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].scalar<float>()(), 3.0f);
}

TEST_F(ExecutorTfScenariosTest, SelfAddTenLevelsDeep) {
  // x1 = x0 + x0, ..., x10 = x9 + x9: each tensor is both inputs of the
  // next add (one output feeding two input slots of one node).
  Scope root = Scope::NewRootScope();
  Output x = Arg(root, "x", DT_FLOAT, 0);
  for (int level = 0; level < 10; ++level) x = ops::Add(root, x, x);
  auto out = Run(root, {x}, {Tensor::Scalar<float>(1.0f)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].scalar<float>()(), 1024.0f);
}

TEST_F(ExecutorTfScenariosTest, RandomTreeOfAdds) {
  // Leaves of 1.0 joined pairwise at random until one sum is left: it is the
  // number of leaves, whatever the tree's shape and the order nodes run in.
  std::mt19937 random(301);
  for (int leaves : {1, 7, 64, 1000}) {
    Scope root = Scope::NewRootScope();
    std::vector<Output> pending;
    for (int i = 0; i < leaves; ++i) pending.push_back(ops::Const(root, 1.0f));
    while (pending.size() > 1) {
      std::uniform_int_distribution<size_t> pick(0, pending.size() - 1);
      const size_t i = pick(random);
      Output lhs = pending[i];
      pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
      std::uniform_int_distribution<size_t> pick2(0, pending.size() - 1);
      const size_t j = pick2(random);
      pending[j] = ops::Add(root, lhs, pending[j]);
    }
    auto out = Run(root, {pending[0]});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].scalar<float>()(), static_cast<float>(leaves)) << leaves << " leaves";
  }
}

TEST_F(ExecutorTfScenariosTest, RecvOfTheWrongDtypeIsAnErrorNamingTheNode) {
  Scope root = Scope::NewRootScope();
  Output recv = Recv(root, "recv_float", DT_FLOAT);
  LocalRendezvous rendezvous;
  ASSERT_TRUE(rendezvous.Send(KeyOf("recv_float"), {}, Tensor::Scalar<int32_t>(7), false).ok());
  auto out = Run(root, {recv}, {}, &rendezvous);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(out.status().message(), HasSubstr("recv_float"));
  EXPECT_THAT(out.status().message(), HasSubstr("int32"));
}

TEST_F(ExecutorTfScenariosTest, AbortingTheRendezvousEndsAStepWaitingInARecv) {
  Scope root = Scope::NewRootScope();
  Output recv = Recv(root, "never_sent", DT_FLOAT);
  LocalRendezvous rendezvous;
  std::thread aborter([&rendezvous] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    rendezvous.StartAbort(absl::AbortedError("the step was aborted by the test"));
  });
  auto out = Run(root, {ops::Identity(root, recv)}, {}, &rendezvous);
  aborter.join();
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kAborted);
  EXPECT_THAT(out.status().message(), HasSubstr("aborted by the test"));
}

}  // namespace
}  // namespace minitf
