// GPUResourceManagement through real sessions on SimGPU: a config file
// written as a scheduler would (atomically) changes the memory limit and
// the compute share of exactly the session that watches it, at a step
// boundary; bad files change nothing (nor do oversized files or ones that
// are no regular file); a file whose directory is made later is taken;
// perfControl 0 suspends the job until the value is raised.
#include "session/antman/gpu_resource_management.h"

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/cc/scope.h"
#include "ops/standard_ops.h"
#include "platform/logging.h"
#include "platform/mutex.h"
#include "session/direct_session.h"
#include "spdlog/sinks/base_sink.h"
#include "tests/testlib/test_files.h"

namespace minitf {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr char kGPU[] = "/device:GPU:0";

SessionOptions Options(const std::string& config_file) {
  SessionOptions options;
  options.config.intra_op_parallelism_threads = 1;
  options.config.inter_op_parallelism_threads = 2;
  options.config.gpu_options.platform = "SimGPU";
  options.config.gpu_options.simgpu_options = "memory=512MiB,mode=functional";
  options.config.gpu_options.private_allocators = true;
  options.config.gpu_options.memory_limit_bytes = 64 * kMiB;
  // The step's kernels must run on the device: no constant folding.
  options.config.graph_options = GraphOptions::Unoptimized();
  options.gpu_config_file = config_file;
  return options;
}

// y = sum(x x) on the GPU, x 128x128 ones: 128 * 128 * 128.
GraphDef MatMulGraph() {
  Scope root = Scope::NewRootScope().WithDevice(kGPU);
  Output x = ops::Fill(root.WithOpName("x"),
                       ops::Const(root, Tensor::FromVector<int32_t>({128, 128})),
                       Tensor::Scalar<float>(1.0f));
  Output y = ops::MatMul(root.WithOpName("y"), x, x);
  ops::Sum(root.WithOpName("sum"), y, {0, 1});
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok());
  return def;
}

std::unique_ptr<DirectSession> MakeSession(const SessionOptions& options) {
  auto session = DirectSession::New(options);
  EXPECT_TRUE(session.ok()) << session.status();
  EXPECT_TRUE((*session)->Create(MatMulGraph()).ok());
  return *std::move(session);
}

void Step(Session* session) {
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {"sum:0"}, {}, &out).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FLOAT_EQ(out[0].scalar<float>()(), 128.0f * 128 * 128);
}

GPUResourceState* StateOf(DirectSession* session) {
  return GPUResourceManagement::StateOf(session->action_states());
}

int64_t DeviceLimit(Session* session) {
  for (Device* d : session->ListDevices()) {
    if (auto* gpu = dynamic_cast<GPUDevice*>(d)) {
      return static_cast<int64_t>(gpu->allocator_stack()->device_bfc()->GetPoolStats().memory_limit);
    }
  }
  return -1;
}

// Writes `content` and waits until the session's listener has taken it.
void Publish(DirectSession* session, const std::string& path, const std::string& content) {
  GPUResourceState* state = StateOf(session);
  ASSERT_NE(state, nullptr);
  const GPUResourceState::Status before = state->GetStatus();
  test::WriteFileAtomically(path, content);
  ASSERT_TRUE(state->WaitForConfigCount(before.configs_applied + before.configs_rejected + 1,
                                        absl::Seconds(10)))
      << "the listener never delivered " << path;
}

// Makes `path` a symbolic link to `target`, atomically (a link made next to
// it, renamed over it), as a scheduler replacing the file would.
void LinkAtomically(const std::string& target, const std::string& path) {
  const std::string tmp = path + ".link";
  ASSERT_EQ(symlink(target.c_str(), tmp.c_str()), 0) << tmp;
  ASSERT_EQ(rename(tmp.c_str(), path.c_str()), 0) << path;
}

