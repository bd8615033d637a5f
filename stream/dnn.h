// DnnSupport: the deep-learning plugin of a StreamExecutor (cuDNN on CUDA).
// Float tensors in NHWC layout, filters in HWIO (TensorFlow's layouts).
//
//   ConvolutionDescriptor conv = ...;  // shapes, strides, padding
//   MINITF_RETURN_IF_ERROR(dnn->DoConvolve(stream, conv, input, filter, &output, &scratch));
//
// Each call enqueues its work on `stream` and returns enqueue-time errors.
#ifndef MINITF_STREAM_DNN_H_
#define MINITF_STREAM_DNN_H_

#include <cstdint>
#include <utility>

#include "absl/status/status.h"
#include "stream/device_memory.h"
#include "stream/scratch_allocator.h"

namespace minitf::se {

class Stream;

namespace dnn {

// A 2-D convolution or pooling window over NHWC tensors.
struct ConvolutionDescriptor {
  int64_t batch = 0;
  int64_t in_rows = 0, in_cols = 0, in_depth = 0;
  int64_t filter_rows = 0, filter_cols = 0, out_depth = 0;  // out_depth: conv only
  int64_t out_rows = 0, out_cols = 0;
  int64_t stride_rows = 1, stride_cols = 1;
  // Padding before the first row / column (SAME padding may pad one more
  // after the last, which the shapes above imply).
  int64_t pad_top = 0, pad_left = 0;

  bool operator==(const ConvolutionDescriptor&) const = default;

  // Hashes every field (a key of cuDNN's plan cache).
  template <typename H>
  friend H AbslHashValue(H h, const ConvolutionDescriptor& c) {
    return H::combine(std::move(h), c.batch, c.in_rows, c.in_cols, c.in_depth, c.filter_rows,
                      c.filter_cols, c.out_depth, c.out_rows, c.out_cols, c.stride_rows,
                      c.stride_cols, c.pad_top, c.pad_left);
  }
};

}  // namespace dnn

class DnnSupport {
 public:
  virtual ~DnnSupport() = default;

  // The convolutions take their scratch (workspaces, relaid-out operands)
  // from `scratch_allocator`, or from the plugin's own pool when it is null.

  // output[N, out_rows, out_cols, out_depth] = conv(input, filter[HWIO]).
  virtual absl::Status DoConvolve(Stream* stream, const dnn::ConvolutionDescriptor& conv,
                                  const DeviceMemory<float>& input,
                                  const DeviceMemory<float>& filter, DeviceMemory<float>* output,
                                  ScratchAllocator* scratch_allocator) = 0;
  // The gradient with respect to the input.
  virtual absl::Status DoConvolveBackwardData(Stream* stream,
                                              const dnn::ConvolutionDescriptor& conv,
                                              const DeviceMemory<float>& filter,
                                              const DeviceMemory<float>& out_backprop,
                                              DeviceMemory<float>* in_backprop,
                                              ScratchAllocator* scratch_allocator) = 0;
  // The gradient with respect to the filter.
  virtual absl::Status DoConvolveBackwardFilter(Stream* stream,
                                                const dnn::ConvolutionDescriptor& conv,
                                                const DeviceMemory<float>& input,
                                                const DeviceMemory<float>& out_backprop,
                                                DeviceMemory<float>* filter_backprop,
                                                ScratchAllocator* scratch_allocator) = 0;
  // output = Relu(conv(input, filter) + bias), `bias` out_depth floats,
  // in the convolution's own call (cuDNN's fused convolution).
  // Unimplemented where the plugin has no such call or `conv` no work (a
  // zero size): the caller then adds the bias and applies the Relu itself.
  virtual absl::Status DoFusedConvolveBiasRelu(
      Stream* /*stream*/, const dnn::ConvolutionDescriptor& /*conv*/,
      const DeviceMemory<float>& /*input*/, const DeviceMemory<float>& /*filter*/,
      const DeviceMemory<float>& /*bias*/, DeviceMemory<float>* /*output*/,
      ScratchAllocator* /*scratch_allocator*/) {
    return absl::UnimplementedError("this DNN plugin has no fused convolution");
  }
  // Max pooling (out_depth unused: the depth is in_depth) and its gradient.
  virtual absl::Status DoMaxPool(Stream* stream, const dnn::ConvolutionDescriptor& pool,
                                 const DeviceMemory<float>& input,
                                 DeviceMemory<float>* output) = 0;
  virtual absl::Status DoMaxPoolBackward(Stream* stream, const dnn::ConvolutionDescriptor& pool,
                                         const DeviceMemory<float>& input,
                                         const DeviceMemory<float>& output,
                                         const DeviceMemory<float>& out_backprop,
                                         DeviceMemory<float>* in_backprop) = 0;
};

}  // namespace minitf::se

#endif  // MINITF_STREAM_DNN_H_
