// CappedSubAllocator: a SubAllocator over host memory with a hard capacity,
// standing in for a small device in allocator tests. It counts its Alloc and
// Free calls and the bytes outstanding, so tests can see what a pooling
// allocator reserves and returns.
//
//   auto sub = std::make_unique<test::CappedSubAllocator>(1 << 20);
//   CappedSubAllocator* raw = sub.get();   // observe it after handing it over
//   BFCAllocator bfc(std::move(sub), 1 << 20, {});
//   EXPECT_EQ(raw->num_allocs(), 1);
#ifndef MINITF_TESTS_TESTLIB_CAPPED_SUB_ALLOCATOR_H_
#define MINITF_TESTS_TESTLIB_CAPPED_SUB_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "allocator/sub_allocator.h"
#include "platform/mutex.h"

namespace minitf::test {

// Thread-safe.
class CappedSubAllocator final : public SubAllocator {
 public:
  explicit CappedSubAllocator(size_t capacity_bytes);
  ~CappedSubAllocator() override;

  // Fails (nullptr) when `num_bytes` would take the outstanding bytes past
  // the capacity.
  void* Alloc(size_t alignment, size_t num_bytes, size_t* bytes_received) override;
  void Free(void* ptr, size_t num_bytes) override;
  std::string Name() const override { return "capped"; }

  // Changes the capacity (outstanding regions are kept), as another job on
  // the same device would.
  void SetCapacity(size_t capacity_bytes);

  int64_t num_allocs() const;
  int64_t num_frees() const;
  int64_t num_failed_allocs() const;
  size_t bytes_outstanding() const;
  // The sizes of every successful Alloc, in order.
  std::vector<size_t> alloc_sizes() const;

 private:
  mutable Mutex mu_;
  size_t capacity_ ABSL_GUARDED_BY(mu_);
  size_t outstanding_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t num_allocs_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t num_frees_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t num_failed_allocs_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<size_t> alloc_sizes_ ABSL_GUARDED_BY(mu_);
};

}  // namespace minitf::test

#endif  // MINITF_TESTS_TESTLIB_CAPPED_SUB_ALLOCATOR_H_
