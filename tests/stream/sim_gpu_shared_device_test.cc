// A shared SimGPU device across real processes: a process killed with
// SIGKILL while it holds memory, the engine, or a place in the engine's
// line wedges and leaks nothing for the others. Also the errors of Attach
// and the shared= option.
#include "stream/sim_gpu/sim_gpu_shared_device.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "platform/mutex.h"
#include "stream/sim_gpu/sim_gpu_engine.h"
#include "stream/sim_gpu/sim_gpu_executor.h"
#include "stream/sim_gpu/sim_gpu_options.h"
#include "stream/sim_gpu/sim_gpu_platform.h"
#include "tests/testlib/sim_gpu_engine_testing.h"

namespace minitf::se {
namespace {

constexpr int64_t kCapacity = int64_t{64} << 20;

class SharedDeviceProcessTest : public ::testing::Test {
 protected:
  ~SharedDeviceProcessTest() override { EXPECT_TRUE(RemoveSharedSimGPU(name_, 2).ok()); }

  std::unique_ptr<SharedSimGPUDevice> Attach() {
    absl::StatusOr<std::unique_ptr<SharedSimGPUDevice>> d =
        SharedSimGPUDevice::Attach(name_, 0, kCapacity);
    EXPECT_TRUE(d.ok()) << d.status();
    return d.ok() ? *std::move(d) : nullptr;
  }

  // Forks a child that runs `body` (given a pipe's write end to say "ready"
  // on) and then waits to be killed. Returns the child's pid once it said
  // ready.
  template <typename Body>
  pid_t ForkReady(Body body) {
    int fds[2];
    EXPECT_EQ(pipe(fds), 0);
    const pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      body(fds[1]);
      while (true) pause();
    }
    close(fds[1]);
    char c = 0;
    EXPECT_EQ(read(fds[0], &c, 1), 1) << "the child died before it was ready";
    close(fds[0]);
    return pid;
  }

  static void Kill(pid_t pid) {
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFSIGNALED(status));
  }

  const std::string name_ = testing::UniqueSharedSimGPUName("proc-test");
};

void SayReady(int fd) {
  const char c = 'r';
  if (write(fd, &c, 1) != 1) _exit(3);
}

TEST_F(SharedDeviceProcessTest, MemoryOfAProcessKilledIsFreeAgain) {
  const pid_t child = ForkReady([this](int ready) {
    std::unique_ptr<SharedSimGPUDevice> d = Attach();
    if (d == nullptr || !d->Reserve(kCapacity * 3 / 4)) _exit(2);
    SayReady(ready);
    d.release();  // Held until the process dies.
  });
  std::unique_ptr<SharedSimGPUDevice> d = Attach();
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->BytesInUse(), kCapacity * 3 / 4);
  EXPECT_FALSE(d->Reserve(kCapacity / 2));
  Kill(child);
  EXPECT_TRUE(d->Reserve(kCapacity / 2));
  EXPECT_EQ(d->BytesInUse(), kCapacity / 2);
  EXPECT_EQ(d->BytesInUseHere(), kCapacity / 2);
  d->Unreserve(kCapacity / 2);
  EXPECT_EQ(d->BytesInUse(), 0);
}

