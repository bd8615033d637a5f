// TensorFlow's random distributions over PhiloxRandom words, for host and
// CUDA device code: how 32-bit words become uniform floats and doubles,
// normals (Box-Muller) and truncated normals, and how an output of n values
// is laid out over the generator's stream (FillGroup), so each value
// depends only on the seeds and its index. RandomUniform,
// RandomStandardNormal, TruncatedNormal and RandomUniformInt give
// TensorFlow's numbers with them (the `random_ops` TensorFlow fixture,
// tests/session/tensorflow_fixtures_test.cc).
//
// The stream layout: values come in groups (kGroupSize of a distribution);
// group g of a fixed-cost distribution is made from call g of the stream,
// and group g of a truncated normal (which rejects draws, so uses a varying
// number) from the words starting at call g * kCallsPerGroup.
#ifndef MINITF_OPS_KERNELS_RANDOM_DISTRIBUTIONS_H_
#define MINITF_OPS_KERNELS_RANDOM_DISTRIBUTIONS_H_

#include <cmath>
#include <cstdint>
#include <cstring>

#include "ops/kernels/philox_random.h"

namespace minitf::random {

// A float in [0, 1) from the word's low 23 bits (as mantissa of [1, 2)).
MINITF_HOST_DEVICE inline float Uint32ToFloat(uint32_t x) {
  const uint32_t bits = (uint32_t{127} << 23) | (x & 0x7fffffu);
  float one_to_two;
  memcpy(&one_to_two, &bits, sizeof(bits));
  return one_to_two - 1.0f;
}

// A double in [0, 1) from 52 bits: the low 20 of `high`, all of `low`.
MINITF_HOST_DEVICE inline double Uint64ToDouble(uint32_t high, uint32_t low) {
  const uint64_t bits =
      (uint64_t{1023} << 52) | (static_cast<uint64_t>(high & 0xfffffu) << 32) | low;
  double one_to_two;
  memcpy(&one_to_two, &bits, sizeof(bits));
  return one_to_two - 1.0;
}

constexpr double kPi = 3.14159265358979323846;

// Two standard normals from two words, in float arithmetic (the angle is
// formed in double and rounded, as TensorFlow's is).
MINITF_HOST_DEVICE inline void BoxMullerFloat(uint32_t x0, uint32_t x1, float* f0, float* f1) {
  const float epsilon = 1.0e-7f;  // Keeps log() away from 0.
  float u1 = Uint32ToFloat(x0);
  if (u1 < epsilon) u1 = epsilon;
  const auto v1 = static_cast<float>(2.0f * kPi * Uint32ToFloat(x1));
  const float u2 = sqrtf(-2.0f * logf(u1));
  sincosf(v1, f0, f1);
  *f0 *= u2;
  *f1 *= u2;
}

// Two standard normals from four words, in double arithmetic.
MINITF_HOST_DEVICE inline void BoxMullerDouble(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3,
                                               double* d0, double* d1) {
  const double epsilon = 1.0e-7;
  double u1 = Uint64ToDouble(x0, x1);
  if (u1 < epsilon) u1 = epsilon;
  const double v1 = 2 * kPi * Uint64ToDouble(x2, x3);
  const double u2 = sqrt(-2.0 * log(u1));
  sincos(v1, d0, d1);
  *d0 *= u2;
  *d1 *= u2;
}

// Each distribution makes one group of kGroupSize values into `out` from
// `gen`, positioned at the group's start; a group starts kCallsPerGroup
// calls after the one before it.
template <typename T>
struct Uniform;
template <>
struct Uniform<float> {
  static constexpr int kGroupSize = 4;
  static constexpr uint64_t kCallsPerGroup = 1;
  MINITF_HOST_DEVICE void operator()(PhiloxRandom* gen, float* out) const {
    const PhiloxRandom::Result w = (*gen)();
    for (int i = 0; i < 4; ++i) out[i] = Uint32ToFloat(w[i]);
  }
};
template <>
struct Uniform<double> {
  static constexpr int kGroupSize = 2;
  static constexpr uint64_t kCallsPerGroup = 1;
  MINITF_HOST_DEVICE void operator()(PhiloxRandom* gen, double* out) const {
    const PhiloxRandom::Result w = (*gen)();
    out[0] = Uint64ToDouble(w[0], w[1]);
    out[1] = Uint64ToDouble(w[2], w[3]);
  }
};

template <typename T>
struct Normal;
template <>
struct Normal<float> {
  static constexpr int kGroupSize = 4;
  static constexpr uint64_t kCallsPerGroup = 1;
  MINITF_HOST_DEVICE void operator()(PhiloxRandom* gen, float* out) const {
    const PhiloxRandom::Result w = (*gen)();
    BoxMullerFloat(w[0], w[1], &out[0], &out[1]);
    BoxMullerFloat(w[2], w[3], &out[2], &out[3]);
  }
};
template <>
struct Normal<double> {
  static constexpr int kGroupSize = 2;
  static constexpr uint64_t kCallsPerGroup = 1;
  MINITF_HOST_DEVICE void operator()(PhiloxRandom* gen, double* out) const {
    const PhiloxRandom::Result w = (*gen)();
    BoxMullerDouble(w[0], w[1], w[2], w[3], &out[0], &out[1]);
  }
};

// Integers in [lo, hi): lo + bits % (hi - lo), over 32 bits for int32 and
// 64 for int64 (TensorFlow's modulo, bias and all).
template <typename T>
struct UniformInt;
template <>
struct UniformInt<int32_t> {
  static constexpr int kGroupSize = 4;
  static constexpr uint64_t kCallsPerGroup = 1;
  int32_t lo;
  uint32_t range;  // hi - lo, which may not fit in int32.
  MINITF_HOST_DEVICE void operator()(PhiloxRandom* gen, int32_t* out) const {
    const PhiloxRandom::Result w = (*gen)();
    for (int i = 0; i < 4; ++i) {
      out[i] = static_cast<int32_t>(static_cast<uint32_t>(lo) + w[i] % range);
    }
  }
};
template <>
struct UniformInt<int64_t> {
  static constexpr int kGroupSize = 2;
  static constexpr uint64_t kCallsPerGroup = 1;
  int64_t lo;
  uint64_t range;
  MINITF_HOST_DEVICE void operator()(PhiloxRandom* gen, int64_t* out) const {
    const PhiloxRandom::Result w = (*gen)();
    for (int i = 0; i < 2; ++i) {
      const uint64_t bits = w[2 * i] | (static_cast<uint64_t>(w[2 * i + 1]) << 32);
      out[i] = static_cast<int64_t>(static_cast<uint64_t>(lo) + bits % range);
    }
  }
};

// One word at a time from a generator (TensorFlow's SingleSampleAdapter).
class WordStream {
 public:
  MINITF_HOST_DEVICE explicit WordStream(PhiloxRandom gen) : gen_(gen) {}
  MINITF_HOST_DEVICE uint32_t Next() {
    if (used_ == 4) {
      words_ = gen_();
      used_ = 0;
    }
    return words_[used_++];
  }

