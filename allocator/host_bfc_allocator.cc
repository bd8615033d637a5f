// "BFCCPUAllocator": the process's host tensors come from a BFCAllocator over
// host memory, limited to the machine's physical memory and grown on demand.
#include <unistd.h>

#include <memory>

#include "allocator/allocator_registry.h"
#include "allocator/bfc_allocator.h"
#include "allocator/sub_allocator.h"

namespace minitf {
namespace {

size_t PhysicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return size_t{16} << 30;  // a guess when unknown
  return static_cast<size_t>(pages) * static_cast<size_t>(page_size);
}

class HostBFCAllocatorFactory final : public AllocatorFactory {
 public:
  std::unique_ptr<Allocator> CreateAllocator() override {
    BFCAllocator::Options options;
    options.allow_growth = true;
    options.garbage_collection = true;
    options.name = "cpu_bfc";
    return std::make_unique<BFCAllocator>(std::make_unique<HostSubAllocator>(),
                                          PhysicalMemoryBytes(), options);
  }
};

}  // namespace

REGISTER_MEM_ALLOCATOR("BFCCPUAllocator", 200, HostBFCAllocatorFactory);

}  // namespace minitf