TEST_F(SharedDeviceProcessTest, TheEngineOfAProcessKilledWhileHoldingItIsFreeAgain) {
  const pid_t child = ForkReady([this](int ready) {
    std::unique_ptr<SharedSimGPUDevice> d = Attach();
    if (d == nullptr) _exit(2);
    SimGPUEngine engine(SimGPUOptions::Mode::kTiming, absl::Hours(1), d.get());
    HostKernel k;
    k.name = "forever";
    k.run_in_timing_mode = true;
    k.body = [ready] {
      SayReady(ready);
      // A body holds the device until it returns (whosever the timeslice
      // is): the process is killed first.
      absl::SleepFor(absl::Hours(1));
      return absl::OkStatus();
    };
    absl::Duration charged;
    (void)engine.Execute(k, absl::Hours(1), StreamPriority::kHighest, &charged);
    _exit(4);
  });
  std::unique_ptr<SharedSimGPUDevice> d = Attach();
  ASSERT_NE(d, nullptr);
  SimGPUEngine engine(SimGPUOptions::Mode::kTiming, absl::ZeroDuration(), d.get());
  HostKernel k;
  k.name = "after";
  std::atomic<bool> done{false};
  std::thread waiter([&] {
    absl::Duration charged;
    EXPECT_TRUE(engine.Execute(k, absl::Milliseconds(1), StreamPriority::kLowest, &charged).ok());
    done = true;
  });
  while (d->SmWaiting() < 1) absl::SleepFor(absl::Milliseconds(1));
  absl::SleepFor(absl::Milliseconds(100));
  EXPECT_FALSE(done.load()) << "the kernel ran while another process held the engine";
  Kill(child);
  waiter.join();
  EXPECT_TRUE(done.load());
  EXPECT_EQ(engine.KernelCount(), 1);
}

TEST_F(SharedDeviceProcessTest, AProcessKilledWhileWaitingInLineBlocksNobody) {
  std::unique_ptr<SharedSimGPUDevice> d = Attach();
  ASSERT_NE(d, nullptr);
  SimGPUEngine engine(SimGPUOptions::Mode::kTiming, absl::ZeroDuration(), d.get());
  Notification started, release;
  const HostKernel blocker = testing::BlockingKernel("blocker", &started, &release);
  std::thread holder([&] {
    absl::Duration charged;
    EXPECT_TRUE(engine.Execute(blocker, absl::ZeroDuration(), StreamPriority::kLowest, &charged)
                    .ok());
  });
  started.WaitForNotification();
  // The child's kernel outranks every one of ours and waits for the engine.
  const pid_t child = ForkReady([this](int ready) {
    std::unique_ptr<SharedSimGPUDevice> c = Attach();
    if (c == nullptr) _exit(2);
    SayReady(ready);
    SimGPUEngine child_engine(SimGPUOptions::Mode::kTiming, absl::ZeroDuration(), c.get());
    HostKernel k;
    k.name = "never";
    absl::Duration charged;
    (void)child_engine.Execute(k, absl::Hours(1), StreamPriority::kHighest, &charged);
    _exit(4);
  });
  while (d->SmWaiting() < 1) absl::SleepFor(absl::Milliseconds(1));
  Kill(child);
  release.Notify();
  holder.join();
  HostKernel after;
  after.name = "after";
  absl::Duration charged;
  EXPECT_TRUE(engine.Execute(after, absl::Milliseconds(1), StreamPriority::kLowest, &charged).ok());
  EXPECT_EQ(d->SmWaiting(), 0);
}

TEST_F(SharedDeviceProcessTest, ExecutorsOfTwoPlatformsNamingOneSharedDeviceShareItsMemory) {
  absl::StatusOr<SimGPUOptions> options =
      ParseSimGPUOptions(absl::StrCat("memory=64MiB,mode=functional,shared=", name_));
  ASSERT_TRUE(options.ok()) << options.status();
  absl::StatusOr<std::unique_ptr<SimGPUPlatform>> p1 = SimGPUPlatform::Create(*options);
  absl::StatusOr<std::unique_ptr<SimGPUPlatform>> p2 = SimGPUPlatform::Create(*options);
  ASSERT_TRUE(p1.ok() && p2.ok());
  absl::StatusOr<SimGPUExecutor*> e1 = (*p1)->SimGPUExecutorForDevice(0);
  absl::StatusOr<SimGPUExecutor*> e2 = (*p2)->SimGPUExecutorForDevice(0);
  ASSERT_TRUE(e1.ok() && e2.ok());
  DeviceMemoryBase big = (*e1)->Allocate(kCapacity - 4096);
  ASSERT_FALSE(big.is_null());
  EXPECT_TRUE((*e2)->Allocate(8192).is_null());
  EXPECT_EQ((*e2)->DeviceMemoryInUse(), kCapacity - 4096);
  (*e1)->Deallocate(&big);
  DeviceMemoryBase small = (*e2)->Allocate(8192);
  EXPECT_FALSE(small.is_null());
  (*e2)->Deallocate(&small);
}

