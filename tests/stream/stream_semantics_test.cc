// The semantics of stream.h and event.h, checked on both the Host and the
// SimGPU platform: FIFO order, cross-stream waits, events, host callbacks,
// the error state, draining on destruction.
#include <atomic>
#include <cstdint>
#include <memory>
#include <numeric>
#include <vector>

#include "gtest/gtest.h"
#include "platform/mutex.h"
#include "stream/event.h"
#include "stream/host/host_platform.h"
#include "stream/sim_gpu/sim_gpu_platform.h"
#include "stream/stream.h"
#include "stream/stream_executor.h"

namespace minitf::se {
namespace {

struct HostFactory {
  static std::unique_ptr<Platform> Make() { return std::make_unique<HostPlatform>(); }
};

struct SimGPUFactory {
  static std::unique_ptr<Platform> Make() {
    return *SimGPUPlatform::Create(*ParseSimGPUOptions("memory=64MiB,mode=functional"));
  }
};

template <typename Factory>
class StreamSemanticsTest : public ::testing::Test {
 protected:
  StreamSemanticsTest() : platform_(Factory::Make()), executor_(*platform_->ExecutorForDevice(0)) {}

  std::unique_ptr<Stream> NewStream() { return *executor_->CreateStream(); }
  std::unique_ptr<Event> NewEvent() { return *executor_->CreateEvent(); }