// Collects what LOG prints while it exists, by adding a sink to spdlog's
// default logger (the one LOG writes to) at level info. Make it while no
// other thread logs, and destroy it likewise: spdlog's sink list is not
// guarded.
class LogCapture {
 public:
  LogCapture() : sink_(std::make_shared<Sink>()) {
    logging::InitOnce();  // Applies MINITF_LOG_LEVEL now, not over the level set here.
    level_ = spdlog::default_logger()->level();
    spdlog::default_logger()->set_level(spdlog::level::info);
    spdlog::default_logger()->sinks().push_back(sink_);
  }
  ~LogCapture() {
    std::vector<spdlog::sink_ptr>& sinks = spdlog::default_logger()->sinks();
    sinks.erase(std::remove(sinks.begin(), sinks.end(), sink_), sinks.end());
    spdlog::default_logger()->set_level(level_);
  }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  // The lines captured so far that contain every one of `parts`.
  std::vector<std::string> Lines(std::initializer_list<absl::string_view> parts) const {
    std::vector<std::string> lines;
    for (const std::string& line : sink_->Lines()) {
      if (std::all_of(parts.begin(), parts.end(),
                      [&line](absl::string_view part) { return absl::StrContains(line, part); })) {
        lines.push_back(line);
      }
    }
    return lines;
  }

 private:
  // Keeps every message as "<level>: <text>", e.g. "warning: ...".
  class Sink : public spdlog::sinks::base_sink<std::mutex> {
   public:
    std::vector<std::string> Lines() {
      std::lock_guard<std::mutex> lock(mutex_);
      return lines_;
    }

   protected:
    void sink_it_(const spdlog::details::log_msg& msg) override {
      lines_.push_back(absl::StrCat(
          absl::string_view(spdlog::level::to_string_view(msg.level).data(),
                            spdlog::level::to_string_view(msg.level).size()),
          ": ", absl::string_view(msg.payload.data(), msg.payload.size())));
    }
    void flush_() override {}

   private:
    std::vector<std::string> lines_;  // Guarded by base_sink's mutex_.
  };

  std::shared_ptr<Sink> sink_;
  spdlog::level::level_enum level_;
};

TEST(GPUResourceManagementTest, TheControlPlaneReadsItsEnvironmentWhenASessionIsMade) {
  // GPU_CONFIG_FILE, GPU_STATUS_FILE and MINITF_PACING_POLICY are read by
  // the control plane's actions (FillSessionOptions), not by the session.
  ASSERT_EQ(setenv("GPU_CONFIG_FILE", "/jobs/a/config.json", 1), 0);
  ASSERT_EQ(setenv("GPU_STATUS_FILE", "/jobs/a/status.json", 1), 0);
  ASSERT_EQ(setenv("MINITF_PACING_POLICY", "antman", 1), 0);
  absl::StatusOr<std::unique_ptr<DirectSession>> from_env = DirectSession::New({});
  SessionOptions given;
  given.gpu_config_file = "/jobs/b/config.json";
  absl::StatusOr<std::unique_ptr<DirectSession>> from_options = DirectSession::New(given);
  unsetenv("GPU_CONFIG_FILE");
  unsetenv("GPU_STATUS_FILE");
  unsetenv("MINITF_PACING_POLICY");
  absl::StatusOr<std::unique_ptr<DirectSession>> without = DirectSession::New({});

  ASSERT_TRUE(from_env.ok()) << from_env.status();
  const SessionOptions& env = (*from_env)->options();
  EXPECT_EQ(env.gpu_config_file, "/jobs/a/config.json");
  EXPECT_EQ(env.gpu_status_file, "/jobs/a/status.json");
  EXPECT_EQ(env.pacing_policy, "antman");
  // Limits change at run time: the pool grows on demand and spills to host.
  EXPECT_TRUE(env.config.gpu_options.allow_growth);
  EXPECT_TRUE(env.config.gpu_options.vmem);

  ASSERT_TRUE(from_options.ok()) << from_options.status();
  EXPECT_EQ((*from_options)->options().gpu_config_file, "/jobs/b/config.json");

  ASSERT_TRUE(without.ok()) << without.status();
  EXPECT_EQ((*without)->options().gpu_config_file, "");
  EXPECT_EQ((*without)->options().pacing_policy, "precise");
  EXPECT_FALSE((*without)->options().config.gpu_options.allow_growth);
}

