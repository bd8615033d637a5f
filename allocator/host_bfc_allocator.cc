// "BFCCPUAllocator": the process's host tensors come from a BFCAllocator over
// host memory, limited to what this process may have (HostMemoryLimitBytes:
// physical memory, cgroup, ulimit) less a margin (HostMemoryBudget), and
// grown on demand. As TensorFlow's CPU
// allocator, a request that does not fit fails at once: no other step frees
// host memory often enough to be worth waiting for.
#include <memory>

#include "allocator/allocator_registry.h"
#include "allocator/bfc_allocator.h"
#include "allocator/sub_allocator.h"
#include "platform/host_memory.h"

namespace minitf {
namespace {

// What the process's host memory budget allows (HostMemoryBudget: the
// process's limit less a margin for all else it holds).
size_t HostLimitBytes() {
  const int64_t limit = HostMemoryBudget::Process().limit();
  if (limit <= 0) return size_t{16} << 30;  // a guess when unknown
  return static_cast<size_t>(limit);
}

class HostBFCAllocatorFactory final : public AllocatorFactory {
 public:
  std::unique_ptr<Allocator> CreateAllocator() override {
    BFCAllocator::Options options;
    options.allow_growth = true;
    options.garbage_collection = true;
    options.name = "cpu_bfc";
    options.retry_timeout = absl::ZeroDuration();
    return std::make_unique<BFCAllocator>(std::make_unique<HostSubAllocator>(),
                                          HostLimitBytes(), options);
  }
};

}  // namespace

REGISTER_MEM_ALLOCATOR("BFCCPUAllocator", 200, HostBFCAllocatorFactory);

}  // namespace minitf
