// Kernel: UnsortedSegmentSum on CPU (SimGPU twins wrap it; num_segments is
// read on the host). data is viewed as [n, inner] with n the element count
// of segment_ids; row j is added to output row segment_ids[j].
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/kernels/sum_accumulator.h"
#include "ops/util/index_values.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

namespace minitf {
namespace {

template <typename T>
class UnsortedSegmentSumOp : public OpKernel {
 public:
  explicit UnsortedSegmentSumOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& segment_ids = ctx->input(1);
    const Tensor& num_segments_t = ctx->input(2);
    OP_REQUIRES(ctx, num_segments_t.dims() == 0,
                Error(absl::StrCat("num_segments should be a scalar, not shape ",
                                   num_segments_t.shape().DebugString())));
    absl::StatusOr<int64_t> num_segments = IndexScalar(num_segments_t, "num_segments");
    OP_REQUIRES(ctx, num_segments.ok(), AttachNodeName(num_segments.status(), def()));
    OP_REQUIRES(ctx, *num_segments >= 0,
                Error(absl::StrCat("num_segments must be non-negative, got ", *num_segments)));
    bool prefix = segment_ids.dims() <= data.dims();
    for (int d = 0; prefix && d < segment_ids.dims(); ++d) {
      prefix = segment_ids.dim_size(d) == data.dim_size(d);
    }
    OP_REQUIRES(ctx, prefix,
                Error(absl::StrCat("data.shape = ", data.shape().DebugString(),
                                   " does not start with segment_ids.shape = ",
                                   segment_ids.shape().DebugString())));
    TensorShape out_shape({*num_segments});
    for (int d = segment_ids.dims(); d < data.dims(); ++d) out_shape.AddDim(data.dim_size(d));
    absl::StatusOr<std::vector<int64_t>> ids = IndexValues(segment_ids, "segment_ids");
    OP_REQUIRES(ctx, ids.ok(), AttachNodeName(ids.status(), def()));
    for (int64_t j = 0; j < static_cast<int64_t>(ids->size()); ++j) {
      OP_REQUIRES(ctx, (*ids)[j] < *num_segments,
                  Error(absl::StrCat("segment_ids[", j, "] = ", (*ids)[j],
                                     " is out of range [0, ", *num_segments, ")")));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    T* o = out->flat<T>().data();
    const int64_t total = out->NumElements();
    // The rows add up in SumAccumulator<T> (double for float), so a segment
    // of millions of rows keeps TensorFlow's accuracy.
    std::vector<Acc> sums(static_cast<size_t>(total), Acc(0));
    if (!ids->empty() && data.NumElements() > 0) {
      const int64_t inner = data.NumElements() / static_cast<int64_t>(ids->size());
      const T* x = data.flat<T>().data();
      for (int64_t j = 0; j < static_cast<int64_t>(ids->size()); ++j) {
        const int64_t id = (*ids)[j];
        if (id < 0) continue;  // Negative ids are dropped, as in TensorFlow.
        Acc* row = sums.data() + id * inner;
        const T* in = x + j * inner;
        for (int64_t k = 0; k < inner; ++k) row[k] += static_cast<Acc>(in[k]);
      }
    }
    for (int64_t k = 0; k < total; ++k) o[k] = static_cast<T>(sums[k]);
  }

 private:
  using Acc = SumAccumulator<T>;

  absl::Status Error(absl::string_view message) const {
    return AttachNodeName(absl::InvalidArgumentError(message), def());
  }
};

#define MINITF_REGISTER_SEGMENT_SUM_(T)                              \
  REGISTER_KERNEL_BUILDER(Name("UnsortedSegmentSum")                 \
                              .Device(DEVICE_CPU)                    \
                              .TypeConstraint<T>("T")                \
                              .HostMemory("num_segments"),           \
                          UnsortedSegmentSumOp<T>)
MINITF_REGISTER_SEGMENT_SUM_(float);
MINITF_REGISTER_SEGMENT_SUM_(double);
MINITF_REGISTER_SEGMENT_SUM_(int32_t);
MINITF_REGISTER_SEGMENT_SUM_(int64_t);
#undef MINITF_REGISTER_SEGMENT_SUM_

}  // namespace
}  // namespace minitf
