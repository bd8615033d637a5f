// Streams, events and the SimGPU engine under concurrent use (run under
// ThreadSanitizer by `make check`).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "platform/mutex.h"
#include "stream/event.h"
#include "stream/host/host_platform.h"
#include "stream/sim_gpu/sim_gpu_platform.h"
#include "stream/stream.h"

namespace minitf::se {
namespace {

std::unique_ptr<SimGPUPlatform> MakeSimGPU(const char* options) {
  return *SimGPUPlatform::Create(*ParseSimGPUOptions(options));
}

HostKernel Kernel(std::function<absl::Status()> body) {
  HostKernel k;
  k.name = "TestKernel";
  k.body = std::move(body);
  return k;
}

TEST(StreamConcurrencyTest, EngineRunsOneKernelAtATimeAcrossStreams) {
  auto platform = MakeSimGPU("memory=1MiB,mode=functional");
  auto* gpu = *platform->SimGPUExecutorForDevice(0);
  constexpr int kStreams = 4;
  constexpr int kKernels = 50;
  std::atomic<int> running{0};
  std::atomic<int> max_running{0};
  auto body = [&] {
    const int now = running.fetch_add(1) + 1;
    int seen = max_running.load();
    while (now > seen && !max_running.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::yield();  // Give another stream a chance to overlap.
    running.fetch_sub(1);
    return absl::OkStatus();
  };
  std::vector<std::unique_ptr<Stream>> streams;
  for (int i = 0; i < kStreams; ++i) streams.push_back(*gpu->CreateStream());
  std::vector<std::thread> launchers;
  for (int i = 0; i < kStreams; ++i) {
    launchers.emplace_back([&, i] {
      for (int k = 0; k < kKernels; ++k) {
        ASSERT_TRUE(streams[i]->LaunchHostKernel(Kernel(body)).ok());
      }
    });
  }
  for (auto& t : launchers) t.join();
  ASSERT_TRUE(gpu->SynchronizeAllActivity().ok());
  EXPECT_EQ(max_running.load(), 1);
  EXPECT_EQ(gpu->KernelCount(), kStreams * kKernels);
  absl::Duration sum = absl::ZeroDuration();
  for (auto& s : streams) sum += s->BusyTime();
  EXPECT_EQ(sum, gpu->DeviceBusyTime());
}

TEST(StreamConcurrencyTest, ConcurrentEnqueuersKeepTheirOwnOrder) {
  HostPlatform host;
  StreamExecutor* cpu = *host.ExecutorForDevice(0);
  auto stream = *cpu->CreateStream();
  constexpr int kThreads = 4;
  constexpr int kItems = 200;
  std::vector<std::vector<int>> seen(kThreads);  // Written by the worker only.
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kItems; ++i) {
        ASSERT_TRUE(stream->DoHostCallback([&seen, t, i] { seen[t].push_back(i); }).ok());
      }
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_TRUE(stream->BlockHostUntilDone().ok());
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(seen[t].size(), static_cast<size_t>(kItems));
    EXPECT_TRUE(std::is_sorted(seen[t].begin(), seen[t].end()));
  }
}

TEST(StreamConcurrencyTest, PingPongBetweenStreamsIsOrdered) {
  auto platform = MakeSimGPU("memory=1MiB,mode=functional");
  StreamExecutor* gpu = *platform->ExecutorForDevice(0);
  auto a = *gpu->CreateStream();
  auto b = *gpu->CreateStream();
  std::vector<int> log;  // Each append is ordered after the previous by a wait.
  for (int i = 0; i < 100; ++i) {
    Stream* s = i % 2 == 0 ? a.get() : b.get();
    Stream* other = i % 2 == 0 ? b.get() : a.get();
    ASSERT_TRUE(s->WaitFor(other).ok());
    ASSERT_TRUE(s->LaunchHostKernel(Kernel([&log, i] {
                  log.push_back(i);
                  return absl::OkStatus();
                })).ok());
  }
  ASSERT_TRUE(a->BlockHostUntilDone().ok());
  ASSERT_TRUE(b->BlockHostUntilDone().ok());
  ASSERT_EQ(log.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(log[i], i);
}

TEST(StreamConcurrencyTest, HostAndSimGpuStreamsCanWaitForEachOther) {
  HostPlatform host;
  auto sim = MakeSimGPU("memory=1MiB,mode=functional");
  auto cpu_stream = *(*host.ExecutorForDevice(0))->CreateStream();
  auto gpu_stream = *(*sim->ExecutorForDevice(0))->CreateStream();
  Notification gate;
  int value = 0;
  int observed = 0;
  ASSERT_TRUE(gpu_stream->LaunchHostKernel(Kernel([&] {
                gate.WaitForNotification();
                value = 3;
                return absl::OkStatus();
              })).ok());
  ASSERT_TRUE(cpu_stream->WaitFor(gpu_stream.get()).ok());
  ASSERT_TRUE(cpu_stream->DoHostCallback([&] { observed = value; }).ok());
  gate.Notify();
  ASSERT_TRUE(cpu_stream->BlockHostUntilDone().ok());
  EXPECT_EQ(observed, 3);
}

TEST(StreamConcurrencyTest, EventsPolledWhileOtherThreadsRecord) {
  auto platform = MakeSimGPU("memory=1MiB,mode=functional");
  StreamExecutor* gpu = *platform->ExecutorForDevice(0);
  auto stream = *gpu->CreateStream();
  auto event = *gpu->CreateEvent();
  std::atomic<bool> stop{false};
  std::thread poller([&] {
    while (!stop.load()) {
      const Event::Status s = event->PollForStatus();
      EXPECT_NE(s, Event::Status::kError);
      if (s != Event::Status::kUnknown) {
        EXPECT_TRUE(event->WaitForCompletion().ok());
      }
    }
  });
  for (int i = 0; i < 200; ++i) {
    ASSERT_TRUE(stream->LaunchHostKernel(Kernel([] { return absl::OkStatus(); })).ok());
    ASSERT_TRUE(stream->RecordEvent(event.get()).ok());
  }
  ASSERT_TRUE(stream->BlockHostUntilDone().ok());
  EXPECT_EQ(event->PollForStatus(), Event::Status::kComplete);
  stop.store(true);
  poller.join();
}

TEST(StreamConcurrencyTest, StreamsComeAndGoWhileTheDeviceSynchronizes) {
  auto platform = MakeSimGPU("memory=4MiB,mode=functional");
  StreamExecutor* gpu = *platform->ExecutorForDevice(0);
  std::atomic<bool> stop{false};
  std::thread syncer([&] {
    while (!stop.load()) EXPECT_TRUE(gpu->SynchronizeAllActivity().ok());
  });
  std::vector<std::thread> users;
  std::atomic<int> ran{0};
  for (int t = 0; t < 3; ++t) {
    users.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        auto stream = *gpu->CreateStream();
        DeviceMemoryBase buf = gpu->Allocate(64 << 10);
        ASSERT_FALSE(buf.is_null());
        ASSERT_TRUE(stream->MemZero(&buf, buf.size()).ok());
        ASSERT_TRUE(stream->DoHostCallback([&ran] { ran.fetch_add(1); }).ok());
        ASSERT_TRUE(stream->BlockHostUntilDone().ok());
        gpu->Deallocate(&buf);
      }
    });
  }
  for (auto& t : users) t.join();
  stop.store(true);
  syncer.join();
  EXPECT_EQ(ran.load(), 60);
  EXPECT_EQ(gpu->DeviceMemoryInUse(), 0);
}

}  // namespace
}  // namespace minitf::se