TEST(GPUResourceManagementTest, InitialFileIsAppliedAtTheFirstStepBoundary) {
  const std::string dir = test::MakeTempDir("gpu_rm");
  const std::string file = dir + "/job.json";
  test::WriteFileAtomically(file, R"({"gpuConfigInfo": {"GPU:0": {"maxDeviceMem": 16777216}}})");
  auto session = MakeSession(Options(file));
  EXPECT_EQ(DeviceLimit(session.get()), 64 * kMiB);
  Step(session.get());
  EXPECT_EQ(DeviceLimit(session.get()), 16 * kMiB);
  GPUResourceState::Status status = StateOf(session.get())->GetStatus();
  ASSERT_EQ(status.devices.size(), 1u);
  EXPECT_EQ(status.devices[0].requested_limit, 16 * kMiB);
  EXPECT_EQ(status.devices[0].limit_in_force, 16 * kMiB);
  EXPECT_FALSE(status.devices[0].shrink_pending);
  EXPECT_EQ(status.configs_applied, 1);
}

TEST(GPUResourceManagementTest, EachSessionFollowsOnlyItsOwnFile) {
  const std::string dir = test::MakeTempDir("gpu_rm");
  const std::string file_a = dir + "/a.json";
  const std::string file_b = dir + "/b.json";
  test::WriteFileAtomically(file_a, "{}");
  test::WriteFileAtomically(file_b, "{}");
  auto a = MakeSession(Options(file_a));
  auto b = MakeSession(Options(file_b));
  Step(a.get());
  Step(b.get());

  Publish(a.get(), file_a, R"({"gpuConfigInfo": {"GPU:0": {"maxDeviceMem": 8388608}}})");
  Step(a.get());
  Step(b.get());
  EXPECT_EQ(DeviceLimit(a.get()), 8 * kMiB);
  EXPECT_EQ(DeviceLimit(b.get()), 64 * kMiB);

  Publish(b.get(), file_b, R"({"gpuConfigInfo": {"GPU:0": {"maxDeviceMem": 33554432}}})");
  Step(a.get());
  Step(b.get());
  EXPECT_EQ(DeviceLimit(a.get()), 8 * kMiB);
  EXPECT_EQ(DeviceLimit(b.get()), 32 * kMiB);
}

TEST(GPUResourceManagementTest, BusIdKeysWorkAndLimitsAboveTheInitialOneAreClamped) {
  const std::string dir = test::MakeTempDir("gpu_rm");
  const std::string file = dir + "/job.json";
  test::WriteFileAtomically(file, "{}");
  auto session = MakeSession(Options(file));
  Step(session.get());
  std::string bus_id;
  for (Device* d : session->ListDevices()) {
    if (auto* gpu = dynamic_cast<GPUDevice*>(d)) bus_id = gpu->pci_bus_id();
  }
  ASSERT_FALSE(bus_id.empty());
  Publish(session.get(), file,
          absl::StrCat(R"({"gpuConfigInfo": {")", bus_id, R"(": {"maxDeviceMem": )", 4 * kMiB,
                       "}}}"));
  Step(session.get());
  EXPECT_EQ(DeviceLimit(session.get()), 4 * kMiB);

  Publish(session.get(), file,
          absl::StrCat(R"({"gpuConfigInfo": {"GPU:0": {"maxDeviceMem": )", 1024 * kMiB, "}}}"));
  Step(session.get());
  EXPECT_EQ(DeviceLimit(session.get()), 64 * kMiB);
  EXPECT_EQ(StateOf(session.get())->GetStatus().devices[0].requested_limit, 1024 * kMiB);
}

