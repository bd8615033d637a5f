// Kernel: Unique on CPU (its SimGPU twin wraps it: y's length is only known
// by running it, so it runs in timing mode too). One pass over x with a hash
// map from value to its position in y; y keeps first-appearance order, as
// TensorFlow's does.
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

template <typename T, typename TIndex>
class UniqueOp : public OpKernel {
 public:
  explicit UniqueOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, x.dims() == 1,
                AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                                   "unique expects a 1D vector, got shape ",
                                   x.shape().DebugString())),
                               def()));
    const int64_t n = x.NumElements();
    OP_REQUIRES(ctx, n <= static_cast<int64_t>(std::numeric_limits<TIndex>::max()),
                AttachNodeName(absl::InvalidArgumentError(absl::StrCat(
                                   "unique of ", n, " elements does not fit out_idx ",
                                   DataTypeString(DataTypeToEnum<TIndex>::value))),
                               def()));
    Tensor* idx = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, x.shape(), &idx));
    const T* in = x.flat<T>().data();
    TIndex* positions = idx->flat<TIndex>().data();
    absl::flat_hash_map<T, TIndex> seen;
    std::vector<T> distinct;
    for (int64_t i = 0; i < n; ++i) {
      auto [it, inserted] = seen.try_emplace(in[i], static_cast<TIndex>(distinct.size()));
      if (inserted) distinct.push_back(in[i]);
      positions[i] = it->second;
    }
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, TensorShape({static_cast<int64_t>(distinct.size())}), &y));
    T* out = y->flat<T>().data();
    for (size_t i = 0; i < distinct.size(); ++i) out[i] = distinct[i];
  }
};

#define MINITF_REGISTER_UNIQUE_(T)                                                         \
  REGISTER_KERNEL_BUILDER(                                                                 \
      Name("Unique").Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint<int32_t>(    \
          "out_idx"),                                                                      \
      UniqueOp<T, int32_t>);                                                               \
  REGISTER_KERNEL_BUILDER(                                                                 \
      Name("Unique").Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint<int64_t>(    \
          "out_idx"),                                                                      \
      UniqueOp<T, int64_t>)
MINITF_REGISTER_UNIQUE_(float);
MINITF_REGISTER_UNIQUE_(double);
MINITF_REGISTER_UNIQUE_(int32_t);
MINITF_REGISTER_UNIQUE_(int64_t);
MINITF_REGISTER_UNIQUE_(bool);
#undef MINITF_REGISTER_UNIQUE_

}  // namespace
}  // namespace minitf
