#include "allocator/adjustable_allocator.h"

#include "platform/logging.h"

namespace minitf {

size_t AdjustableAllocator::AdjustMemoryLimit(size_t new_limit, BFCAllocator* bfc) const {
  // FreeEmptyMemory frees nothing when the reservation is already within the
  // target. SetMemoryLimit clamps to what is reserved at that moment, so a
  // region reserved in between is accounted for rather than orphaned.
  bfc->FreeEmptyMemory(new_limit);
  const size_t reached = bfc->SetMemoryLimit(new_limit);
  // Not a warning: the caller retries at every step until reached, and
  // reports the outcome itself (once, not at every retry).
  if (reached > new_limit) {
    VLOG(1, "{}: memory limit {} requested, {} reached: regions with live buffers hold "
            "the rest",
         bfc->Name(), new_limit, reached);
  }
  return reached;
}

}  // namespace minitf
