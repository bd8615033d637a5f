// WithElementWord: the kernels that move elements without reading them
// (gathers, copies, transposes, Select, OneHot) are instantiated once per
// element size, over an unsigned word of that size, not once per dtype.
// For .cu files.
//
//   return WithElementWord(DataTypeSize(dtype), [&](auto word) {
//     return LaunchCopy<decltype(word)>(stream, ...);
//   });
#ifndef MINITF_OPS_KERNELS_CUDA_ELEMENT_WORD_CUH_
#define MINITF_OPS_KERNELS_CUDA_ELEMENT_WORD_CUH_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace minitf::gpu {

// A 16-byte element, moved as one aligned word.
struct alignas(16) Bytes16 {
  uint64_t lo, hi;
};

// Returns launch(Word{}) with Word the unsigned word of `element_size`
// bytes (1, 2, 4, 8 or 16); cudaErrorInvalidValue for another size.
template <typename Launch>
cudaError_t WithElementWord(size_t element_size, Launch&& launch) {
  switch (element_size) {
    case 1:
      return launch(uint8_t{});
    case 2:
      return launch(uint16_t{});
    case 4:
      return launch(uint32_t{});
    case 8:
      return launch(uint64_t{});
    case 16:
      return launch(Bytes16{});
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace minitf::gpu

#endif  // MINITF_OPS_KERNELS_CUDA_ELEMENT_WORD_CUH_
