// AdjustableAllocator: changes a BFCAllocator's memory limit while it is in
// use (AntMan's GPUAdjustableAllocator).
//
// Growing, or shrinking to a limit still above the bytes the pool has
// reserved, only moves the limit. Shrinking below the reserved bytes returns
// empty regions to the sub-allocator, largest first, until the target is
// reached; regions that hold live chunks cannot be returned, so the limit
// actually reached may be above the one asked for, and is what
// AdjustMemoryLimit returns. Call it at a step boundary, when few buffers are
// live.
//
//   AdjustableAllocator adjust;
//   size_t reached = adjust.AdjustMemoryLimit(2 << 30, device_bfc);
//   if (reached > 2 << 30) { /* try again after the next step */ }
#ifndef MINITF_ALLOCATOR_ADJUSTABLE_ALLOCATOR_H_
#define MINITF_ALLOCATOR_ADJUSTABLE_ALLOCATOR_H_

#include <cstddef>

#include "allocator/bfc_allocator.h"

namespace minitf {

// Pool size and the bytes in regions holding live chunks (what cannot be
// given back now), read consistently under the BFC's lock.
using MemPoolStats = BFCAllocator::PoolStats;

// Stateless; thread-safe as far as the BFCAllocator is (it is).
class AdjustableAllocator {
 public:
  // Sets `bfc`'s limit to `new_limit`, freeing empty regions if needed, and
  // returns the limit reached (>= new_limit; larger when live regions hold
  // more than new_limit). `bfc` is not owned.
  size_t AdjustMemoryLimit(size_t new_limit, BFCAllocator* bfc) const;

  MemPoolStats GetMemPoolStats(const BFCAllocator& bfc) const { return bfc.GetPoolStats(); }
};

}  // namespace minitf

#endif  // MINITF_ALLOCATOR_ADJUSTABLE_ALLOCATOR_H_
