// OpProfile (bench/harness/op_profile.h): per op type and device, summed
// over steps from their StepStats, and the table `minitf run --profile`
// prints.
#include "bench/harness/jobs/op_profile.h"

#include <string>

#include "gtest/gtest.h"

namespace minitf::harness {
namespace {

NodeExecStats Node(const std::string& op, int64_t start_us, int64_t end_us) {
  NodeExecStats n;
  n.node_name = op + "_node";
  n.op = op;
  n.op_start_rel_micros = start_us;
  n.op_end_rel_micros = end_us;
  return n;
}

StepStats Step() {
  StepStats s;
  s.dev_stats.push_back({"/job:localhost/replica:0/task:0/device:CPU:0",
                         {Node("MatMul", 0, 300), Node("MatMul", 10, 110), Node("Add", 0, 50)}});
  s.dev_stats.push_back(
      {"/job:localhost/replica:0/task:0/device:GPU:0", {Node("MatMul", 5, 55)}});
  return s;
}

TEST(OpProfileTest, SumsEachOpTypePerDeviceOverTheSteps) {
  OpProfile profile;
  profile.AddStep(Step(), 0.001);
  profile.AddStep(Step(), 0.003);
  EXPECT_EQ(profile.steps(), 2);
  EXPECT_DOUBLE_EQ(profile.step_seconds(), 0.004);
  EXPECT_NEAR(profile.node_seconds(), 2 * 500e-6, 1e-12);
  const std::vector<OpTypeTime> rows = profile.ByTime();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].op, "MatMul");
  EXPECT_EQ(rows[0].device, "CPU:0");
  EXPECT_EQ(rows[0].executions, 4);
  EXPECT_NEAR(rows[0].seconds, 800e-6, 1e-12);
  // Equal times: by op name, then device.
  EXPECT_EQ(rows[1].op, "Add");
  EXPECT_EQ(rows[1].device, "CPU:0");
  EXPECT_EQ(rows[2].op, "MatMul");
  EXPECT_EQ(rows[2].device, "GPU:0");
}

TEST(OpProfileTest, ANodeThatEndsBeforeItStartsCountsNoTime) {
  OpProfile profile;
  StepStats s;
  s.dev_stats.push_back({"CPU:0", {Node("NoOp", 20, 10)}});
  profile.AddStep(s, 0.001);
  ASSERT_EQ(profile.ByTime().size(), 1u);
  EXPECT_EQ(profile.ByTime()[0].executions, 1);
  EXPECT_EQ(profile.ByTime()[0].seconds, 0);
}

TEST(OpProfileTest, TheTableGivesPerStepFiguresSharesAndTheRest) {
  OpProfile profile;
  profile.AddStep(Step(), 0.001);
  profile.AddStep(Step(), 0.003);
  const std::string all = FormatOpProfile(profile);
  EXPECT_NE(all.find("profile of 2 steps: 0.500 ms of op time per step in 2.000 ms of wall time"),
            std::string::npos)
      << all;
  // MatMul on the CPU: 2 nodes a step, 0.4 ms a step, 200 us a node, 80 %.
  EXPECT_NE(all.find("MatMul                       CPU:0         2.0        0.400       200.0"
                     "    80.0    80.0"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("   100.0\n"), std::string::npos) << all;
  EXPECT_EQ(all.find("more op types"), std::string::npos) << all;
  const std::string top = FormatOpProfile(profile, 1);
  EXPECT_EQ(top.find("Add "), std::string::npos) << top;
  EXPECT_NE(top.find("(2 more op types)                          2.0"
                     "        0.100"),
            std::string::npos)
      << top;
}

}  // namespace
}  // namespace minitf::harness
