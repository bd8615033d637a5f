#include "ops/kernels/onednn_conv.h"

#include <algorithm>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "ops/kernels/onednn_host.h"
#include "platform/cpu_isa.h"
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

// Whether a convolution may take oneDNN's Winograd kernels (F(4x4, 3x3)):
// a 3x3 window, stride and dilation 1, and at least 32 of its 4x4 output
// tiles. Below that, transforming the filter costs what Winograd saves
// (measured on ResNet-50's channel counts: 16 tiles of 512 channels run as
// fast either way, 32 run 1.5x faster through Winograd). oneDNN may still
// refuse (channels it does not block, a processor without AVX-512): the
// direct kernel then runs.
bool WinogradFits(const Conv2DGeometry& g) {
  if (!OneDnnWinogradEnabled()) return false;
  if (g.filter_rows != 3 || g.filter_cols != 3) return false;
  if (g.stride_rows != 1 || g.stride_cols != 1) return false;
  if (g.dilation_rows != 1 || g.dilation_cols != 1) return false;
  const int64_t tiles = g.batch * ((g.out_rows + 3) / 4) * ((g.out_cols + 3) / 4);
  return tiles >= 32;
}

}  // namespace

std::string HostConvolutionName() {
  if (!OneDnnEnabled()) return absl::StrCat("im2col and OpenBLAS (", WhyOneDnnOff(), ")");
  // oneDNN's Winograd kernels are AVX-512's alone.
  const bool winograd = OneDnnWinogradEnabled() && ActiveCpuIsa() == CpuIsa::kAvx512;
  return absl::StrCat(OneDnnName(), winograd ? "; Winograd for 3x3 stride 1" : "");
}

// One of the convolution's three tensors (the input or its gradient, the
// output or its gradient, the filter or its gradient): the layout the
// caller holds it in (NHWC, HWIO) and the one the primitive reads or writes.
// When they differ, the tensor passes through the workspace at `offset`,
// reordered by the plan's own reorder primitives.
struct Side {
  memory::desc user;
  memory::desc kernel;
  int64_t offset = -1;      // -1: the primitive works on the caller's buffer.
  dnnl::reorder to_kernel;  // Made when offset >= 0 and the primitive reads the side.
  dnnl::reorder to_user;    // Made when offset >= 0 and the primitive writes it.
};

struct OneDnnConv::Plan {
  dnnl::primitive primitive;
  bool winograd = false;
  Side input;   // The convolution's input (or its gradient).
  Side output;  // Its output (or its gradient).
  Side filter;  // Its filter (or its gradient).
  memory::desc scratchpad;
  int64_t scratchpad_offset = 0;
  int64_t bytes = 0;  // The workspace: the reordered sides, then the scratchpad.
};

