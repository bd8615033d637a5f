// The training examples' flags: good values are read; a bad one is refused
// with a message naming the flag, before any training starts.
#include "examples/example_flags.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace minitf {
namespace {

using ::testing::HasSubstr;

// Parses `args` (after the program name); the message printed, if any, in
// `*printed`.
bool Parse(std::vector<std::string> args, ExampleFlags* flags, std::string* printed) {
  args.insert(args.begin(), "train_test");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  testing::internal::CaptureStderr();
  const bool ok = ParseExampleFlags(static_cast<int>(argv.size()), argv.data(), flags);
  *printed = testing::internal::GetCapturedStderr();
  return ok;
}

TEST(ExampleFlagsTest, ReadsEveryFlagInBothForms) {
  ExampleFlags flags;
  std::string printed;
  ASSERT_TRUE(Parse({"--steps=7", "--learning_rate", "0.25", "--print_every=3", "--device", "GPU"},
                    &flags, &printed))
      << printed;
  EXPECT_EQ(flags.steps, 7);
  EXPECT_EQ(flags.learning_rate, 0.25f);
  EXPECT_EQ(flags.print_every, 3);
  EXPECT_EQ(flags.device, "/device:GPU:0");
  EXPECT_EQ(printed, "");
}

TEST(ExampleFlagsTest, NonFiniteOrOutOfRangeNumbersAreRefusedNamingTheFlag) {
  struct Case {
    std::vector<std::string> args;
    const char* expected;
  };
  const std::vector<Case> cases = {
      // A learning rate of inf or nan trains to NaN; 1e39 is inf as a float.
      {{"--learning_rate=inf"}, "--learning_rate wants a finite number > 0, got 'inf'"},
      {{"--learning_rate", "nan"}, "--learning_rate wants a finite number > 0, got 'nan'"},
      {{"--learning_rate=1e39"}, "--learning_rate wants a finite number > 0, got '1e39'"},
      {{"--learning_rate=-0.1"}, "--learning_rate wants a finite number > 0, got '-0.1'"},
      {{"--steps=0"}, "--steps wants an integer in 1..2147483647, got '0'"},
      {{"--steps=3000000000"}, "--steps wants an integer in 1..2147483647, got '3000000000'"},
      {{"--steps=1e3"}, "--steps wants an integer in 1..2147483647, got '1e3'"},
      {{"--print_every=inf"}, "--print_every wants an integer in 1..2147483647, got 'inf'"},
      {{"--device=TPU"}, "--device wants CPU or GPU, got 'TPU'"},
      {{"--stepz=3"}, "unknown flag '--stepz'"},
      {{"--steps"}, "--steps wants a value"},
  };
  for (const Case& c : cases) {
    ExampleFlags flags;
    std::string printed;
    EXPECT_FALSE(Parse(c.args, &flags, &printed)) << c.expected;
    EXPECT_THAT(printed, HasSubstr(c.expected));
    EXPECT_THAT(printed, HasSubstr("usage: train_test"));
  }
}

}  // namespace
}  // namespace minitf
