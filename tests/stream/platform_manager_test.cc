// PlatformManager: built-ins, case-insensitive lookup, registration, NotFound.
#include "stream/platform_manager.h"

#include <algorithm>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "stream/host/host_platform.h"
#include "stream/sim_gpu/sim_gpu_platform.h"

namespace minitf::se {
namespace {

class NamedPlatform : public Platform {
 public:
  explicit NamedPlatform(std::string name) : name_(std::move(name)) {}
  PlatformId id() const override { return this; }
  const std::string& Name() const override { return name_; }
  int VisibleDeviceCount() const override { return 0; }
  absl::StatusOr<StreamExecutor*> ExecutorForDevice(int) override {
    return absl::InvalidArgumentError("no devices");
  }

 private:
  std::string name_;
};

TEST(PlatformManagerTest, BuiltinsAreFoundCaseInsensitively) {
  absl::StatusOr<Platform*> host = PlatformManager::PlatformWithName("host");
  ASSERT_TRUE(host.ok()) << host.status();
  EXPECT_EQ((*host)->Name(), "Host");
  EXPECT_EQ((*host)->id(), HostPlatform::Id());
  EXPECT_EQ((*host)->VisibleDeviceCount(), 1);

  absl::StatusOr<Platform*> sim = PlatformManager::PlatformWithName("SIMGPU");
  ASSERT_TRUE(sim.ok()) << sim.status();
  EXPECT_EQ((*sim)->Name(), "SimGPU");
  // The registered SimGPU is the process-wide default instance.
  EXPECT_EQ(*sim, *GetSimGPUPlatform(""));
  EXPECT_EQ(*PlatformManager::PlatformWithName("SimGPU"), *sim);
}

TEST(PlatformManagerTest, UnknownNameIsNotFoundListingTheRegisteredNames) {
  absl::StatusOr<Platform*> p = PlatformManager::PlatformWithName("TPU");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(p.status().message().find("TPU"), absl::string_view::npos) << p.status();
  EXPECT_NE(p.status().message().find("Host"), absl::string_view::npos) << p.status();
  EXPECT_NE(p.status().message().find("SimGPU"), absl::string_view::npos) << p.status();
}

TEST(PlatformManagerTest, RegisteredPlatformsAreFoundAndNamesAreUnique) {
  ASSERT_TRUE(PlatformManager::RegisterPlatform(std::make_unique<NamedPlatform>("Toy")).ok());
  absl::StatusOr<Platform*> toy = PlatformManager::PlatformWithName("toy");
  ASSERT_TRUE(toy.ok()) << toy.status();
  EXPECT_EQ((*toy)->Name(), "Toy");
  EXPECT_EQ(PlatformManager::RegisterPlatform(std::make_unique<NamedPlatform>("TOY")).code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(PlatformManager::RegisterPlatform(std::make_unique<NamedPlatform>("host")).code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(PlatformManager::RegisterPlatform(nullptr).code(),
            absl::StatusCode::kInvalidArgument);

  const std::vector<std::string> names = PlatformManager::PlatformNames();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  for (const char* name : {"Host", "SimGPU", "Toy"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  }
}

}  // namespace
}  // namespace minitf::se