 private:
  PhiloxRandom gen_;
  PhiloxRandom::Result words_ = {{0, 0, 0, 0}};
  int used_ = 4;
};

// Two standard normals from the next words of `words`: two for float,
// four for double.
MINITF_HOST_DEVICE inline void NormalPair(WordStream* words, float* out) {
  const uint32_t x0 = words->Next();
  const uint32_t x1 = words->Next();
  BoxMullerFloat(x0, x1, &out[0], &out[1]);
}
MINITF_HOST_DEVICE inline void NormalPair(WordStream* words, double* out) {
  const uint32_t x0 = words->Next();
  const uint32_t x1 = words->Next();
  const uint32_t x2 = words->Next();
  const uint32_t x3 = words->Next();
  BoxMullerDouble(x0, x1, x2, x3, &out[0], &out[1]);
}

// Normals with |x| < 2, redrawing pairs until the group is full. A group
// takes a varying number of words, so group g starts at call
// g * kCallsPerGroup of the stream, a reservation it never exceeds in
// practice (TensorFlow's 256 words per value).
template <typename T>
struct TruncatedNormal {
  static constexpr int kGroupSize = 16 / sizeof(T);  // 4 floats, 2 doubles.
  static constexpr uint64_t kCallsPerGroup = kGroupSize * 256 / 4;
  MINITF_HOST_DEVICE void operator()(PhiloxRandom* gen, T* out) const {
    WordStream words(*gen);
    int n = 0;
    while (true) {
      T pair[2];
      NormalPair(&words, pair);
      for (T v : pair) {
        if ((v < 0 ? -v : v) < T(2)) {
          out[n++] = v;
          if (n == kGroupSize) return;
        }
      }
    }
  }
};

// Group `group` of an output of `size` values (the last group may be
// partial): the values `dist` makes there, written to out[group * kGroupSize
// ...]. `base` is the generator the whole output starts from; group g
// starts g * kCallsPerGroup calls later.
template <typename Dist, typename T>
MINITF_HOST_DEVICE void FillGroup(const Dist& dist, PhiloxRandom base, int64_t size,
                                  int64_t group, T* out) {
  constexpr int kGroup = Dist::kGroupSize;
  T values[kGroup];
  base.Skip(static_cast<uint64_t>(group) * Dist::kCallsPerGroup);
  dist(&base, values);
  const int64_t start = group * kGroup;
  for (int i = 0; i < kGroup && start + i < size; ++i) out[start + i] = values[i];
}

// How many calls of the stream a kernel reserves for an output of `size`
// values, whatever the distribution: the generator moves on by this much
// at every Compute (TensorFlow's ReserveRandomOutputs(size, 256)).
MINITF_HOST_DEVICE inline uint64_t ReservedCalls(int64_t size) {
  return static_cast<uint64_t>(size) * 256;
}

}  // namespace minitf::random

#endif  // MINITF_OPS_KERNELS_RANDOM_DISTRIBUTIONS_H_
