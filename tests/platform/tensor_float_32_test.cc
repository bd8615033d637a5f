#include "platform/tensor_float_32.h"

#include <cstdlib>

#include "gtest/gtest.h"

namespace minitf {
namespace {

class TensorFloat32Test : public ::testing::Test {
 protected:
  void TearDown() override { EnableTensorFloat32Execution(true); }
};

TEST_F(TensorFloat32Test, OnByDefaultAsInTensorFlow) {
  EXPECT_TRUE(TensorFloat32ExecutionEnabled());
}

TEST_F(TensorFloat32Test, TurnedOffAndOnAgain) {
  EnableTensorFloat32Execution(false);
  EXPECT_FALSE(TensorFloat32ExecutionEnabled());
  EnableTensorFloat32Execution(true);
  EXPECT_TRUE(TensorFloat32ExecutionEnabled());
}

// The variable is read once per process, at the first query: each case
// runs in a fresh process (the threadsafe death-test style re-executes the
// binary), sets it first and exits 0 when TF32 is as expected.
void ExpectInFreshProcess(const char* override_value, bool enable, bool expected) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("NVIDIA_TF32_OVERRIDE", override_value, 1);
        EnableTensorFloat32Execution(enable);
        std::exit(TensorFloat32ExecutionEnabled() == expected ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "")
      << "NVIDIA_TF32_OVERRIDE=" << override_value << ", enabled " << enable;
}

TEST(TensorFloat32DeathTest, NvidiaOverrideZeroKeepsItOff) {
  ExpectInFreshProcess("0", true, false);
  ExpectInFreshProcess("0", false, false);
}

TEST(TensorFloat32DeathTest, OnlyZeroOverrides) {
  // NVIDIA's libraries act only on "0"; any other value leaves the switch.
  ExpectInFreshProcess("1", true, true);
  ExpectInFreshProcess("1", false, false);
}

}  // namespace
}  // namespace minitf