// A shrink below what live buffers hold is reached as far as it can be,
// reported as pending, and retried at every later boundary until reached.
TEST(GPUResourceManagementTest, ShrinkBlockedByLiveBuffersIsRetriedUntilReached) {
  const std::string dir = test::MakeTempDir("gpu_rm");
  const std::string file = dir + "/job.json";
  test::WriteFileAtomically(file, "{}");
  auto session = MakeSession(Options(file));
  Step(session.get());
  GPUDevice* gpu = nullptr;
  for (Device* d : session->ListDevices()) {
    if (auto* g = dynamic_cast<GPUDevice*>(d)) gpu = g;
  }
  ASSERT_NE(gpu, nullptr);
  // A buffer that outlives the steps, as a large weight would.
  Allocator* allocator = gpu->allocator_stack()->allocator();
  void* held = allocator->AllocateRaw(Allocator::kAllocatorAlignment, 8 * kMiB);
  ASSERT_NE(held, nullptr);

  // 4 MiB: above the region the graph's constants live in for good (a
  // GPU Const keeps its value in device memory), below the held buffer.
  Publish(session.get(), file, R"({"gpuConfigInfo": {"GPU:0": {"maxDeviceMem": 4194304}}})");
  Step(session.get());
  GPUResourceState::Status status = StateOf(session.get())->GetStatus();
  EXPECT_TRUE(status.devices[0].shrink_pending);
  EXPECT_GE(status.devices[0].limit_in_force, 8 * kMiB);
  EXPECT_LT(status.devices[0].limit_in_force, 64 * kMiB);
  Step(session.get());
  EXPECT_TRUE(StateOf(session.get())->GetStatus().devices[0].shrink_pending);

  allocator->DeallocateRaw(held);
  // A step's last device buffers may be released by the stream just after
  // its boundary, so the shrink is reached at the first boundary after
  // that: one of the next few.
  for (int i = 0; i < 3 && StateOf(session.get())->GetStatus().devices[0].shrink_pending; ++i) {
    Step(session.get());
  }
  status = StateOf(session.get())->GetStatus();
  EXPECT_FALSE(status.devices[0].shrink_pending);
  EXPECT_EQ(status.devices[0].limit_in_force, 4 * kMiB);
  EXPECT_EQ(DeviceLimit(session.get()), 4 * kMiB);
}