TEST_F(SharedDeviceProcessTest, AttachingWithAnotherCapacityIsAnError) {
  std::unique_ptr<SharedSimGPUDevice> d = Attach();
  ASSERT_NE(d, nullptr);
  absl::StatusOr<std::unique_ptr<SharedSimGPUDevice>> other =
      SharedSimGPUDevice::Attach(name_, 0, kCapacity * 2);
  EXPECT_EQ(other.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(other.status().message().find("memory="), std::string::npos) << other.status();
  // Through the platform, the error names the device.
  absl::StatusOr<std::unique_ptr<SimGPUPlatform>> p =
      SimGPUPlatform::Create(*ParseSimGPUOptions(absl::StrCat("memory=1GiB,shared=", name_)));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->SimGPUExecutorForDevice(0).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(SharedDeviceProcessTest, AttachingWithAnotherSharingIsAnError) {
  std::unique_ptr<SharedSimGPUDevice> d = Attach();  // Timesliced, 2 ms.
  ASSERT_NE(d, nullptr);
  for (SharedSimGPUDevice::Sharing other :
       {SharedSimGPUDevice::Sharing{.mode = SharedSimGPUDevice::Sharing::Mode::kPriority},
        SharedSimGPUDevice::Sharing{.timeslice = absl::Milliseconds(5)}}) {
    absl::StatusOr<std::unique_ptr<SharedSimGPUDevice>> attached =
        SharedSimGPUDevice::Attach(name_, 0, kCapacity, other);
    EXPECT_EQ(attached.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(attached.status().message().find("share="), std::string::npos)
        << attached.status();
  }
}

TEST(SharedSimGPUOptionTest, ParsesTheSharingOfASharedDevice) {
  absl::StatusOr<SimGPUOptions> o = ParseSimGPUOptions("shared=x");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->share, SimGPUOptions::Share::kTimeslice);
  EXPECT_EQ(o->timeslice_us, 2000);
  EXPECT_NE(o->ToString().find(",shared=x,share=timeslice,timeslice_us=2000"), std::string::npos)
      << o->ToString();
  o = ParseSimGPUOptions("shared=x,share=priority,timeslice_us=500");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->share, SimGPUOptions::Share::kPriority);
  EXPECT_EQ(o->timeslice_us, 500);
  EXPECT_EQ(*ParseSimGPUOptions(o->ToString()), *o);
  // Meaningless without shared=, out of range, or not a mode: refused, named.
  for (const char* bad : {"share=timeslice", "timeslice_us=100", "shared=x,share=mps2",
                          "shared=x,timeslice_us=0", "shared=x,timeslice_us=2e6"}) {
    absl::StatusOr<SimGPUOptions> parsed = ParseSimGPUOptions(bad);
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    const bool names_key = parsed.status().message().find("share") != std::string::npos ||
                           parsed.status().message().find("timeslice_us") != std::string::npos;
    EXPECT_TRUE(names_key) << parsed.status();
  }
}

TEST(SharedSimGPUOptionTest, MpsNeedsTimingModeAndReadsTheActiveThreadPercentage) {
  absl::StatusOr<SimGPUOptions> o = ParseSimGPUOptions("shared=x,share=mps,mode=timing");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->share, SimGPUOptions::Share::kMps);
  EXPECT_EQ(*ParseSimGPUOptions(o->ToString()), *o);
  absl::StatusOr<SimGPUOptions> compute = ParseSimGPUOptions("shared=x,share=mps,mode=compute");
  EXPECT_EQ(compute.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(compute.status().message().find("share=mps needs mode=timing"), std::string::npos)
      << compute.status();

  unsetenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
  EXPECT_EQ(*MpsActiveThreadFraction(), 1.0);
  setenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "25", 1);
  EXPECT_EQ(*MpsActiveThreadFraction(), 0.25);
  for (const char* bad : {"0", "101", "-5", "half", "nan"}) {
    setenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", bad, 1);
    absl::StatusOr<double> f = MpsActiveThreadFraction();
    EXPECT_EQ(f.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(f.status().message().find("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"), std::string::npos);
  }
  unsetenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
}

TEST(SharedSimGPUOptionTest, MpsClientPriorityIsReadAsMpsReadsIt) {
  unsetenv("CUDA_MPS_CLIENT_PRIORITY");
  EXPECT_EQ(*MpsClientPriority(), 0);
  setenv("CUDA_MPS_CLIENT_PRIORITY", "", 1);
  EXPECT_EQ(*MpsClientPriority(), 0);
  setenv("CUDA_MPS_CLIENT_PRIORITY", "1", 1);
  EXPECT_EQ(*MpsClientPriority(), 1);
  setenv("CUDA_MPS_CLIENT_PRIORITY", "0", 1);
  EXPECT_EQ(*MpsClientPriority(), 0);
  for (const char* bad : {"2", "-1", "low", "1.0", " 1"}) {
    setenv("CUDA_MPS_CLIENT_PRIORITY", bad, 1);
    absl::StatusOr<int> level = MpsClientPriority();
    EXPECT_EQ(level.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(level.status().message().find("CUDA_MPS_CLIENT_PRIORITY"), std::string::npos)
        << level.status();
  }
  unsetenv("CUDA_MPS_CLIENT_PRIORITY");
}

TEST(SharedSimGPUOptionTest, DeferNeedsASharedDeviceInTimingMode) {
  absl::StatusOr<SimGPUOptions> o = ParseSimGPUOptions("shared=x,mode=timing,defer=true");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->defer);
  EXPECT_NE(o->ToString().find(",defer=true"), std::string::npos) << o->ToString();
  EXPECT_EQ(*ParseSimGPUOptions(o->ToString()), *o);
  EXPECT_FALSE(ParseSimGPUOptions("shared=x,mode=timing")->defer);
  EXPECT_EQ(o->defer_idle_us, 5000);
  EXPECT_EQ(ParseSimGPUOptions("shared=x,mode=timing,defer=true,defer_idle_us=250")->defer_idle_us,
            250);
  const std::pair<const char*, const char*> refused[] = {
      {"mode=timing,defer=true", "applies only to a device shared by processes"},
      {"shared=x,mode=compute,defer=true", "defer=true needs mode=timing"},
      {"shared=x,mode=timing,defer=maybe", "is not a boolean"},
      {"mode=timing,defer_idle_us=5", "applies only to a device shared by processes"},
      {"shared=x,mode=timing,defer_idle_us=-1", "defer_idle_us=-1 is out of range"}};
  for (const auto& [options, why] : refused) {
    absl::StatusOr<SimGPUOptions> parsed = ParseSimGPUOptions(options);
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument) << options;
    EXPECT_NE(parsed.status().message().find(why), std::string::npos) << parsed.status();
  }
}

TEST(SharedSimGPUOptionTest, ParsesValidatesAndSpellsTheSharedKey) {
  absl::StatusOr<SimGPUOptions> o = ParseSimGPUOptions("memory=1GiB,shared=exp-1.a_b");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->shared, "exp-1.a_b");
  EXPECT_NE(o->ToString().find(",shared=exp-1.a_b"), std::string::npos);
  EXPECT_EQ(*ParseSimGPUOptions(o->ToString()), *o);
  EXPECT_EQ(ParseSimGPUOptions("").value().ToString().find("shared"), std::string::npos);
  for (const char* bad : {"shared=a/b", "shared=", "shared=a b"}) {
    absl::StatusOr<SimGPUOptions> parsed = ParseSimGPUOptions(bad);
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_EQ(SharedSimGPUDevice::Attach(std::string(65, 'x'), 0, 1 << 20).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace minitf::se