namespace {

// The plan of `direction` with convolution algorithm `algorithm`: direct
// kernels work on NHWC (only the filter is reordered); Winograd's on their
// own blocked layouts (all three sides are). A dnnl::error when oneDNN has
// no kernel for it.
std::unique_ptr<OneDnnConv::Plan> MakePlan(OneDnnConv::Direction direction, const Conv2DGeometry& g,
                                           dnnl::algorithm algorithm) {
  using Direction = OneDnnConv::Direction;
  // oneDNN's sizes are in N, C, H, W (and O, I, H, W) order whatever the
  // layout; a dilation of 1 is its 0. Padding after: what the output size
  // needs, never negative (a VALID window leaves the input's last rows).
  const memory::dims in_dims = {g.batch, g.in_depth, g.in_rows, g.in_cols};
  const memory::dims out_dims = {g.batch, g.out_depth, g.out_rows, g.out_cols};
  const memory::dims filter_dims = {g.out_depth, g.in_depth, g.filter_rows, g.filter_cols};
  const memory::dims strides = {g.stride_rows, g.stride_cols};
  const memory::dims dilates = {g.dilation_rows - 1, g.dilation_cols - 1};
  const memory::dims pad_before = {g.pad_top, g.pad_left};
  const auto after = [](int64_t out, int64_t stride, int64_t window, int64_t dilation, int64_t in,
                        int64_t before) {
    return std::max<int64_t>(0, (out - 1) * stride + (window - 1) * dilation + 1 - in - before);
  };
  const memory::dims pad_after = {
      after(g.out_rows, g.stride_rows, g.filter_rows, g.dilation_rows, g.in_rows, g.pad_top),
      after(g.out_cols, g.stride_cols, g.filter_cols, g.dilation_cols, g.in_cols, g.pad_left)};
  const bool winograd = algorithm == dnnl::algorithm::convolution_winograd;
  const Tag image = winograd ? Tag::any : Tag::nhwc;
  const memory::desc in(in_dims, memory::data_type::f32, image);
  const memory::desc out(out_dims, memory::data_type::f32, image);
  const memory::desc filter(filter_dims, memory::data_type::f32, Tag::any);

  auto plan = std::make_unique<OneDnnConv::Plan>();
  plan->winograd = winograd;
  plan->input.user = memory::desc(in_dims, memory::data_type::f32, Tag::nhwc);
  plan->output.user = memory::desc(out_dims, memory::data_type::f32, Tag::nhwc);
  plan->filter.user = memory::desc(filter_dims, memory::data_type::f32, Tag::hwio);
  const dnnl::engine& engine = OneDnnHost::Get().engine();
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const dnnl::convolution_forward::primitive_desc forward(
      dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, algorithm, in, filter, out,
                                      strides, dilates, pad_before, pad_after),
      attr, engine);
  Side* written = nullptr;
  switch (direction) {
    case Direction::kForward:
      plan->input.kernel = forward.src_desc();
      plan->output.kernel = forward.dst_desc();
      plan->filter.kernel = forward.weights_desc();
      plan->scratchpad = forward.scratchpad_desc();
      plan->primitive = dnnl::convolution_forward(forward);
      written = &plan->output;
      break;
    case Direction::kBackpropInput: {
      const dnnl::convolution_backward_data::primitive_desc pd(
          dnnl::convolution_backward_data::desc(algorithm, in, filter, out, strides, dilates,
                                                pad_before, pad_after),
          attr, engine, forward);
      plan->input.kernel = pd.diff_src_desc();
      plan->output.kernel = pd.diff_dst_desc();
      plan->filter.kernel = pd.weights_desc();
      plan->scratchpad = pd.scratchpad_desc();
      plan->primitive = dnnl::convolution_backward_data(pd);
      written = &plan->input;
      break;
    }
    case Direction::kBackpropFilter: {
      const dnnl::convolution_backward_weights::primitive_desc pd(
          dnnl::convolution_backward_weights::desc(algorithm, in, filter, out, strides, dilates,
                                                   pad_before, pad_after),
          attr, engine, forward);
      plan->input.kernel = pd.src_desc();
      plan->output.kernel = pd.diff_dst_desc();
      plan->filter.kernel = pd.diff_weights_desc();
      plan->scratchpad = pd.scratchpad_desc();
      plan->primitive = dnnl::convolution_backward_weights(pd);
      written = &plan->filter;
      break;
    }
  }
  for (Side* side : {&plan->input, &plan->output, &plan->filter}) {
    if (side->kernel == side->user) continue;
    side->offset = plan->bytes;
    plan->bytes += RoundUp64(static_cast<int64_t>(side->kernel.get_size()));
    if (side == written) {
      side->to_user =
          dnnl::reorder(dnnl::reorder::primitive_desc(engine, side->kernel, engine, side->user));
    } else {
      side->to_kernel =
          dnnl::reorder(dnnl::reorder::primitive_desc(engine, side->user, engine, side->kernel));
    }
  }
  plan->scratchpad_offset = plan->bytes;
  plan->bytes += RoundUp64(static_cast<int64_t>(plan->scratchpad.get_size()));
  return plan;
}

}  // namespace

OneDnnConv::OneDnnConv(Direction direction, const Conv2DGeometry& g)
    : direction_(direction), g_(g) {}

OneDnnConv::~OneDnnConv() = default;

absl::StatusOr<int64_t> OneDnnConv::WorkspaceBytes() {
  if (plan_ == nullptr) {
    const Conv2DGeometry& g = g_;
    if (g.input_elements() == 0 || g.filter_elements() == 0 || g.output_elements() == 0) {
      return absl::UnimplementedError("oneDNN takes no empty tensor");
    }
    if (WinogradFits(g)) {
      try {
        plan_ = MakePlan(direction_, g, dnnl::algorithm::convolution_winograd);
      } catch (const dnnl::error& e) {
        VLOG(1, "oneDNN has no Winograd kernel for these sizes ({}); the direct one", e.what());
      }
    }
    if (plan_ == nullptr) {
      try {
        plan_ = MakePlan(direction_, g, dnnl::algorithm::convolution_direct);
      } catch (const dnnl::error& e) {
        // Whatever keeps oneDNN from making the primitive, im2col can still
        // convolve: the caller falls back.
        return absl::UnimplementedError(
            absl::StrCat("oneDNN has no convolution for these sizes: ", e.what()));
      }
    }
  }
  return plan_->bytes;
}

int64_t OneDnnConv::workspace_bytes() const {
  MINITF_CHECK(plan_ != nullptr);  // WorkspaceBytes first.
  return plan_->bytes;
}

bool OneDnnConv::winograd() const {
  MINITF_CHECK(plan_ != nullptr);  // WorkspaceBytes first.
  return plan_->winograd;
}

