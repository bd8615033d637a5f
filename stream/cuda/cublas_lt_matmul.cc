#include "stream/cuda/cublas_lt_matmul.h"

#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "platform/status_macros.h"
#include "platform/tensor_float_32.h"
#include "stream/cuda/cuda_status.h"
#include "stream/cuda/scratch_arena.h"

namespace minitf::se::cuda {
namespace {

cublasLtEpilogue_t ToCublasLt(blas::Epilogue e) {
  return e == blas::Epilogue::kBiasGeluApproximate ? CUBLASLT_EPILOGUE_GELU_BIAS
                                                    : CUBLASLT_EPILOGUE_BIAS;
}

// cuBLASLt's descriptors, destroyed with their owners.
struct DescDeleter {
  void operator()(cublasLtMatmulDesc_t d) const { cublasLtMatmulDescDestroy(d); }
  void operator()(cublasLtMatrixLayout_t l) const { cublasLtMatrixLayoutDestroy(l); }
  void operator()(cublasLtMatmulPreference_t p) const { cublasLtMatmulPreferenceDestroy(p); }
};
using MatmulDesc = std::unique_ptr<std::remove_pointer_t<cublasLtMatmulDesc_t>, DescDeleter>;
using Layout = std::unique_ptr<std::remove_pointer_t<cublasLtMatrixLayout_t>, DescDeleter>;
using Preference =
    std::unique_ptr<std::remove_pointer_t<cublasLtMatmulPreference_t>, DescDeleter>;

// A float column-major matrix of `rows` x `cols` with leading dimension ld.
absl::StatusOr<Layout> MakeLayout(uint64_t rows, uint64_t cols, int ld) {
  cublasLtMatrixLayout_t layout = nullptr;
  MINITF_RETURN_IF_CUBLAS_ERROR(cublasLtMatrixLayoutCreate(&layout, CUDA_R_32F, rows, cols, ld));
  return Layout(layout);
}

template <typename T>
absl::Status SetAttribute(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr,
                          const T& value) {
  MINITF_RETURN_IF_CUBLAS_ERROR(cublasLtMatmulDescSetAttribute(desc, attr, &value, sizeof(T)));
  return absl::OkStatus();
}

// Everything one call describes to cuBLASLt.
struct Described {
  MatmulDesc desc;
  Layout a, b, d;
};

absl::StatusOr<Described> Describe(const GemmWithEpilogue& g, bool tf32) {
  Described out;
  cublasLtMatmulDesc_t desc = nullptr;
  MINITF_RETURN_IF_CUBLAS_ERROR(cublasLtMatmulDescCreate(
      &desc, tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, CUDA_R_32F));
  out.desc.reset(desc);
  MINITF_RETURN_IF_ERROR(SetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, ToCublas(g.transa)));
  MINITF_RETURN_IF_ERROR(SetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, ToCublas(g.transb)));
  MINITF_RETURN_IF_ERROR(SetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, ToCublasLt(g.epilogue)));
  MINITF_RETURN_IF_ERROR(SetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                      static_cast<const void*>(g.bias)));
  const bool ta = g.transa == blas::Transpose::kTranspose;
  const bool tb = g.transb == blas::Transpose::kTranspose;
  MINITF_ASSIGN_OR_RETURN(out.a, MakeLayout(ta ? g.k : g.m, ta ? g.m : g.k, g.lda));
  MINITF_ASSIGN_OR_RETURN(out.b, MakeLayout(tb ? g.n : g.k, tb ? g.k : g.n, g.ldb));
  MINITF_ASSIGN_OR_RETURN(out.d, MakeLayout(g.m, g.n, g.ldd));
  return out;
}

absl::StatusOr<cublasLtHandle_t> CreateHandle() {
  cublasLtHandle_t handle = nullptr;
  MINITF_RETURN_IF_CUBLAS_ERROR(cublasLtCreate(&handle));
  return handle;
}

}  // namespace

CublasLtMatmul::CublasLtMatmul(CudaExecutor* parent)
    : parent_(parent), handles_(&CreateHandle, [](cublasLtHandle_t h) { cublasLtDestroy(h); }) {}

absl::Status CublasLtMatmul::Run(cudaStream_t stream, const GemmWithEpilogue& g) {
  const bool tf32 = TensorFloat32ExecutionEnabled();
  MINITF_ASSIGN_OR_RETURN(HandlePool<cublasLtHandle_t>::Lease handle, handles_.Acquire());
  MINITF_ASSIGN_OR_RETURN(Described described, Describe(g, tf32));
  const Key key{g.transa, g.transb, g.m, g.n, g.k, g.lda, g.ldb, g.ldd, g.epilogue, tf32};
  std::optional<Choice> choice;
  {
    MutexLock lock(&mu_);
    if (auto it = choices_.find(key); it != choices_.end()) choice = it->second;
  }
  if (!choice.has_value()) {
    cublasLtMatmulPreference_t raw = nullptr;
    MINITF_RETURN_IF_CUBLAS_ERROR(cublasLtMatmulPreferenceCreate(&raw));
    Preference preference(raw);
    const uint64_t max_workspace = kWorkspaceBytes;
    MINITF_RETURN_IF_CUBLAS_ERROR(cublasLtMatmulPreferenceSetAttribute(
        raw, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &max_workspace, sizeof(max_workspace)));
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    MINITF_RETURN_IF_CUBLAS_ERROR(cublasLtMatmulAlgoGetHeuristic(
        handle.get(), described.desc.get(), described.a.get(), described.b.get(),
        described.d.get(), described.d.get(), raw, 1, &result, &found));
    if (found == 0) {
      return absl::UnimplementedError(absl::StrCat("cuBLASLt has no algorithm for ", g.m, "x",
                                                   g.k, " by ", g.k, "x", g.n,
                                                   " with this epilogue"));
    }
    choice = Choice{result.algo, result.workspaceSize};
    MutexLock lock(&mu_);
    choices_.emplace(key, *choice);
  }
  ScratchArena scratch(parent_, stream, /*allocator=*/nullptr);
  MINITF_ASSIGN_OR_RETURN(void* workspace, scratch.Allocate(choice->workspace_bytes));
  const float one = 1.0f, zero = 0.0f;
  MINITF_RETURN_IF_CUBLAS_ERROR(cublasLtMatmul(
      handle.get(), described.desc.get(), &one, g.a, described.a.get(), g.b, described.b.get(),
      &zero, g.d, described.d.get(), g.d, described.d.get(), &choice->algorithm, workspace,
      choice->workspace_bytes, stream));
  return absl::OkStatus();
}

}  // namespace minitf::se::cuda
