#include "ops/kernels/onednn_conv.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "ops/kernels/onednn_host.h"
#include "platform/logging.h"
#include "platform/mutex.h"

namespace minitf::functor {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;

// The process's oneDNN CPU engine and the stream calls run on, one call at
// a time (the header's "Threads").
class OneDnnHost {
 public:
  static OneDnnHost& Get() {
    static OneDnnHost* host = new OneDnnHost();
    return *host;
  }

  const dnnl::engine& engine() const { return engine_; }
  Mutex& mu() ABSL_LOCK_RETURNED(mu_) { return mu_; }
  dnnl::stream& stream() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stream_; }

 private:
  OneDnnHost() : engine_(MakeEngine()), stream_(engine_) {}

  static dnnl::engine MakeEngine() {
    // Before any kernel is made: later calls cannot change the cap.
    PrepareOneDnnCall(1);
    return dnnl::engine(dnnl::engine::kind::cpu, 0);
  }

  const dnnl::engine engine_;
  Mutex mu_;
  dnnl::stream stream_ ABSL_GUARDED_BY(mu_);
};

absl::Status FromDnnlError(const dnnl::error& e, absl::string_view what) {
  std::string message = absl::StrCat("oneDNN ", what, ": ", e.what());
  if (e.status == dnnl_unimplemented) return absl::UnimplementedError(message);
  if (e.status == dnnl_out_of_memory) return absl::ResourceExhaustedError(message);
  return absl::InternalError(message);
}

int64_t RoundUp64(int64_t bytes) { return (bytes + 63) / 64 * 64; }

}  // namespace

std::string HostConvolutionName() {
  if (!OneDnnEnabled()) return absl::StrCat("im2col and OpenBLAS (", WhyOneDnnOff(), ")");
  return OneDnnName();
}

// The primitive of one direction and where its filter side lives: `user`
// is the HWIO filter (or filter gradient) the caller holds, `kernel` the
// layout the primitive reads or writes; when they differ, the filter side
// is reordered through the workspace's first `reordered_bytes`.
struct OneDnnConv::Plan {
  dnnl::primitive primitive;
  memory::desc input;   // NHWC, the convolution's input (or its gradient).
  memory::desc output;  // NHWC, the convolution's output (or its gradient).
  memory::desc user_filter;
  memory::desc kernel_filter;
  memory::desc scratchpad;
  int64_t reordered_bytes = 0;  // 0: the kernel reads the user's filter.
  int64_t scratchpad_bytes = 0;
};

OneDnnConv::OneDnnConv(Direction direction, const Conv2DGeometry& g)
    : direction_(direction), g_(g) {}

OneDnnConv::~OneDnnConv() = default;

absl::StatusOr<int64_t> OneDnnConv::WorkspaceBytes() {
  if (plan_ == nullptr) {
    const Conv2DGeometry& g = g_;
    if (g.input_elements() == 0 || g.filter_elements() == 0 || g.output_elements() == 0) {
      return absl::UnimplementedError("oneDNN takes no empty tensor");
    }
    // oneDNN's sizes are in N, C, H, W (and O, I, H, W) order whatever the
    // layout; a dilation of 1 is its 0. Padding after: what the output size
    // needs, never negative (a VALID window leaves the input's last rows).
    const memory::dims in_dims = {g.batch, g.in_depth, g.in_rows, g.in_cols};
    const memory::dims out_dims = {g.batch, g.out_depth, g.out_rows, g.out_cols};
    const memory::dims filter_dims = {g.out_depth, g.in_depth, g.filter_rows, g.filter_cols};
    const memory::dims strides = {g.stride_rows, g.stride_cols};
    const memory::dims dilates = {g.dilation_rows - 1, g.dilation_cols - 1};
    const memory::dims pad_before = {g.pad_top, g.pad_left};
    const auto after = [](int64_t out, int64_t stride, int64_t window, int64_t dilation,
                          int64_t in, int64_t before) {
      return std::max<int64_t>(0, (out - 1) * stride + (window - 1) * dilation + 1 - in - before);
    };
    const memory::dims pad_after = {
        after(g.out_rows, g.stride_rows, g.filter_rows, g.dilation_rows, g.in_rows, g.pad_top),
        after(g.out_cols, g.stride_cols, g.filter_cols, g.dilation_cols, g.in_cols, g.pad_left)};
    auto plan = std::make_unique<Plan>();
    plan->input = memory::desc(in_dims, memory::data_type::f32, Tag::nhwc);
    plan->output = memory::desc(out_dims, memory::data_type::f32, Tag::nhwc);
    plan->user_filter = memory::desc(filter_dims, memory::data_type::f32, Tag::hwio);
    const memory::desc any_filter(filter_dims, memory::data_type::f32, Tag::any);
    try {
      const dnnl::engine& engine = OneDnnHost::Get().engine();
      dnnl::primitive_attr attr;
      attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
      const dnnl::convolution_forward::primitive_desc forward(
          dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training,
                                          dnnl::algorithm::convolution_direct, plan->input,
                                          any_filter, plan->output, strides, dilates, pad_before,
                                          pad_after),
          attr, engine);
      memory::desc& scratchpad = plan->scratchpad;
      switch (direction_) {
        case Direction::kForward:
          plan->kernel_filter = forward.weights_desc();
          scratchpad = forward.scratchpad_desc();
          plan->primitive = dnnl::convolution_forward(forward);
          break;
        case Direction::kBackpropInput: {
          const dnnl::convolution_backward_data::primitive_desc pd(
              dnnl::convolution_backward_data::desc(dnnl::algorithm::convolution_direct,
                                                    plan->input, any_filter, plan->output,
                                                    strides, dilates, pad_before, pad_after),
              attr, engine, forward);
          plan->kernel_filter = pd.weights_desc();
          scratchpad = pd.scratchpad_desc();
          plan->primitive = dnnl::convolution_backward_data(pd);
          break;
        }
        case Direction::kBackpropFilter: {
          const dnnl::convolution_backward_weights::primitive_desc pd(
              dnnl::convolution_backward_weights::desc(dnnl::algorithm::convolution_direct,
                                                       plan->input, any_filter, plan->output,
                                                       strides, dilates, pad_before, pad_after),
              attr, engine, forward);
          plan->kernel_filter = pd.diff_weights_desc();
          scratchpad = pd.scratchpad_desc();
          plan->primitive = dnnl::convolution_backward_weights(pd);
          break;
        }
      }
      if (plan->kernel_filter != plan->user_filter) {
        plan->reordered_bytes = RoundUp64(static_cast<int64_t>(plan->kernel_filter.get_size()));
      }
      plan->scratchpad_bytes = RoundUp64(static_cast<int64_t>(scratchpad.get_size()));
    } catch (const dnnl::error& e) {
      // Whatever keeps oneDNN from making the primitive, im2col can still
      // convolve: the caller falls back.
      return absl::UnimplementedError(
          absl::StrCat("oneDNN has no convolution for these sizes: ", e.what()));
    }
    plan_ = std::move(plan);
  }
  return plan_->reordered_bytes + plan_->scratchpad_bytes;
}

