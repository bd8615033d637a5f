#include "platform/tensor_float_32.h"

#include <cstdlib>

#include "gtest/gtest.h"

namespace minitf {
namespace {

class TensorFloat32Test : public ::testing::Test {
 protected:
  void TearDown() override {
    unsetenv("NVIDIA_TF32_OVERRIDE");
    EnableTensorFloat32Execution(true);
  }
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

TEST_F(TensorFloat32Test, NvidiaOverrideZeroKeepsItOff) {
  setenv("NVIDIA_TF32_OVERRIDE", "0", 1);
  EXPECT_FALSE(TensorFloat32ExecutionEnabled());
  EnableTensorFloat32Execution(true);
  EXPECT_FALSE(TensorFloat32ExecutionEnabled());
}

TEST_F(TensorFloat32Test, OnlyZeroOverrides) {
  // NVIDIA's libraries act only on "0"; any other value leaves the default.
  setenv("NVIDIA_TF32_OVERRIDE", "1", 1);
  EXPECT_TRUE(TensorFloat32ExecutionEnabled());
  EnableTensorFloat32Execution(false);
  EXPECT_FALSE(TensorFloat32ExecutionEnabled());
}

}  // namespace
}  // namespace minitf
