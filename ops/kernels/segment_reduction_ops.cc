// Kernel: UnsortedSegmentSum on CPU (SimGPU twins wrap it) and, for float,
// on CUDA GPUs (segment_reduction_ops_gpu.cu); num_segments is read on the
// host. data is viewed as [n, inner] with n the element count of
// segment_ids; row j is added to output row segment_ids[j] (negative ids are
// dropped, as in TensorFlow; an id >= num_segments fails the node on every
// device).
//
// UnsortedSegmentSumOp<T, Device> checks the inputs and ids and allocates
// the output; a device supplies
//   FindBadIndex, by inheriting HostIndexCheck or CudaIndexCheck;
//   static absl::Status Sum(OpKernelContext*, const Tensor& data, const Tensor& segment_ids,
//                           Tensor* out);
#include <algorithm>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "ops/kernels/index_checks.h"
#include "ops/kernels/sum_accumulator.h"
#include "ops/util/index_values.h"
#include "platform/status_macros.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_requires.h"

#ifdef MINITF_WITH_CUDA
#include "ops/kernels/cuda/cuda_indices.h"
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/segment_reduction_ops_gpu.h"
#endif

namespace minitf {
namespace {

template <typename T, typename Device>
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
    absl::StatusOr<std::optional<BadIndex>> bad =
        Device::FindBadIndex(ctx, 1, kNoLowerBound, *num_segments);
    OP_REQUIRES(ctx, bad.ok(), bad.status());
    OP_REQUIRES(ctx, !bad->has_value(),
                Error(absl::StrCat("segment_ids[", (*bad)->position, "] = ", (*bad)->value,
                                   " is out of range [0, ", *num_segments, ")")));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    OP_REQUIRES_OK(ctx, Device::Sum(ctx, data, segment_ids, out));
  }

 private:
  absl::Status Error(absl::string_view message) const {
    return AttachNodeName(absl::InvalidArgumentError(message), def());
  }
};

// The rows add up in SumAccumulator<T> (double for float), so a segment of
// millions of rows keeps TensorFlow's accuracy. Only the segments that occur
// get an accumulator (a batch of token ids names a few of a vocabulary's
// rows), held as a temporary of the step: an embedding's gradient no longer
// asks for fresh pages (and clears them) for its whole table at every step.
template <typename T>
struct CpuSegmentSum : HostIndexCheck {
  static absl::Status Sum(OpKernelContext* ctx, const Tensor& data, const Tensor& segment_ids,
                          Tensor* out) {
    using Acc = SumAccumulator<T>;
    absl::StatusOr<std::vector<int64_t>> ids = IndexValues(segment_ids, "segment_ids");
    if (!ids.ok()) return ids.status();
    T* o = out->flat<T>().data();
    std::fill_n(o, out->NumElements(), T(0));
    if (ids->empty() || data.NumElements() == 0) return absl::OkStatus();
    const int64_t inner = data.NumElements() / static_cast<int64_t>(ids->size());
    // Each occurring segment's accumulator row, in order of first
    // occurrence, and each data row's accumulator row (-1: dropped).
    absl::flat_hash_map<int64_t, int64_t> row_of;
    std::vector<int64_t> segments;
    std::vector<int64_t> target(ids->size(), -1);
    for (size_t j = 0; j < ids->size(); ++j) {
      const int64_t id = (*ids)[j];
      if (id < 0) continue;
      const auto [it, added] = row_of.emplace(id, static_cast<int64_t>(segments.size()));
      if (added) segments.push_back(id);
      target[j] = it->second;
    }
    Tensor sums_tensor;
    MINITF_RETURN_IF_ERROR(ctx->allocate_temp(
        DataTypeToEnum<Acc>::value,
        TensorShape({static_cast<int64_t>(segments.size()) * inner}), &sums_tensor));
    Acc* sums = sums_tensor.flat<Acc>().data();
    std::fill_n(sums, sums_tensor.NumElements(), Acc(0));
    const T* x = data.flat<T>().data();
    for (int64_t j = 0; j < static_cast<int64_t>(ids->size()); ++j) {
      if (target[j] < 0) continue;
      Acc* row = sums + target[j] * inner;
      const T* in = x + j * inner;
      for (int64_t k = 0; k < inner; ++k) row[k] += static_cast<Acc>(in[k]);
    }
    for (size_t s = 0; s < segments.size(); ++s) {
      T* dst = o + segments[s] * inner;
      const Acc* src = sums + static_cast<int64_t>(s) * inner;
      for (int64_t k = 0; k < inner; ++k) dst[k] = static_cast<T>(src[k]);
    }
    return absl::OkStatus();
  }
};

#define MINITF_REGISTER_SEGMENT_SUM_(T)                    \
  REGISTER_KERNEL_BUILDER(Name("UnsortedSegmentSum")       \
                              .Device(DEVICE_CPU)          \
                              .TypeConstraint<T>("T")      \
                              .HostMemory("num_segments"), \
                          UnsortedSegmentSumOp<T, CpuSegmentSum<T>>)
MINITF_REGISTER_SEGMENT_SUM_(float);
MINITF_REGISTER_SEGMENT_SUM_(double);
MINITF_REGISTER_SEGMENT_SUM_(int32_t);
MINITF_REGISTER_SEGMENT_SUM_(int64_t);
#undef MINITF_REGISTER_SEGMENT_SUM_

#ifdef MINITF_WITH_CUDA
// float, added up in float by atomicAdd (TensorFlow's GPU kernel too).
struct CudaSegmentSum : CudaIndexCheck {
  static absl::Status Sum(OpKernelContext* ctx, const Tensor& data, const Tensor&, Tensor* out) {
    MINITF_ASSIGN_OR_RETURN(Tensor ids, IndicesOnDevice(ctx, 1));
    const int64_t num_segments = out->dim_size(0);
    const int64_t inner = num_segments == 0 ? 0 : out->NumElements() / num_segments;
    return LaunchOnComputeStream(ctx, "UnsortedSegmentSum", [&](cudaStream_t stream) {
      return gpu::LaunchUnsortedSegmentSum(stream, data.data<float>(), ids.raw_data(),
                                           ids.dtype() == DT_INT64, ids.NumElements(), inner,
                                           num_segments, out->data<float>());
    });
  }
};

// int32 ids stay in host memory (as every int32 tensor on a GPU:
// memory_types.h), are checked there and copied over.
REGISTER_KERNEL_BUILDER(Name("UnsortedSegmentSum")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint<float>("T")
                            .TypeConstraint<int32_t>("Tindices")
                            .HostMemory("segment_ids")
                            .HostMemory("num_segments"),
                        UnsortedSegmentSumOp<float, CudaSegmentSum>);
REGISTER_KERNEL_BUILDER(Name("UnsortedSegmentSum")
                            .Device(DEVICE_GPU)
                            .Platform("CUDA")
                            .TypeConstraint<float>("T")
                            .TypeConstraint<int64_t>("Tindices")
                            .HostMemory("num_segments"),
                        UnsortedSegmentSumOp<float, CudaSegmentSum>);
#endif  // MINITF_WITH_CUDA

}  // namespace
}  // namespace minitf