absl::Status OneDnnConv::Run(int threads, const float* a, const float* b, float* out,
                             void* workspace) {
  MINITF_CHECK(plan_ != nullptr);  // WorkspaceBytes first.
  OneDnnHost& host = OneDnnHost::Get();
  const dnnl::engine& engine = host.engine();
  // oneDNN's memory objects take mutable pointers; the inputs are only read.
  auto user = [&](const memory::desc& md, const float* data) {
    return memory(md, engine, const_cast<float*>(data));
  };
  uint8_t* bytes = static_cast<uint8_t*>(workspace);
  const bool reorder = plan_->reordered_bytes > 0;
  try {
    MutexLock lock(&host.mu());
    dnnl::stream& stream = host.stream();
    PrepareOneDnnCall(threads);
    const memory scratchpad(plan_->scratchpad, engine, bytes + plan_->reordered_bytes);
    switch (direction_) {
      case Direction::kForward:
      case Direction::kBackpropInput: {
        const bool forward = direction_ == Direction::kForward;
        memory filter_user = user(plan_->user_filter, forward ? b : a);
        memory filter = filter_user;
        if (reorder) {
          filter = memory(plan_->kernel_filter, engine, bytes);
          dnnl::reorder(filter_user, filter).execute(stream, filter_user, filter);
        }
        if (forward) {
          plan_->primitive.execute(stream, {{DNNL_ARG_SRC, user(plan_->input, a)},
                                            {DNNL_ARG_WEIGHTS, filter},
                                            {DNNL_ARG_DST, user(plan_->output, out)},
                                            {DNNL_ARG_SCRATCHPAD, scratchpad}});
        } else {
          plan_->primitive.execute(stream, {{DNNL_ARG_DIFF_DST, user(plan_->output, b)},
                                            {DNNL_ARG_WEIGHTS, filter},
                                            {DNNL_ARG_DIFF_SRC, user(plan_->input, out)},
                                            {DNNL_ARG_SCRATCHPAD, scratchpad}});
        }
        break;
      }
      case Direction::kBackpropFilter: {
        memory filter_user = user(plan_->user_filter, out);
        memory filter =
            reorder ? memory(plan_->kernel_filter, engine, bytes) : filter_user;
        plan_->primitive.execute(stream, {{DNNL_ARG_SRC, user(plan_->input, a)},
                                          {DNNL_ARG_DIFF_DST, user(plan_->output, b)},
                                          {DNNL_ARG_DIFF_WEIGHTS, filter},
                                          {DNNL_ARG_SCRATCHPAD, scratchpad}});
        if (reorder) dnnl::reorder(filter, filter_user).execute(stream, filter, filter_user);
        break;
      }
    }
    stream.wait();
  } catch (const dnnl::error& e) {
    return FromDnnlError(e, "convolution failed");
  }
  return absl::OkStatus();
}

}  // namespace minitf::functor
