// ConvolutionPlanCache keeps one plan per (direction, math mode, shape): a
// second plan for a key is dropped in favour of the first, and concurrent
// makers of one key end up sharing one plan. Needs no GPU (the plans carry
// no cuDNN descriptors).
#include "stream/cuda/cudnn_plan_cache.h"

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace minitf::se::cuda {
namespace {

dnn::ConvolutionDescriptor Conv(int64_t batch) {
  dnn::ConvolutionDescriptor c;
  c.batch = batch;
  c.in_rows = c.in_cols = 56;
  c.in_depth = 64;
  c.filter_rows = c.filter_cols = 3;
  c.out_depth = 64;
  c.out_rows = c.out_cols = 56;
  c.pad_top = c.pad_left = 1;
  return c;
}

std::unique_ptr<ConvolutionPlan> PlanWithAlgorithm(int algorithm) {
  auto plan = std::make_unique<ConvolutionPlan>();
  plan->algorithm = algorithm;
  plan->workspace_bytes = 1024 * algorithm;
  return plan;
}

using Key = ConvolutionPlanCache::Key;

TEST(ConvolutionPlanCacheTest, AShapeIsPlannedOnceAndFoundAfter) {
  ConvolutionPlanCache cache;
  const Key key{ConvolutionDirection::kForward, false, Conv(32)};
  EXPECT_EQ(cache.Find(key), nullptr);
  const ConvolutionPlan* kept = cache.Insert(key, PlanWithAlgorithm(1));
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(cache.Find(key), kept);
  EXPECT_EQ(cache.Find(key)->algorithm, 1);
  // A second maker of the same key gets the first plan back.
  EXPECT_EQ(cache.Insert(key, PlanWithAlgorithm(7)), kept);
  EXPECT_EQ(kept->algorithm, 1);
  EXPECT_EQ(cache.size(), 1u);
}

TEST(ConvolutionPlanCacheTest, DirectionMathModeAndEveryShapeFieldAreTheKey) {
  ConvolutionPlanCache cache;
  const dnn::ConvolutionDescriptor base = Conv(32);
  cache.Insert({ConvolutionDirection::kForward, false, base}, PlanWithAlgorithm(1));
  cache.Insert({ConvolutionDirection::kBackwardData, false, base}, PlanWithAlgorithm(2));
  cache.Insert({ConvolutionDirection::kBackwardFilter, false, base}, PlanWithAlgorithm(3));
  cache.Insert({ConvolutionDirection::kForward, true, base}, PlanWithAlgorithm(4));
  EXPECT_EQ(cache.size(), 4u);
  // Each field of the shape makes another key.
  std::vector<dnn::ConvolutionDescriptor> changed(13, base);
  int64_t dnn::ConvolutionDescriptor::*fields[] = {
      &dnn::ConvolutionDescriptor::batch,       &dnn::ConvolutionDescriptor::in_rows,
      &dnn::ConvolutionDescriptor::in_cols,     &dnn::ConvolutionDescriptor::in_depth,
      &dnn::ConvolutionDescriptor::filter_rows, &dnn::ConvolutionDescriptor::filter_cols,
      &dnn::ConvolutionDescriptor::out_depth,   &dnn::ConvolutionDescriptor::out_rows,
      &dnn::ConvolutionDescriptor::out_cols,    &dnn::ConvolutionDescriptor::stride_rows,
      &dnn::ConvolutionDescriptor::stride_cols, &dnn::ConvolutionDescriptor::pad_top,
      &dnn::ConvolutionDescriptor::pad_left};
  for (int i = 0; i < 13; ++i) {
    changed[i].*fields[i] += 1;
    const Key key{ConvolutionDirection::kForward, false, changed[i]};
    EXPECT_EQ(cache.Find(key), nullptr) << "field " << i;
    cache.Insert(key, PlanWithAlgorithm(10 + i));
  }
  EXPECT_EQ(cache.size(), 17u);
  EXPECT_EQ(cache.Find({ConvolutionDirection::kBackwardFilter, false, base})->algorithm, 3);
  EXPECT_EQ(cache.Find({ConvolutionDirection::kForward, true, base})->algorithm, 4);
}

TEST(ConvolutionPlanCacheTest, ConcurrentMakersOfOneShapeShareOnePlan) {
  ConvolutionPlanCache cache;
  constexpr int kThreads = 8, kShapes = 50;
  std::vector<std::vector<const ConvolutionPlan*>> seen(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int s = 0; s < kShapes; ++s) {
        const Key key{ConvolutionDirection::kForward, false, Conv(s + 1)};
        const ConvolutionPlan* plan = cache.Find(key);
        if (plan == nullptr) plan = cache.Insert(key, PlanWithAlgorithm(t));
        seen[t].push_back(plan);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(cache.size(), static_cast<size_t>(kShapes));
  for (int t = 1; t < kThreads; ++t) EXPECT_EQ(seen[t], seen[0]) << "thread " << t;
}

}  // namespace
}  // namespace minitf::se::cuda