// The warning for a limit live buffers keep out of reach is printed once
// per requested limit, and the limit in force again only when it changes:
// not at every step of a job that keeps running above its target.
TEST(GPUResourceManagementTest, UnreachedLimitIsLoggedOncePerRequestNotAtEveryStep) {
  const std::string dir = test::MakeTempDir("gpu_rm");
  const std::string file = dir + "/job.json";
  test::WriteFileAtomically(file, "{}");
  LogCapture log;  // Before the session: its threads are not logging yet.
  auto session = MakeSession(Options(file));
  Step(session.get());
  GPUDevice* gpu = nullptr;
  for (Device* d : session->ListDevices()) {
    if (auto* g = dynamic_cast<GPUDevice*>(d)) gpu = g;
  }
  ASSERT_NE(gpu, nullptr);
  Allocator* allocator = gpu->allocator_stack()->allocator();
  void* held = allocator->AllocateRaw(Allocator::kAllocatorAlignment, 8 * kMiB);
  ASSERT_NE(held, nullptr);
  // Lines about the memory limit, and every warning about this job's
  // config file (not the machine's: a platform's own warnings may come
  // first or last, depending on the machine).
  auto reports = [&log, &file] {
    std::vector<std::string> lines = log.Lines({"memory limit"});
    for (const std::string& line : log.Lines({"warning: ", file})) {
      if (!absl::StrContains(line, "memory limit")) lines.push_back(line);
    }
    return lines;
  };
  const size_t at_start = reports().size();

  // A step's last device buffers may be released by the stream just after
  // its boundary, so the limit in force can still drop once, to where the
  // held buffer keeps it, at the next boundary: one report each, then none.
  Publish(session.get(), file, R"({"gpuConfigInfo": {"GPU:0": {"maxDeviceMem": 1048576}}})");
  for (int i = 0; i < 4; ++i) Step(session.get());
  ASSERT_TRUE(StateOf(session.get())->GetStatus().devices[0].shrink_pending);
  std::vector<std::string> lines = reports();
  ASSERT_GE(lines.size(), at_start + 1) << ::testing::PrintToString(lines);
  ASSERT_LE(lines.size(), at_start + 2) << ::testing::PrintToString(lines);
  const size_t settled = lines.size();
  for (int i = 0; i < 4; ++i) Step(session.get());
  lines = reports();
  ASSERT_EQ(lines.size(), settled) << ::testing::PrintToString(lines);
  EXPECT_THAT(lines.back(), HasSubstr("warning: "));
  EXPECT_THAT(lines.back(), HasSubstr(file));
  EXPECT_THAT(lines.back(), HasSubstr("GPU:0"));
  EXPECT_THAT(lines.back(), HasSubstr("1048576"));

  // Another request that is out of reach too: reported once, although the
  // limit in force stays the same.
  Publish(session.get(), file, R"({"gpuConfigInfo": {"GPU:0": {"maxDeviceMem": 2097152}}})");
  for (int i = 0; i < 4; ++i) Step(session.get());
  ASSERT_TRUE(StateOf(session.get())->GetStatus().devices[0].shrink_pending);
  lines = reports();
  ASSERT_EQ(lines.size(), settled + 1) << ::testing::PrintToString(lines);
  EXPECT_THAT(lines.back(), HasSubstr("2097152"));

  // Reached once the buffer goes (within a boundary or two, as above):
  // reported, then nothing.
  allocator->DeallocateRaw(held);
  for (int i = 0; i < 3; ++i) Step(session.get());
  EXPECT_FALSE(StateOf(session.get())->GetStatus().devices[0].shrink_pending);
  lines = reports();
  ASSERT_GE(lines.size(), settled + 2) << ::testing::PrintToString(lines);
  ASSERT_LE(lines.size(), settled + 3) << ::testing::PrintToString(lines);
  EXPECT_THAT(lines.back(), HasSubstr("info: "));
  EXPECT_THAT(lines.back(), HasSubstr("memory limit in force 2097152 bytes"));
  const size_t reached = lines.size();
  for (int i = 0; i < 4; ++i) Step(session.get());
  EXPECT_EQ(reports().size(), reached);
  session.reset();  // Its threads stop before the capture goes.
}

// A config file over the size bound (1 MiB) is not taken, whatever it
// holds, and the job keeps the last good settings.
TEST(GPUResourceManagementTest, OversizedConfigFileIsRejectedAndTheSettingsStay) {
  const std::string dir = test::MakeTempDir("gpu_rm");
  const std::string file = dir + "/job.json";
  test::WriteFileAtomically(file, R"({"gpuConfigInfo": {"GPU:0": {"maxDeviceMem": 16777216}}})");
  auto session = MakeSession(Options(file));
  Step(session.get());
  ASSERT_EQ(DeviceLimit(session.get()), 16 * kMiB);

  // Valid JSON, padded to 2 MiB.
  std::string big = R"({"perfControl": 50, "gpuConfigInfo": {"GPU:0": {"maxDeviceMem": 8388608}}})";
  big.resize(2 * kMiB, ' ');
  Publish(session.get(), file, big);
  Step(session.get());
  GPUResourceState::Status status = StateOf(session.get())->GetStatus();
  EXPECT_EQ(status.configs_rejected, 1);
  EXPECT_THAT(status.last_error, HasSubstr(file));
  EXPECT_THAT(status.last_error, HasSubstr("1048576"));
  EXPECT_EQ(status.perf_control, 100);
  EXPECT_EQ(DeviceLimit(session.get()), 16 * kMiB);

  // A good file afterwards is taken.
  Publish(session.get(), file, R"({"gpuConfigInfo": {"GPU:0": {"maxDeviceMem": 33554432}}})");
  Step(session.get());
  EXPECT_EQ(DeviceLimit(session.get()), 32 * kMiB);
}

