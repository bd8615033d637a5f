// throughput.csv's bins: equal widths that span the run exactly, so the
// plot's last point is a rate over a whole bin, not one step over a sliver.
#include "bench/harness/report.h"

#include <vector>

#include "gtest/gtest.h"

namespace minitf::harness {
namespace {

// One job with a step ending at every `times` entry.
ExperimentResult OneJob(double wall_s, const std::vector<double>& times) {
  ExperimentResult result;
  result.wall_s = wall_s;
  JobResult job;
  job.spec.name = "job";
  int64_t step = 0;
  for (double t : times) {
    StepRecord r;
    r.time_s = t;
    r.step = ++step;
    job.steps.push_back(r);
  }
  result.jobs.push_back(std::move(job));
  return result;
}

TEST(ThroughputBinsTest, BinsHaveOneWidthAndEndWithTheRun) {
  // A step every second, the run ending 0.06 s after a whole second with a
  // step in those 0.06 s: a 1 s grid would leave a last bin of 0.06 s
  // reporting that one step as 16 steps/s.
  std::vector<double> times;
  for (int i = 0; i < 45; ++i) times.push_back(i + 0.5);
  times.push_back(45.03);
  const ExperimentResult result = OneJob(45.06, times);
  const std::vector<ThroughputBin> bins = ThroughputBins(result);
  ASSERT_EQ(bins.size(), 45u);
  EXPECT_DOUBLE_EQ(bins.front().from_s, 0);
  EXPECT_DOUBLE_EQ(bins.back().to_s, 45.06);
  const double width = 45.06 / 45;
  double steps = 0;
  for (size_t i = 0; i < bins.size(); ++i) {
    EXPECT_NEAR(bins[i].to_s - bins[i].from_s, width, 1e-9) << "bin " << i;
    if (i > 0) {
      EXPECT_DOUBLE_EQ(bins[i].from_s, bins[i - 1].to_s) << "bin " << i;
    }
    ASSERT_EQ(bins[i].steps_per_s.size(), 1u);
    // At most two steps end in any bin of just over a second.
    EXPECT_LE(bins[i].steps_per_s[0], 2 / width + 1e-9) << "bin " << i;
    steps += bins[i].steps_per_s[0] * width;
  }
  // Every step is counted once.
  EXPECT_NEAR(steps, 46, 1e-6);
}

TEST(ThroughputBinsTest, ALongRunHasSixtyBinsAndAShortOneHasOne) {
  EXPECT_EQ(ThroughputBins(OneJob(600, {})).size(), 60u);
  const std::vector<ThroughputBin> short_run = ThroughputBins(OneJob(0.5, {0.25}));
  ASSERT_EQ(short_run.size(), 1u);
  EXPECT_DOUBLE_EQ(short_run[0].to_s, 0.5);
  EXPECT_DOUBLE_EQ(short_run[0].steps_per_s[0], 2);
  EXPECT_TRUE(ThroughputBins(OneJob(0, {})).empty());
}

}  // namespace
}  // namespace minitf::harness
