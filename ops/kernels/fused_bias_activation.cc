#include "ops/kernels/fused_bias_activation.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "platform/status_macros.h"
#include "runtime/op_kernel.h"

#ifdef MINITF_WITH_CUDA
#include "ops/kernels/cuda/cuda_kernel_helpers.h"
#include "ops/kernels/fused_bias_activation_gpu.h"
#endif

namespace minitf {

absl::StatusOr<FusedActivation> ParseFusedOps(const std::vector<std::string>& fused_ops) {
  if (fused_ops.empty() || fused_ops[0] != "BiasAdd" || fused_ops.size() > 2) {
    return absl::UnimplementedError(absl::StrCat(
        "fused_ops must be [BiasAdd] or [BiasAdd, activation], got [",
        absl::StrJoin(fused_ops, ", "), "]"));
  }
  if (fused_ops.size() == 1) return FusedActivation::kNone;
  const std::string& act = fused_ops[1];
  if (act == "Relu") return FusedActivation::kRelu;
  if (act == "Relu6") return FusedActivation::kRelu6;
  if (act == "Elu") return FusedActivation::kElu;
  if (act == "Tanh") return FusedActivation::kTanh;
  if (act == "GeluApproximate") return FusedActivation::kGeluApproximate;
  if (act == "GeluExact") return FusedActivation::kGeluExact;
  return absl::UnimplementedError(absl::StrCat(
      "fused activation '", act,
      "' is not one of Relu, Relu6, Elu, Tanh, GeluApproximate, GeluExact"));
}

absl::StatusOr<FusedActivation> FusedActivationFromAttrs(const OpKernelConstruction& ctx) {
  std::vector<std::string> fused_ops;
  MINITF_RETURN_IF_ERROR(ctx.GetAttr("fused_ops", &fused_ops));
  MINITF_ASSIGN_OR_RETURN(const FusedActivation activation, ParseFusedOps(fused_ops));
  int64_t num_args = 0, num_host_args = 0;
  MINITF_RETURN_IF_ERROR(ctx.GetAttr("num_args", &num_args));
  if (ctx.HasAttr("num_host_args")) {
    MINITF_RETURN_IF_ERROR(ctx.GetAttr("num_host_args", &num_host_args));
  }
  if (num_args != 1 || num_host_args != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "BiasAdd takes one argument (the bias) and no host argument; num_args is ", num_args,
        ", num_host_args ", num_host_args));
  }
  return activation;
}

absl::StatusOr<bool> FusedOpsAddAnAddend(const OpKernelConstruction& ctx) {
  std::vector<std::string> fused_ops;
  MINITF_RETURN_IF_ERROR(ctx.GetAttr("fused_ops", &fused_ops));
  if (fused_ops != std::vector<std::string>{"BiasAdd", "Add"}) return false;
  int64_t num_args = 0;
  MINITF_RETURN_IF_ERROR(ctx.GetAttr("num_args", &num_args));
  if (num_args != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "fused_ops [BiasAdd, Add] takes two arguments (the bias and the addend); num_args is ",
        num_args));
  }
  return true;
}

template <typename T>
void AddBiasAndAddend(const Eigen::ThreadPoolDevice& d, const Tensor& bias, const Tensor& addend,
                      Tensor* output) {
  const Eigen::Index channels = bias.NumElements();
  if (channels == 0 || output->NumElements() == 0) return;
  const Eigen::Index rows = output->NumElements() / channels;
  auto out = output->shaped<T, 2>({rows, channels});
  const Eigen::array<Eigen::Index, 2> one_row = {1, channels};
  const Eigen::array<Eigen::Index, 2> every_row = {rows, 1};
  out.device(d) = out + bias.vec<T>().reshape(one_row).broadcast(every_row) +
                  addend.shaped<T, 2>({rows, channels});
}

template void AddBiasAndAddend<float>(const Eigen::ThreadPoolDevice&, const Tensor&, const Tensor&,
                                      Tensor*);
template void AddBiasAndAddend<double>(const Eigen::ThreadPoolDevice&, const Tensor&,
                                       const Tensor&, Tensor*);

template <typename T>
void AddBiasAndActivate(const Eigen::ThreadPoolDevice& d, FusedActivation activation,
                        const Tensor& bias, Tensor* output) {
  const Eigen::Index channels = bias.NumElements();
  if (channels == 0 || output->NumElements() == 0) return;
  const Eigen::Index rows = output->NumElements() / channels;
  auto out = output->shaped<T, 2>({rows, channels});
  const Eigen::array<Eigen::Index, 2> one_row = {1, channels};
  const Eigen::array<Eigen::Index, 2> every_row = {rows, 1};
  auto biased = out + bias.vec<T>().reshape(one_row).broadcast(every_row);
  switch (activation) {
    case FusedActivation::kNone:
      out.device(d) = biased;
      break;
    case FusedActivation::kRelu:
      out.device(d) = biased.cwiseMax(T(0));
      break;
    case FusedActivation::kRelu6:
      out.device(d) = biased.cwiseMax(T(0)).cwiseMin(T(6));
      break;
    case FusedActivation::kElu:
      out.device(d) = (biased < T(0)).select(biased.exp() - T(1), biased);
      break;
    case FusedActivation::kTanh:
      out.device(d) = biased.tanh();
      break;
    case FusedActivation::kGeluApproximate:
      // Two passes: the sum, then the GELU of it, which reads x four times.
      out.device(d) = biased;
      out.device(d) = T(0.5) * out *
                      (T(1) + (T(kGeluSqrtTwoOverPi) *
                               (out + T(kGeluCubeCoefficient) * out * out.square()))
                                  .tanh());
      break;
    case FusedActivation::kGeluExact:
      out.device(d) = biased;
      out.device(d) = T(0.5) * out * (-out * T(kGeluSqrtOneHalf)).erfc();
      break;
  }
}

template void AddBiasAndActivate<float>(const Eigen::ThreadPoolDevice&, FusedActivation,
                                        const Tensor&, Tensor*);
template void AddBiasAndActivate<double>(const Eigen::ThreadPoolDevice&, FusedActivation,
                                         const Tensor&, Tensor*);

#ifdef MINITF_WITH_CUDA
absl::Status AddBiasAndActivateOnComputeStream(OpKernelContext* ctx, FusedActivation activation,
                                               const Tensor& bias, Tensor* output) {
  const int64_t channels = bias.NumElements();
  if (channels == 0 || output->NumElements() == 0) return absl::OkStatus();
  return LaunchOnComputeStream(ctx, "BiasActivation", [&](cudaStream_t stream) {
    return gpu::LaunchBiasActivation(stream, activation, bias.data<float>(),
                                     output->NumElements() / channels, channels,
                                     output->data<float>());
  });
}
#endif  // MINITF_WITH_CUDA

}  // namespace minitf
