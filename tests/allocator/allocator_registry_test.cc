#include "allocator/allocator_registry.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "platform/host_memory.h"

namespace minitf {
namespace {

// An allocator that only has a name.
class NamedAllocator final : public Allocator {
 public:
  explicit NamedAllocator(std::string name) : name_(std::move(name)) {}
  std::string Name() const override { return name_; }
  void* AllocateRaw(size_t, size_t, const AllocationAttributes&) override { return nullptr; }
  void DeallocateRaw(void*) override {}

 private:
  std::string name_;
};

template <const char* kName>
class NamedFactory final : public AllocatorFactory {
 public:
  std::unique_ptr<Allocator> CreateAllocator() override {
    return std::make_unique<NamedAllocator>(kName);
  }
};

constexpr char kLow[] = "low";
constexpr char kHigh[] = "high";
constexpr char kMid[] = "mid";

TEST(AllocatorRegistryTest, HighestPriorityWinsAndIsCreatedOnce) {
  AllocatorFactoryRegistry registry;
  EXPECT_EQ(registry.GetAllocator(), nullptr);
  registry.Register("low", 1, std::make_unique<NamedFactory<kLow>>());
  registry.Register("high", 30, std::make_unique<NamedFactory<kHigh>>());
  registry.Register("mid", 20, std::make_unique<NamedFactory<kMid>>());
  EXPECT_EQ(registry.Names(), (std::vector<std::string>{"high", "mid", "low"}));
  Allocator* a = registry.GetAllocator();
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->Name(), "high");
  EXPECT_EQ(registry.GetAllocator(), a);
}

TEST(AllocatorRegistryTest, PreferredNameIsChosenAndUnknownFallsBack) {
  AllocatorFactoryRegistry by_name;
  by_name.Register("low", 1, std::make_unique<NamedFactory<kLow>>());
  by_name.Register("high", 30, std::make_unique<NamedFactory<kHigh>>());
  EXPECT_EQ(by_name.GetAllocator("low")->Name(), "low");

  AllocatorFactoryRegistry unknown;
  unknown.Register("low", 1, std::make_unique<NamedFactory<kLow>>());
  unknown.Register("high", 30, std::make_unique<NamedFactory<kHigh>>());
  EXPECT_EQ(unknown.GetAllocator("nonesuch")->Name(), "high");
}

TEST(AllocatorRegistryTest, DuplicateNameOrPriorityIsRefused) {
  AllocatorFactoryRegistry registry;
  registry.Register("low", 1, std::make_unique<NamedFactory<kLow>>());
  registry.Register("low", 40, std::make_unique<NamedFactory<kHigh>>());
  registry.Register("mid", 1, std::make_unique<NamedFactory<kMid>>());
  EXPECT_EQ(registry.Names(), (std::vector<std::string>{"low"}));
  EXPECT_EQ(registry.GetAllocator()->Name(), "low");
}

class LowPriorityTestFactory final : public AllocatorFactory {
 public:
  std::unique_ptr<Allocator> CreateAllocator() override {
    return std::make_unique<NamedAllocator>("test_low");
  }
};
REGISTER_MEM_ALLOCATOR("TestLowPriorityAllocator", 5, LowPriorityTestFactory);

TEST(AllocatorRegistryTest, ProcessCpuAllocatorIsTheBFCOne) {
  const std::vector<std::string> names = AllocatorFactoryRegistry::Global()->Names();
  ASSERT_GE(names.size(), 3u);
  EXPECT_EQ(names[0], "BFCCPUAllocator");
  EXPECT_NE(std::find(names.begin(), names.end(), "DefaultCPUAllocator"), names.end());
  EXPECT_EQ(names.back(), "TestLowPriorityAllocator");
  if (std::getenv("MINITF_CPU_ALLOCATOR") == nullptr) {
    EXPECT_EQ(cpu_allocator()->Name(), "cpu_bfc");
    EXPECT_TRUE(cpu_allocator()->TracksAllocationSizes());
  }
  void* p = cpu_allocator()->AllocateRaw(Allocator::kAllocatorAlignment, 100);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % Allocator::kAllocatorAlignment, 0u);
  cpu_allocator()->DeallocateRaw(p);
}

// The process's host allocator (either one MINITF_CPU_ALLOCATOR picks) is
// limited to what the process may have, and refuses more at once.
TEST(AllocatorRegistryTest, ProcessCpuAllocatorIsLimitedByTheMachine) {
  const int64_t machine = HostMemoryLimitBytes();
  ASSERT_GT(machine, 0);
  const std::optional<AllocatorStats> stats = cpu_allocator()->GetStats();
  ASSERT_TRUE(stats.has_value());
  ASSERT_TRUE(stats->bytes_limit.has_value());
  EXPECT_LE(*stats->bytes_limit, machine);
  EXPECT_EQ(cpu_allocator()->AllocateRaw(Allocator::kAllocatorAlignment,
                                         static_cast<size_t>(machine) + 1),
            nullptr);
}

}  // namespace
}  // namespace minitf
