// SubAllocator: the backing memory a pooling allocator carves up.
//
// A BFCAllocator asks its SubAllocator for large regions and hands them back
// whole; it never learns whether they are host memory, pinned host memory or
// device memory. HostSubAllocator is the plain host implementation.
//
//   auto sub = std::make_unique<HostSubAllocator>();
//   size_t got = 0;
//   void* region = sub->Alloc(256, 1 << 20, &got);   // got >= 1 << 20
//   sub->Free(region, got);
#ifndef MINITF_ALLOCATOR_SUB_ALLOCATOR_H_
#define MINITF_ALLOCATOR_SUB_ALLOCATOR_H_

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace minitf {

// Thread-safety: implementations must allow concurrent Alloc/Free; the
// visitors are fixed at construction and called on the calling thread.
class SubAllocator {
 public:
  // Called with (region pointer, index, size in bytes) after every successful
  // Alloc and before every Free; e.g. to register memory with a DMA engine.
  // `index` is the NUMA node or device ordinal of the memory.
  using Visitor = std::function<void(void* ptr, int index, size_t num_bytes)>;

  SubAllocator(std::vector<Visitor> alloc_visitors, std::vector<Visitor> free_visitors);
  virtual ~SubAllocator() = default;
  SubAllocator(const SubAllocator&) = delete;
  SubAllocator& operator=(const SubAllocator&) = delete;

  // Returns at least `num_bytes` aligned to `alignment` (a power of two), and
  // in `*bytes_received` how many bytes were actually granted (which the
  // caller passes back to Free). Returns nullptr, with *bytes_received = 0,
  // when the memory cannot be had.
  virtual void* Alloc(size_t alignment, size_t num_bytes, size_t* bytes_received) = 0;
  // REQUIRES: `ptr` came from Alloc with `num_bytes` == *bytes_received.
  virtual void Free(void* ptr, size_t num_bytes) = 0;

  virtual std::string Name() const = 0;

 protected:
  void VisitAlloc(void* ptr, int index, size_t num_bytes) const;
  void VisitFree(void* ptr, int index, size_t num_bytes) const;

 private:
  const std::vector<Visitor> alloc_visitors_;
  const std::vector<Visitor> free_visitors_;
};

// Host memory from aligned_alloc, within the process's HostMemoryBudget
// (platform/host_memory.h): past it, Alloc gives null. Thread-safe.
class HostSubAllocator final : public SubAllocator {
 public:
  explicit HostSubAllocator(std::vector<Visitor> alloc_visitors = {},
                            std::vector<Visitor> free_visitors = {});

  void* Alloc(size_t alignment, size_t num_bytes, size_t* bytes_received) override;
  void Free(void* ptr, size_t num_bytes) override;
  std::string Name() const override { return "host"; }
};

}  // namespace minitf

#endif  // MINITF_ALLOCATOR_SUB_ALLOCATOR_H_