// A config file replaced by something that is no regular file is not read
// at all: not /dev/zero (which never ends), not a FIFO (which blocks).
TEST(GPUResourceManagementTest, ConfigFileThatIsNoRegularFileIsRejected) {
  const std::string dir = test::MakeTempDir("gpu_rm");
  const std::string file = dir + "/job.json";
  test::WriteFileAtomically(file, R"({"gpuConfigInfo": {"GPU:0": {"maxDeviceMem": 16777216}}})");
  auto session = MakeSession(Options(file));
  Step(session.get());
  ASSERT_EQ(DeviceLimit(session.get()), 16 * kMiB);
  GPUResourceState* state = StateOf(session.get());

  LinkAtomically("/dev/zero", file);
  ASSERT_TRUE(state->WaitForConfigCount(2, absl::Seconds(10)))
      << "a symbolic link to /dev/zero was never reported";
  Step(session.get());
  GPUResourceState::Status status = state->GetStatus();
  EXPECT_EQ(status.configs_rejected, 1);
  EXPECT_THAT(status.last_error, HasSubstr(file));
  EXPECT_THAT(status.last_error, HasSubstr("not a regular file"));
  EXPECT_EQ(DeviceLimit(session.get()), 16 * kMiB);

  const std::string fifo = dir + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  ASSERT_EQ(rename(fifo.c_str(), file.c_str()), 0);
  ASSERT_TRUE(state->WaitForConfigCount(3, absl::Seconds(10))) << "a FIFO was never reported";
  Step(session.get());
  EXPECT_EQ(state->GetStatus().configs_rejected, 2);
  EXPECT_EQ(DeviceLimit(session.get()), 16 * kMiB);

  Publish(session.get(), file, R"({"gpuConfigInfo": {"GPU:0": {"maxDeviceMem": 33554432}}})");
  Step(session.get());
  EXPECT_EQ(DeviceLimit(session.get()), 32 * kMiB);
}

// A config path whose directory does not exist when the session starts is
// watched once the directory is made.
TEST(GPUResourceManagementTest, ConfigFileInADirectoryMadeLaterIsTaken) {
  const std::string dir = test::MakeTempDir("gpu_rm");
  const std::string sub = dir + "/later/jobs";
  const std::string file = sub + "/job.json";
  auto session = MakeSession(Options(file));
  Step(session.get());
  GPUResourceState* state = StateOf(session.get());
  ASSERT_NE(state, nullptr);
  EXPECT_EQ(DeviceLimit(session.get()), 64 * kMiB);

  ASSERT_EQ(mkdir((dir + "/later").c_str(), 0755), 0);
  ASSERT_EQ(mkdir(sub.c_str(), 0755), 0);
  test::WriteFileAtomically(file, R"({"gpuConfigInfo": {"GPU:0": {"maxDeviceMem": 8388608}}})");
  ASSERT_TRUE(state->WaitForConfigCount(1, absl::Seconds(10)))
      << file << " was never taken after its directory appeared";
  Step(session.get());
  EXPECT_EQ(state->GetStatus().configs_applied, 1);
  EXPECT_EQ(DeviceLimit(session.get()), 8 * kMiB);
}

