#include "tests/testlib/capped_sub_allocator.h"

#include <cstdlib>

namespace minitf::test {

CappedSubAllocator::CappedSubAllocator(size_t capacity_bytes)
    : SubAllocator({}, {}), capacity_(capacity_bytes) {}

CappedSubAllocator::~CappedSubAllocator() = default;

void* CappedSubAllocator::Alloc(size_t alignment, size_t num_bytes, size_t* bytes_received) {
  *bytes_received = 0;
  if (alignment < alignof(std::max_align_t)) alignment = alignof(std::max_align_t);
  const size_t rounded = (num_bytes + alignment - 1) / alignment * alignment;
  {
    MutexLock lock(&mu_);
    if (num_bytes == 0 || rounded > capacity_ || outstanding_ > capacity_ - rounded) {
      ++num_failed_allocs_;
      return nullptr;
    }
    outstanding_ += rounded;
    ++num_allocs_;
    alloc_sizes_.push_back(rounded);
  }
  void* ptr = std::aligned_alloc(alignment, rounded);
  if (ptr == nullptr) {
    MutexLock lock(&mu_);
    outstanding_ -= rounded;
    --num_allocs_;
    ++num_failed_allocs_;
    alloc_sizes_.pop_back();
    return nullptr;
  }
  *bytes_received = rounded;
  VisitAlloc(ptr, 0, rounded);
  return ptr;
}

void CappedSubAllocator::Free(void* ptr, size_t num_bytes) {
  if (ptr == nullptr) return;
  VisitFree(ptr, 0, num_bytes);
  std::free(ptr);
  MutexLock lock(&mu_);
  outstanding_ -= num_bytes;
  ++num_frees_;
}

void CappedSubAllocator::SetCapacity(size_t capacity_bytes) {
  MutexLock lock(&mu_);
  capacity_ = capacity_bytes;
}

int64_t CappedSubAllocator::num_allocs() const {
  MutexLock lock(&mu_);
  return num_allocs_;
}

int64_t CappedSubAllocator::num_frees() const {
  MutexLock lock(&mu_);
  return num_frees_;
}

int64_t CappedSubAllocator::num_failed_allocs() const {
  MutexLock lock(&mu_);
  return num_failed_allocs_;
}

size_t CappedSubAllocator::bytes_outstanding() const {
  MutexLock lock(&mu_);
  return outstanding_;
}

std::vector<size_t> CappedSubAllocator::alloc_sizes() const {
  MutexLock lock(&mu_);
  return alloc_sizes_;
}

}  // namespace minitf::test
