#include "stream/cuda/cudnn_plan_cache.h"

namespace minitf::se::cuda {

const ConvolutionPlan* ConvolutionPlanCache::Find(const Key& key) const {
  MutexLock lock(&mu_);
  auto it = plans_.find(key);
  return it == plans_.end() ? nullptr : it->second.get();
}

const ConvolutionPlan* ConvolutionPlanCache::Insert(const Key& key,
                                                    std::unique_ptr<ConvolutionPlan> plan) {
  MutexLock lock(&mu_);
  // try_emplace leaves `plan` alone when the key is there.
  return plans_.try_emplace(key, std::move(plan)).first->second.get();
}

size_t ConvolutionPlanCache::size() const {
  MutexLock lock(&mu_);
  return plans_.size();
}

}  // namespace minitf::se::cuda
