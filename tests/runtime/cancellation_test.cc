#include "runtime/cancellation.h"

#include <atomic>
#include <thread>

#include "gtest/gtest.h"
#include "runtime/call_frame.h"
#include "runtime/resource_mgr.h"

namespace minitf {
namespace {

TEST(CancellationManagerTest, CallbacksRunOnceAndLateRegistrationFails) {
  CancellationManager cm;
  int calls = 0;
  CancellationToken t1 = cm.get_cancellation_token();
  CancellationToken t2 = cm.get_cancellation_token();
  EXPECT_NE(t1, t2);
  ASSERT_TRUE(cm.RegisterCallback(t1, [&] { ++calls; }));
  ASSERT_TRUE(cm.RegisterCallback(t2, [&] { ++calls; }));
  EXPECT_TRUE(cm.DeregisterCallback(t2));
  cm.StartCancel();
  cm.StartCancel();
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(cm.IsCancelled());
  EXPECT_FALSE(cm.RegisterCallback(cm.get_cancellation_token(), [&] { ++calls; }));
  EXPECT_FALSE(cm.DeregisterCallback(t1));
}

TEST(FunctionCallFrameTest, ArgsRetvalsAndErrors) {
  FunctionCallFrame frame({Tensor::Scalar<int32_t>(7)}, 2);
  Tensor t;
  ASSERT_TRUE(frame.GetArg(0, &t).ok());
  EXPECT_EQ(t.scalar<int32_t>()(), 7);
  EXPECT_FALSE(frame.GetArg(1, &t).ok());
  ASSERT_TRUE(frame.SetRetval(1, t).ok());
  EXPECT_FALSE(frame.SetRetval(1, t).ok());  // Twice.
  EXPECT_FALSE(frame.SetRetval(2, t).ok());  // Out of range.
  std::vector<Tensor> out;
  EXPECT_FALSE(frame.ConsumeRetvals(&out).ok());  // Retval 0 never set.
}

class Counter : public ResourceBase {
 public:
  std::string DebugString() const override { return "counter"; }
  int value = 0;
};
class Other : public ResourceBase {
 public:
  std::string DebugString() const override { return "other"; }
};

TEST(ResourceMgrTest, LookupOrCreateSharesAndChecksTypes) {
  ResourceMgr rm;
  int created = 0;
  auto make = [&] {
    ++created;
    return std::make_unique<Counter>();
  };
  auto a = rm.LookupOrCreate<Counter>("", "c", make);
  auto b = rm.LookupOrCreate<Counter>("", "c", make);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->get(), b->get());
  EXPECT_EQ(created, 1);
  auto wrong = rm.LookupOrCreate<Other>("", "c", [] { return std::make_unique<Other>(); });
  EXPECT_FALSE(wrong.ok());
  EXPECT_FALSE(rm.Lookup<Counter>("", "missing").ok());
  rm.Cleanup("");
  EXPECT_EQ(rm.size(), 0u);
}

}  // namespace
}  // namespace minitf
