// The widest x86-64 vector instruction set minitf's own host loops use
// (ops/kernels/cpu_vector_loops.h), chosen when the process runs, so that
// one portable build (baseline x86-64: SSE2) computes at the width of the
// machine it finds: AVX-512 (F, DQ, BW, VL), else AVX2 with FMA, else the
// baseline. What the processor and the operating system both support
// (libgcc's CPU check reads CPUID and the enabled register state), capped by
// MINITF_MAX_CPU_ISA, as oneDNN's ONEDNN_MAX_CPU_ISA caps TensorFlow's:
//
//   MINITF_MAX_CPU_ISA=avx2 minitf run ...     # at most AVX2 and FMA
//   MINITF_MAX_CPU_ISA=baseline ...            # SSE2 only, as an older x86-64
//
// The variable is read once, at the first query. The value is one of
// "baseline" (or "sse2"), "avx2", "avx512", in any case; any other value is
// an error the first query logs, and the process then runs at the baseline
// (the one set every x86-64 has) rather than at a width it was not asked
// for. On other architectures every query answers kBaseline. OpenBLAS (the
// matrix products) chooses its kernels itself: OPENBLAS_CORETYPE caps it.
// Thread-safe.
#ifndef MINITF_PLATFORM_CPU_ISA_H_
#define MINITF_PLATFORM_CPU_ISA_H_

#include <string>

#include "absl/status/statusor.h"

namespace minitf {

// The function attributes that compile one function for a level above the
// baseline (GCC's and Clang's target attribute); see
// ops/kernels/cpu_vector_loops.cc for how the host loops use them.
#if defined(__x86_64__)
#define MINITF_TARGET_AVX2 __attribute__((target("avx2,fma")))
#define MINITF_TARGET_AVX512 __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")))
#endif

// Ordered: each level includes the one before.
enum class CpuIsa { kBaseline = 0, kAvx2 = 1, kAvx512 = 2 };

// What this processor and operating system support.
CpuIsa DetectedCpuIsa();

// What the host loops use: DetectedCpuIsa() capped by MINITF_MAX_CPU_ISA.
CpuIsa ActiveCpuIsa();

// "baseline", "avx2" or "avx512".
const char* CpuIsaName(CpuIsa isa);

// The level a MINITF_MAX_CPU_ISA value names; InvalidArgument naming the
// variable and the value otherwise.
absl::StatusOr<CpuIsa> ParseCpuIsa(const std::string& value);

// Of a set of loops built once per width, the one `isa` selects; a width
// not built for this architecture (null) falls back to the next narrower.
template <typename T>
const T& ForCpuIsa(CpuIsa isa, const T& baseline, const T* avx2, const T* avx512) {
  if (isa == CpuIsa::kAvx512 && avx512 != nullptr) return *avx512;
  if (isa >= CpuIsa::kAvx2 && avx2 != nullptr) return *avx2;
  return baseline;
}

}  // namespace minitf

#endif  // MINITF_PLATFORM_CPU_ISA_H_
