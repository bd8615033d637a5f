// Entry: one input slot of one node during a step, as the executor and its
// propagators keep it (TensorFlow's executor Entry).
#ifndef MINITF_RUNTIME_ENTRY_H_
#define MINITF_RUNTIME_ENTRY_H_

#include <cstdint>

#include "absl/container/inlined_vector.h"
#include "platform/mutex.h"
#include "runtime/tensor.h"

namespace minitf {

struct Entry {
  enum class State : uint8_t { kNoValue, kHasValue, kHasRef };
  State state = State::kNoValue;
  Tensor val;
  Tensor* ref = nullptr;   // Not owned.
  Mutex* ref_mu = nullptr;  // Not owned.

  void Clear() {
    state = State::kNoValue;
    val = Tensor();
    ref = nullptr;
    ref_mu = nullptr;
  }
};

// A node's outputs, by slot.
using EntryVector = absl::InlinedVector<Entry, 4>;

// Pending-count words pack two 32-bit counters: the low half is the number
// of inputs still awaited, the high half the number of dead inputs seen.
// For a Merge the low half is (control inputs awaited << 1) | bit 0, where
// bit 0 means "no live data input has arrived yet".
constexpr uint64_t kDeadOne = uint64_t{1} << 32;
inline uint32_t PendingOf(uint64_t v) { return static_cast<uint32_t>(v); }
inline uint32_t DeadOf(uint64_t v) { return static_cast<uint32_t>(v >> 32); }

}  // namespace minitf

#endif  // MINITF_RUNTIME_ENTRY_H_