TEST(GPUResourceManagementTest, BadFilesChangeNothingAndTheJobKeepsRunning) {
  const std::string dir = test::MakeTempDir("gpu_rm");
  const std::string file = dir + "/job.json";
  test::WriteFileAtomically(file, R"({"gpuConfigInfo": {"GPU:0": {"maxDeviceMem": 16777216}},
                            "perfControl": 100})");
  auto session = MakeSession(Options(file));
  Step(session.get());
  ASSERT_EQ(DeviceLimit(session.get()), 16 * kMiB);

  const std::vector<std::string> bad = {
      R"({"gpuConfigInfo": {"GPU:0": {"maxDeviceMem": 1048576)",          // half-written
      R"({"gpuConfigInfo": {"GPU:0": {"maxDeviceMem": -5}}})",             // negative
      R"({"gpuConfigInfo": {"GPU:0": {"maxDeviceMem": "8GiB"}}})",         // wrong type
      R"({"perfControl": 250})",                                           // out of range
      R"([1, 2, 3])",                                                      // not an object
      "",                                                                  // empty
  };
  int64_t rejected = 0;
  for (const std::string& content : bad) {
    Publish(session.get(), file, content);
    Step(session.get());
    const GPUResourceState::Status status = StateOf(session.get())->GetStatus();
    EXPECT_EQ(status.configs_rejected, ++rejected) << content;
    EXPECT_THAT(status.last_error, HasSubstr(file)) << content;
    EXPECT_EQ(status.perf_control, 100) << content;
    EXPECT_EQ(DeviceLimit(session.get()), 16 * kMiB) << content;
  }
  // Deleting the file keeps the settings too.
  ASSERT_EQ(unlink(file.c_str()), 0);
  Step(session.get());
  EXPECT_EQ(DeviceLimit(session.get()), 16 * kMiB);
  // And a good file afterwards is taken.
  Publish(session.get(), file, R"({"gpuConfigInfo": {"GPU:0": {"maxDeviceMem": 33554432}}})");
  Step(session.get());
  EXPECT_EQ(DeviceLimit(session.get()), 32 * kMiB);
}

TEST(GPUResourceManagementTest, UnknownDevicesAreSkippedAndTheRestApplied) {
  const std::string dir = test::MakeTempDir("gpu_rm");
  const std::string file = dir + "/job.json";
  test::WriteFileAtomically(file, R"({"gpuConfigInfo": {"GPU:7": {"maxDeviceMem": 1048576},
                                               "GPU:0": {"maxDeviceMem": 8388608}}})");
  auto session = MakeSession(Options(file));
  Step(session.get());
  EXPECT_EQ(DeviceLimit(session.get()), 8 * kMiB);
  EXPECT_EQ(StateOf(session.get())->GetStatus().configs_applied, 1);
}

TEST(GPUResourceManagementTest, PerfControlBelowHundredRoutesLaunchesThroughTheOpManager) {
  const std::string dir = test::MakeTempDir("gpu_rm");
  const std::string file = dir + "/job.json";
  // 1%: far below what the job uses unrestricted, so it must idle.
  test::WriteFileAtomically(file, R"({"perfControl": 1})");
  auto session = MakeSession(Options(file));
  GpuOpManager* manager = nullptr;
  for (Device* d : session->ListDevices()) {
    if (auto* gpu = dynamic_cast<GPUDevice*>(d)) manager = gpu->gpu_op_manager();
  }
  ASSERT_NE(manager, nullptr);
  for (int i = 0; i < 6; ++i) Step(session.get());
  EXPECT_TRUE(manager->active());
  EXPECT_GT(manager->total_launches(), 0);
  // Idle was inserted before launches.
  EXPECT_GT(manager->total_slots(), absl::ZeroDuration());
  EXPECT_EQ(StateOf(session.get())->GetStatus().perf_control, 1);

  Publish(session.get(), file, R"({"perfControl": 100})");
  Step(session.get());
  EXPECT_FALSE(manager->active());
  const int64_t launches = manager->total_launches();
  Step(session.get());
  EXPECT_EQ(manager->total_launches(), launches);
}

