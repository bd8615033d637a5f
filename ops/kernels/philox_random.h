// PhiloxRandom: the counter-based generator TensorFlow's random ops draw
// from (Philox4x32-10, Salmon et al., SC 2011), with TensorFlow's seeding
// and stream layout, so a seeded graph gives TensorFlow's numbers. Each call
// returns four 32-bit words and advances the 128-bit counter by one; Skip(n)
// jumps n calls ahead, so disjoint parts of one output can be filled
// independently (on CPU threads or GPU threads) and still equal a
// sequential fill.
//
//   PhiloxRandom gen(/*seed_lo=*/seed, /*seed_hi=*/seed2);
//   PhiloxRandom::Result words = gen();   // four uint32
//   gen.Skip(1000);
//
// Plain value type, usable in host and CUDA device code (the .cu kernels
// include it too).
#ifndef MINITF_OPS_KERNELS_PHILOX_RANDOM_H_
#define MINITF_OPS_KERNELS_PHILOX_RANDOM_H_

#include <cstdint>

#if defined(__CUDACC__)
#define MINITF_HOST_DEVICE __host__ __device__
#else
#define MINITF_HOST_DEVICE
#endif

namespace minitf {

class PhiloxRandom {
 public:
  struct Result {
    uint32_t word[4];
    MINITF_HOST_DEVICE uint32_t operator[](int i) const { return word[i]; }
  };

  MINITF_HOST_DEVICE PhiloxRandom() = default;
  // The key is seed_lo; seed_hi starts the counter's upper half (TensorFlow
  // passes an op's `seed` and `seed2` attrs in that order).
  MINITF_HOST_DEVICE PhiloxRandom(uint64_t seed_lo, uint64_t seed_hi) {
    key_[0] = static_cast<uint32_t>(seed_lo);
    key_[1] = static_cast<uint32_t>(seed_lo >> 32);
    counter_[2] = static_cast<uint32_t>(seed_hi);
    counter_[3] = static_cast<uint32_t>(seed_hi >> 32);
  }

  // Moves the stream `count` calls ahead.
  MINITF_HOST_DEVICE void Skip(uint64_t count) {
    const auto low = static_cast<uint32_t>(count);
    auto high = static_cast<uint32_t>(count >> 32);
    counter_[0] += low;
    if (counter_[0] < low) ++high;
    counter_[1] += high;
    if (counter_[1] < high && ++counter_[2] == 0) ++counter_[3];
  }

  // Ten rounds over the counter, the key bumped between rounds; then the
  // counter moves on by one.
  MINITF_HOST_DEVICE Result operator()() {
    uint32_t c[4] = {counter_[0], counter_[1], counter_[2], counter_[3]};
    uint32_t k[2] = {key_[0], key_[1]};
    for (int round = 0; round < 10; ++round) {
      const uint64_t p0 = static_cast<uint64_t>(kMultiplierA) * c[0];
      const uint64_t p1 = static_cast<uint64_t>(kMultiplierB) * c[2];
      const uint32_t next[4] = {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k[0],
                                static_cast<uint32_t>(p1),
                                static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k[1],
                                static_cast<uint32_t>(p0)};
      for (int i = 0; i < 4; ++i) c[i] = next[i];
      k[0] += kWeylA;
      k[1] += kWeylB;
    }
    Skip(1);
    return Result{{c[0], c[1], c[2], c[3]}};
  }

 private:
  // The constants of the paper.
  static constexpr uint32_t kMultiplierA = 0xD2511F53;
  static constexpr uint32_t kMultiplierB = 0xCD9E8D57;
  static constexpr uint32_t kWeylA = 0x9E3779B9;
  static constexpr uint32_t kWeylB = 0xBB67AE85;

  uint32_t counter_[4] = {0, 0, 0, 0};
  uint32_t key_[2] = {0, 0};
};

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_PHILOX_RANDOM_H_