absl::Status OneDnnConv::Run(int threads, const float* a, const float* b, float* out,
                             void* workspace) const {
  MINITF_CHECK(plan_ != nullptr);  // WorkspaceBytes first.
  const Plan& plan = *plan_;
  OneDnnHost& host = OneDnnHost::Get();
  const dnnl::engine& engine = host.engine();
  uint8_t* bytes = static_cast<uint8_t*>(workspace);
  // The caller's buffers by side: (input, output, filter).
  const float* in = a;
  const float* grad = b;
  const float* filter = b;
  switch (direction_) {
    case Direction::kForward:
      grad = out;
      break;
    case Direction::kBackpropInput:
      in = out;
      filter = a;
      break;
    case Direction::kBackpropFilter:
      filter = out;
      break;
  }
  try {
    MutexLock lock(&host.mu());
    dnnl::stream& stream = host.stream();
    PrepareOneDnnCall(threads);
    // oneDNN's memory objects take mutable pointers; the inputs are only read.
    const auto user = [&](const Side& side, const float* data) {
      return memory(side.user, engine, const_cast<float*>(data));
    };
    const auto kernel = [&](const Side& side, const memory& user_memory) {
      if (side.offset < 0) return user_memory;
      return memory(side.kernel, engine, bytes + side.offset);
    };
    memory in_user = user(plan.input, in), in_kernel = kernel(plan.input, in_user);
    memory out_user = user(plan.output, grad), out_kernel = kernel(plan.output, out_user);
    memory filter_user = user(plan.filter, filter),
           filter_kernel = kernel(plan.filter, filter_user);
    const memory scratchpad(plan.scratchpad, engine, bytes + plan.scratchpad_offset);
    const auto read = [&](const Side& side, memory& from, memory& to) {
      if (side.offset >= 0) side.to_kernel.execute(stream, from, to);
    };
    const auto write = [&](const Side& side, memory& from, memory& to) {
      if (side.offset >= 0) side.to_user.execute(stream, from, to);
    };
    switch (direction_) {
      case Direction::kForward:
        read(plan.input, in_user, in_kernel);
        read(plan.filter, filter_user, filter_kernel);
        plan.primitive.execute(stream, {{DNNL_ARG_SRC, in_kernel},
                                        {DNNL_ARG_WEIGHTS, filter_kernel},
                                        {DNNL_ARG_DST, out_kernel},
                                        {DNNL_ARG_SCRATCHPAD, scratchpad}});
        write(plan.output, out_kernel, out_user);
        break;
      case Direction::kBackpropInput:
        read(plan.output, out_user, out_kernel);
        read(plan.filter, filter_user, filter_kernel);
        plan.primitive.execute(stream, {{DNNL_ARG_DIFF_DST, out_kernel},
                                        {DNNL_ARG_WEIGHTS, filter_kernel},
                                        {DNNL_ARG_DIFF_SRC, in_kernel},
                                        {DNNL_ARG_SCRATCHPAD, scratchpad}});
        write(plan.input, in_kernel, in_user);
        break;
      case Direction::kBackpropFilter:
        read(plan.input, in_user, in_kernel);
        read(plan.output, out_user, out_kernel);
        plan.primitive.execute(stream, {{DNNL_ARG_SRC, in_kernel},
                                        {DNNL_ARG_DIFF_DST, out_kernel},
                                        {DNNL_ARG_DIFF_WEIGHTS, filter_kernel},
                                        {DNNL_ARG_SCRATCHPAD, scratchpad}});
        write(plan.filter, filter_kernel, filter_user);
        break;
    }
    stream.wait();
  } catch (const dnnl::error& e) {
    return FromDnnlError(e, "convolution failed");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const OneDnnConv>> SharedOneDnnConv(OneDnnConv::Direction direction,
                                                                   const Conv2DGeometry& g) {
  const auto key =
      std::make_tuple(direction, g.batch, g.in_rows, g.in_cols, g.in_depth, g.filter_rows,
                      g.filter_cols, g.out_depth, g.stride_rows, g.stride_cols, g.dilation_rows,
                      g.dilation_cols, g.pad_top, g.pad_left, g.out_rows, g.out_cols);
  struct Cache {
    Mutex mu;
    absl::flat_hash_map<std::remove_const_t<decltype(key)>,
                        absl::StatusOr<std::shared_ptr<const OneDnnConv>>>
        plans ABSL_GUARDED_BY(mu);
  };
  static Cache* cache = new Cache();
  MutexLock lock(&cache->mu);
  auto it = cache->plans.find(key);
  if (it != cache->plans.end()) return it->second;
  auto conv = std::make_shared<OneDnnConv>(direction, g);
  absl::StatusOr<std::shared_ptr<const OneDnnConv>> entry = conv;
  if (const absl::StatusOr<int64_t> bytes = conv->WorkspaceBytes(); !bytes.ok()) {
    entry = bytes.status();
  }
  // Bounded as TensorFlow's primitive cache (1024 entries): a process that
  // convolves more shapes than that starts over.
  if (cache->plans.size() >= 1024) cache->plans.clear();
  cache->plans.emplace(key, entry);
  return entry;
}

}  // namespace minitf::functor