TEST(GPUResourceManagementTest, SmsPolicyMakesPerfControlTheShareOfTheSmsWithoutIdle) {
  const std::string dir = test::MakeTempDir("gpu_rm");
  const std::string file = dir + "/job.json";
  test::WriteFileAtomically(file, R"({"perfControl": 25})");
  SessionOptions options = Options(file);
  options.config.gpu_options.simgpu_options = "memory=512MiB,mode=timing";
  options.pacing_policy = "sms";
  auto session = MakeSession(options);
  GPUDevice* gpu = nullptr;
  for (Device* d : session->ListDevices()) {
    if (auto* g = dynamic_cast<GPUDevice*>(d)) gpu = g;
  }
  ASSERT_NE(gpu, nullptr);
  // The session made its streams in an SM partition, of the whole device
  // until the first boundary.
  EXPECT_DOUBLE_EQ(gpu->sm_fraction(), 1.0);
  std::vector<Tensor> out;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(session->Run({}, {"sum:0"}, {}, &out).ok());
  EXPECT_DOUBLE_EQ(gpu->sm_fraction(), 0.25);
  // No idle: the op manager stays out of the way and nothing is slept.
  EXPECT_FALSE(gpu->gpu_op_manager()->active());
  EXPECT_EQ(StateOf(session.get())->GetStatus().last_sleep, absl::ZeroDuration());

  Publish(session.get(), file, R"({"perfControl": 100})");
  ASSERT_TRUE(session->Run({}, {"sum:0"}, {}, &out).ok());
  EXPECT_DOUBLE_EQ(gpu->sm_fraction(), 1.0);
}

TEST(GPUResourceManagementTest, IdleNoSlotCouldTakeIsSleptAfterTheStepAndReported) {
  const std::string dir = test::MakeTempDir("gpu_rm");
  const std::string file = dir + "/job.json";
  test::WriteFileAtomically(file, R"({"perfControl": 1})");
  SessionOptions options = Options(file);
  options.pacing_policy = "antman";
  auto session = DirectSession::New(options);
  ASSERT_TRUE(session.ok()) << session.status();
  // No GPU kernel, so no launch to put an idle slot before: the step's whole
  // idle budget is slept at its boundary.
  Scope root = Scope::NewRootScope().WithDevice("/device:CPU:0");
  ops::Sum(root.WithOpName("sum"),
           ops::Fill(root, ops::Const(root, Tensor::FromVector<int32_t>({64, 64})),
                     Tensor::Scalar<float>(1.0f)),
           {0, 1});
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  ASSERT_TRUE((*session)->Create(def).ok());
  std::vector<Tensor> out;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE((*session)->Run({}, {"sum:0"}, {}, &out).ok());
  const GPUResourceState::Status status = StateOf(session->get())->GetStatus();
  EXPECT_GT(status.last_sleep, absl::ZeroDuration());
  EXPECT_EQ(status.last_suspension, absl::ZeroDuration());
}

TEST(GPUResourceManagementTest, PerfControlZeroSuspendsUntilRaised) {
  const std::string dir = test::MakeTempDir("gpu_rm");
  const std::string file = dir + "/job.json";
  test::WriteFileAtomically(file, "{}");
  auto session = MakeSession(Options(file));
  Step(session.get());
  Publish(session.get(), file, R"({"perfControl": 0})");

  Notification returned;
  std::thread job([&] {
    Step(session.get());  // Suspends at its boundary.
    returned.Notify();
  });
  GPUResourceState* state = StateOf(session.get());
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (!state->GetStatus().suspended && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(1));
  }
  ASSERT_TRUE(state->GetStatus().suspended);
  EXPECT_FALSE(returned.HasBeenNotified());

  Publish(session.get(), file, R"({"perfControl": 100})");
  job.join();
  EXPECT_TRUE(returned.HasBeenNotified());
  EXPECT_FALSE(state->GetStatus().suspended);
  // The boundary that suspended reports the suspension, not a pacing sleep.
  EXPECT_GT(state->GetStatus().last_suspension, absl::ZeroDuration());
  EXPECT_EQ(state->GetStatus().last_sleep, absl::ZeroDuration());
  Step(session.get());
}

TEST(GPUResourceManagementTest, SessionsWithoutAConfigFileHaveNoState) {
  auto session = MakeSession(Options(""));
  Step(session.get());
  EXPECT_EQ(StateOf(session.get()), nullptr);
}

}  // namespace
}  // namespace minitf
