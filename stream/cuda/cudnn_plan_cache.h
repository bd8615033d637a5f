// ConvolutionPlanCache: cuDNN's choices for each convolution a device has
// run, made once per shape (TensorFlow's AutotuneMap, PyTorch's
// BenchmarkCache). A plan is the convolution's descriptors and the
// algorithm chosen for one direction, with its workspace size; the key is
// the direction, the shapes, strides and padding (dnn::ConvolutionDescriptor)
// and the math mode. DnnSupport takes only NHWC float tensors, so layout and
// dtype are the same for every key.
//
//   ConvolutionPlanCache::Key key{ConvolutionDirection::kForward, tf32, conv};
//   const ConvolutionPlan* plan = cache.Find(key);
//   if (plan == nullptr) plan = cache.Insert(key, MakePlan(...));
//
// Plans are never evicted, so a returned pointer lives as long as the cache.
// Thread-safe: a lookup holds the lock for one hash-map probe; plans are
// read-only and shared by concurrent calls.
#ifndef MINITF_STREAM_CUDA_CUDNN_PLAN_CACHE_H_
#define MINITF_STREAM_CUDA_CUDNN_PLAN_CACHE_H_

#include <cstddef>
#include <memory>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "platform/mutex.h"
#include "stream/cuda/cudnn_descriptors.h"
#include "stream/dnn.h"

namespace minitf::se::cuda {

enum class ConvolutionDirection { kForward, kBackwardData, kBackwardFilter };

struct ConvolutionPlan {
  CudnnConvolution descriptors;
  // A cudnnConvolution{Fwd,BwdData,BwdFilter}Algo_t, by direction.
  int algorithm = 0;
  size_t workspace_bytes = 0;
  // Chosen by timing every algorithm (cudnnFind*), not by the heuristics.
  bool measured = false;
};

class ConvolutionPlanCache {
 public:
  struct Key {
    ConvolutionDirection direction;
    bool tf32;  // CUDNN_DEFAULT_MATH rather than CUDNN_FMA_MATH
    dnn::ConvolutionDescriptor conv;
    bool nchw = false;  // cuDNN runs in NCHW, the tensors transposed around it

    bool operator==(const Key&) const = default;
    template <typename H>
    friend H AbslHashValue(H h, const Key& k) {
      return H::combine(std::move(h), k.direction, k.tf32, k.conv, k.nchw);
    }
  };

  ConvolutionPlanCache() = default;
  ConvolutionPlanCache(const ConvolutionPlanCache&) = delete;
  ConvolutionPlanCache& operator=(const ConvolutionPlanCache&) = delete;

  // The plan for `key`; nullptr when none was made yet.
  const ConvolutionPlan* Find(const Key& key) const;

  // Keeps `plan` for `key` unless another caller made one first; returns the
  // kept plan either way.
  const ConvolutionPlan* Insert(const Key& key, std::unique_ptr<ConvolutionPlan> plan);

  size_t size() const;

 private:
  mutable Mutex mu_;
  absl::flat_hash_map<Key, std::unique_ptr<const ConvolutionPlan>> plans_ ABSL_GUARDED_BY(mu_);
};

}  // namespace minitf::se::cuda

#endif  // MINITF_STREAM_CUDA_CUDNN_PLAN_CACHE_H_