  std::unique_ptr<Platform> platform_;
  StreamExecutor* executor_;
};

using Platforms = ::testing::Types<HostFactory, SimGPUFactory>;
class PlatformNames {
 public:
  template <typename T>
  static std::string GetName(int) {
    return std::is_same_v<T, HostFactory> ? "Host" : "SimGPU";
  }
};
TYPED_TEST_SUITE(StreamSemanticsTest, Platforms, PlatformNames);

HostKernel Kernel(std::function<absl::Status()> body) {
  HostKernel k;
  k.name = "TestKernel";
  k.body = std::move(body);
  return k;
}

// A kernel that blocks its stream (and, on SimGPU, the engine) until `gate`
// is notified: lets a test enqueue work behind it deterministically.
HostKernel GatedKernel(Notification* gate) {
  return Kernel([gate] {
    gate->WaitForNotification();
    return absl::OkStatus();
  });
}

TYPED_TEST(StreamSemanticsTest, WorkRunsInEnqueueOrder) {
  auto stream = this->NewStream();
  std::vector<int> order;  // Touched only by the stream's worker until done.
  for (int i = 0; i < 100; ++i) {
    if (i % 2 == 0) {
      ASSERT_TRUE(stream->LaunchHostKernel(Kernel([&order, i] {
                    order.push_back(i);
                    return absl::OkStatus();
                  })).ok());
    } else {
      ASSERT_TRUE(stream->DoHostCallback([&order, i] { order.push_back(i); }).ok());
    }
  }
  ASSERT_TRUE(stream->BlockHostUntilDone().ok());
  std::vector<int> expected(100);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(order, expected);
}

TYPED_TEST(StreamSemanticsTest, CopiesAndMemsetMoveTheBytes) {
  auto stream = this->NewStream();
  DeviceMemoryBase a = this->executor_->Allocate(64);
  DeviceMemoryBase b = this->executor_->Allocate(64);
  ASSERT_FALSE(a.is_null());
  ASSERT_FALSE(b.is_null());
  std::vector<uint32_t> host(16);
  std::iota(host.begin(), host.end(), 1u);
  std::vector<uint32_t> back(16, 0);
  ASSERT_TRUE(stream->Memset32(&b, 0xdeadbeef, 64).ok());
  ASSERT_TRUE(stream->Memcpy(&a, host.data(), 64).ok());
  ASSERT_TRUE(stream->Memcpy(&b, a, 32).ok());
  ASSERT_TRUE(stream->Memcpy(back.data(), b, 64).ok());
  ASSERT_TRUE(stream->BlockHostUntilDone().ok());
  for (int i = 0; i < 8; ++i) EXPECT_EQ(back[i], static_cast<uint32_t>(i + 1));
  for (int i = 8; i < 16; ++i) EXPECT_EQ(back[i], 0xdeadbeefu);
  this->executor_->Deallocate(&a);
  this->executor_->Deallocate(&b);
  EXPECT_TRUE(a.is_null());
}

TYPED_TEST(StreamSemanticsTest, CopyLargerThanBufferIsRejectedAtEnqueue) {
  auto stream = this->NewStream();
  DeviceMemoryBase a = this->executor_->Allocate(16);
  std::vector<char> host(32);
  absl::Status s = stream->Memcpy(&a, host.data(), 32);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(stream->Memset32(&a, 0, 6).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(stream->ok());  // Enqueue-time errors leave the stream usable.
  this->executor_->Deallocate(&a);
}

TYPED_TEST(StreamSemanticsTest, WaitForStreamObservesTheOtherStreamsResult) {
  auto producer = this->NewStream();
  auto consumer = this->NewStream();
  Notification gate;
  int value = 0;
  int observed = -1;
  ASSERT_TRUE(producer->LaunchHostKernel(GatedKernel(&gate)).ok());
  ASSERT_TRUE(producer->LaunchHostKernel(Kernel([&value] {
                value = 42;
                return absl::OkStatus();
              })).ok());
  ASSERT_TRUE(consumer->WaitFor(producer.get()).ok());
  ASSERT_TRUE(consumer->DoHostCallback([&] { observed = value; }).ok());
  gate.Notify();
  ASSERT_TRUE(consumer->BlockHostUntilDone().ok());
  EXPECT_EQ(observed, 42);
}

TYPED_TEST(StreamSemanticsTest, WaitForEventObservesWorkBeforeTheRecord) {
  auto producer = this->NewStream();
  auto consumer = this->NewStream();
  auto event = this->NewEvent();
  Notification gate;
  int value = 0;
  int observed = -1;
  ASSERT_TRUE(producer->LaunchHostKernel(GatedKernel(&gate)).ok());
  ASSERT_TRUE(producer->DoHostCallback([&value] { value = 7; }).ok());
  ASSERT_TRUE(producer->RecordEvent(event.get()).ok());
  ASSERT_TRUE(consumer->WaitFor(event.get()).ok());
  ASSERT_TRUE(consumer->DoHostCallback([&] { observed = value; }).ok());
  gate.Notify();
  ASSERT_TRUE(consumer->BlockHostUntilDone().ok());
  EXPECT_EQ(observed, 7);
}

TYPED_TEST(StreamSemanticsTest, EventGoesFromUnknownToPendingToComplete) {
  auto stream = this->NewStream();
  auto event = this->NewEvent();
  EXPECT_EQ(event->PollForStatus(), Event::Status::kUnknown);
  EXPECT_EQ(event->WaitForCompletion().code(), absl::StatusCode::kFailedPrecondition);
  Notification gate;
  ASSERT_TRUE(stream->LaunchHostKernel(GatedKernel(&gate)).ok());
  ASSERT_TRUE(stream->RecordEvent(event.get()).ok());
  EXPECT_EQ(event->PollForStatus(), Event::Status::kPending);
  gate.Notify();
  EXPECT_TRUE(event->WaitForCompletion().ok());
  EXPECT_EQ(event->PollForStatus(), Event::Status::kComplete);
  // A new record makes it pending again until the stream reaches it.
  Notification gate2;
  ASSERT_TRUE(stream->LaunchHostKernel(GatedKernel(&gate2)).ok());
  ASSERT_TRUE(stream->RecordEvent(event.get()).ok());
  EXPECT_EQ(event->PollForStatus(), Event::Status::kPending);
  gate2.Notify();
  EXPECT_TRUE(event->WaitForCompletion().ok());
  EXPECT_EQ(event->PollForStatus(), Event::Status::kComplete);
}

TYPED_TEST(StreamSemanticsTest, WaitingForAnUnrecordedEventDoesNotBlock) {
  auto stream = this->NewStream();
  auto event = this->NewEvent();
  ASSERT_TRUE(stream->WaitFor(event.get()).ok());
  EXPECT_TRUE(stream->BlockHostUntilDone().ok());
}

TYPED_TEST(StreamSemanticsTest, HostCallbackRunsAfterThePrecedingWork) {
  auto stream = this->NewStream();
  DeviceMemoryBase buf = this->executor_->Allocate(4);
  uint32_t seen = 0;
  uint32_t host = 0;
  Notification done;
  ASSERT_TRUE(stream->Memset32(&buf, 5, 4).ok());
  ASSERT_TRUE(stream->Memcpy(&host, buf, 4).ok());
  ASSERT_TRUE(stream->DoHostCallback([&] {
    seen = host;
    done.Notify();
  }).ok());
  done.WaitForNotification();
  EXPECT_EQ(seen, 5u);
  ASSERT_TRUE(stream->BlockHostUntilDone().ok());
  this->executor_->Deallocate(&buf);
}

TYPED_TEST(StreamSemanticsTest, FailingKernelPutsTheStreamIntoErrorState) {
  auto stream = this->NewStream();
  auto event = this->NewEvent();
  Notification gate;
  bool later_kernel_ran = false;
  bool callback_ran = false;
  ASSERT_TRUE(stream->LaunchHostKernel(GatedKernel(&gate)).ok());
  HostKernel failing = Kernel([] { return absl::InternalError("boom"); });
  failing.name = "Exploder";
  ASSERT_TRUE(stream->LaunchHostKernel(std::move(failing)).ok());
  ASSERT_TRUE(stream->LaunchHostKernel(Kernel([&] {
                later_kernel_ran = true;
                return absl::OkStatus();
              })).ok());
  ASSERT_TRUE(stream->DoHostCallback([&] { callback_ran = true; }).ok());
  ASSERT_TRUE(stream->RecordEvent(event.get()).ok());
  gate.Notify();

  absl::Status s = stream->BlockHostUntilDone();
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_NE(s.message().find("Exploder"), absl::string_view::npos) << s;
  EXPECT_NE(s.message().find("boom"), absl::string_view::npos) << s;
  EXPECT_FALSE(later_kernel_ran);
  EXPECT_TRUE(callback_ran);
  EXPECT_EQ(stream->status(), s);
  EXPECT_FALSE(stream->ok());
  EXPECT_EQ(event->PollForStatus(), Event::Status::kError);
  EXPECT_EQ(event->WaitForCompletion(), s);

  // Every later enqueue returns the error and enqueues nothing.
  bool late_callback_ran = false;
  EXPECT_EQ(stream->LaunchHostKernel(Kernel([] { return absl::OkStatus(); })), s);
  EXPECT_EQ(stream->DoHostCallback([&] { late_callback_ran = true; }), s);
  std::vector<char> host(4);
  DeviceMemoryBase buf = this->executor_->Allocate(4);
  EXPECT_EQ(stream->Memcpy(&buf, host.data(), 4), s);
  auto event2 = this->NewEvent();
  EXPECT_EQ(stream->RecordEvent(event2.get()), s);
  EXPECT_EQ(event2->PollForStatus(), Event::Status::kError);
  EXPECT_EQ(stream->BlockHostUntilDone(), s);
  EXPECT_FALSE(late_callback_ran);
  this->executor_->Deallocate(&buf);
}

TYPED_TEST(StreamSemanticsTest, CallbackErrorBecomesTheStreams) {
  auto stream = this->NewStream();
  ASSERT_TRUE(stream->DoHostCallbackWithStatus([] { return absl::OkStatus(); }).ok());
  ASSERT_TRUE(stream->DoHostCallbackWithStatus([] {
    return absl::ResourceExhaustedError("callback failed");
  }).ok());
  EXPECT_EQ(stream->BlockHostUntilDone().code(), absl::StatusCode::kResourceExhausted);
}

TYPED_TEST(StreamSemanticsTest, WaitingForAFailedStreamFailsTheWaiter) {
  auto failing = this->NewStream();
  auto waiter = this->NewStream();
  Notification gate;
  bool ran_after_wait = false;
  ASSERT_TRUE(failing->LaunchHostKernel(GatedKernel(&gate)).ok());
  ASSERT_TRUE(failing->LaunchHostKernel(Kernel([] { return absl::AbortedError("lost"); })).ok());
  ASSERT_TRUE(waiter->WaitFor(failing.get()).ok());
  ASSERT_TRUE(waiter->LaunchHostKernel(Kernel([&] {
                ran_after_wait = true;
                return absl::OkStatus();
              })).ok());
  gate.Notify();
  absl::Status s = waiter->BlockHostUntilDone();
  EXPECT_EQ(s.code(), absl::StatusCode::kAborted);
  EXPECT_NE(s.message().find("lost"), absl::string_view::npos) << s;
  EXPECT_FALSE(ran_after_wait);
}

TYPED_TEST(StreamSemanticsTest, DestructorDrainsTheQueue) {
  std::atomic<int> ran{0};
  {
    auto stream = this->NewStream();
    for (int i = 0; i < 50; ++i) {
      ASSERT_TRUE(stream->DoHostCallback([&ran] { ran.fetch_add(1); }).ok());
    }
  }
  EXPECT_EQ(ran.load(), 50);
}

TYPED_TEST(StreamSemanticsTest, SynchronizeAllActivityWaitsForEveryStream) {
  auto s1 = this->NewStream();
  auto s2 = this->NewStream();
  std::atomic<int> ran{0};
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(s1->DoHostCallback([&ran] { ran.fetch_add(1); }).ok());
    ASSERT_TRUE(s2->LaunchHostKernel(Kernel([&ran] {
                  ran.fetch_add(1);
                  return absl::OkStatus();
                })).ok());
  }
  ASSERT_TRUE(this->executor_->SynchronizeAllActivity().ok());
  EXPECT_EQ(ran.load(), 20);
}

TYPED_TEST(StreamSemanticsTest, AllocatedMemoryIsDeviceMemory) {
  DeviceMemoryBase buf = this->executor_->Allocate(1000);
  ASSERT_FALSE(buf.is_null());
  EXPECT_EQ(buf.size(), 1000u);
  EXPECT_TRUE(this->executor_->IsDeviceMemory(buf.opaque()));
  EXPECT_TRUE(this->executor_->IsDeviceMemory(static_cast<char*>(buf.opaque()) + 999));
  int local = 0;
  EXPECT_FALSE(this->executor_->IsDeviceMemory(&local));
  EXPECT_GE(this->executor_->DeviceMemoryInUse(), 1000);
  this->executor_->Deallocate(&buf);
  EXPECT_EQ(this->executor_->DeviceMemoryInUse(), 0);
  EXPECT_TRUE(this->executor_->Allocate(0).is_null());
}

TYPED_TEST(StreamSemanticsTest, SynchronousCopiesRoundTrip) {
  DeviceMemoryBase buf = this->executor_->Allocate(16);
  const char in[16] = "fifteen chars!!";
  char out[16] = {};
  ASSERT_TRUE(this->executor_->SynchronousMemcpyH2D(in, 16, &buf).ok());
  DeviceMemoryBase buf2 = this->executor_->Allocate(16);
  ASSERT_TRUE(this->executor_->SynchronousMemcpyD2D(buf, 16, &buf2).ok());
  ASSERT_TRUE(this->executor_->SynchronousMemcpyD2H(buf2, 16, out).ok());
  EXPECT_STREQ(out, in);
  EXPECT_EQ(this->executor_->SynchronousMemcpyD2H(buf2, 17, out).code(),
            absl::StatusCode::kInvalidArgument);
  void* pinned = this->executor_->HostMemoryAllocate(100);
  ASSERT_NE(pinned, nullptr);
  this->executor_->HostMemoryDeallocate(pinned, 100);
  this->executor_->Deallocate(&buf);
  this->executor_->Deallocate(&buf2);
}

}  // namespace
}  // namespace minitf::se
