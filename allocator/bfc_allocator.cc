#include "allocator/bfc_allocator.h"

#include <algorithm>
#include <bit>
#include <utility>

#include "platform/device_address.h"
#include "platform/logging.h"
#include "sanitizer/asan_interface.h"  // no-op macros unless built with ASan

namespace minitf {

namespace {

// A chunk is not split when the remainder is smaller than the request and
// under this size: the waste stays bounded and small chunks are not created.
constexpr size_t kMaxInternalFragmentation = size_t{128} << 20;
// Regions under allow_growth start at this size and double.
constexpr size_t kInitialRegionBytes = size_t{2} << 20;
// Requests above this are refused outright (and rounding cannot overflow).
constexpr size_t kMaxRequestBytes = std::numeric_limits<size_t>::max() / 4;

// Under AddressSanitizer, free chunks are poisoned and an allocation unpoisons
// its requested bytes rounded up to kAllocatorAlignment (as an aligned malloc
// of that size would), so overruns and use after free inside a region are
// caught as they would be with malloc. Device memory is poisoned at its real
// addresses (a SimGPU region's are tagged), so a SimGPU kernel that touches
// a freed device chunk is caught too.
size_t VisibleBytes(size_t num_bytes, size_t chunk_size) {
  const size_t a = Allocator::kAllocatorAlignment;
  return std::min(chunk_size, (std::max<size_t>(num_bytes, 1) + a - 1) / a * a);
}

size_t RoundDown(size_t n) {
  return n / BFCAllocator::kMinAllocationSize * BFCAllocator::kMinAllocationSize;
}

// The chunk bytes to look for so that a chunk of RoundedBytes(num_bytes) at
// `alignment` can be cut out of it.
size_t NeededBytes(size_t alignment, size_t num_bytes) {
  if (num_bytes > kMaxRequestBytes) return std::numeric_limits<size_t>::max();
  constexpr size_t kMin = BFCAllocator::kMinAllocationSize;
  const size_t extra = alignment > kMin ? alignment - kMin : 0;
  return BFCAllocator::RoundedBytes(num_bytes) + extra;
}

}  // namespace

BFCAllocator::BFCAllocator(std::unique_ptr<SubAllocator> sub_allocator, size_t memory_limit,
                           Options options)
    : options_(std::move(options)),
      sub_allocator_(std::move(sub_allocator)),
      memory_limit_(memory_limit) {
  MutexLock lock(&mu_);
  curr_region_bytes_ = std::max(kMinAllocationSize,
                                RoundDown(std::min(memory_limit, kInitialRegionBytes)));
  stats_.bytes_limit = static_cast<int64_t>(memory_limit);
}

BFCAllocator::~BFCAllocator() {
  MutexLock lock(&mu_);
  if (!in_use_.empty()) {
    LOG(WARNING, "{}: destroyed with {} live allocations ({} bytes)", options_.name,
                 in_use_.size(), stats_.bytes_in_use);
  }
  for (auto& [addr, region] : regions_) {
    ASAN_UNPOISON_MEMORY_REGION(RealAddress(region.ptr), region.received_bytes);
    sub_allocator_->Free(region.ptr, region.received_bytes);
  }
}

size_t BFCAllocator::RoundedBytes(size_t num_bytes) {
  if (num_bytes > kMaxRequestBytes) return RoundDown(std::numeric_limits<size_t>::max());
  return std::max(kMinAllocationSize, RoundDown(num_bytes + kMinAllocationSize - 1));
}

int BFCAllocator::BinFor(size_t chunk_size) {
  const uint64_t units = std::max<uint64_t>(1, chunk_size / kMinAllocationSize);
  return std::min(kNumBins - 1, static_cast<int>(std::bit_width(units)) - 1);
}

void* BFCAllocator::AllocateRaw(size_t alignment, size_t num_bytes,
                                const AllocationAttributes& attrs) {
  if (num_bytes == 0) {  // As TensorFlow's: no chunk, and not a failure.
    VLOG(2, "{}: tried to allocate 0 bytes", options_.name);
    return nullptr;
  }
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    LOG(ERROR, "{}: alignment {} is not a power of two", options_.name, alignment);
    return nullptr;
  }
  void* ptr = TryAllocate(alignment, num_bytes, /*log_failure=*/false);
  if (ptr != nullptr || attrs.no_retry_on_failure) return ptr;
  if (!CanEverFit(alignment, num_bytes)) {
    LOG(WARNING, "{}: cannot allocate {} bytes: more than the memory limit", options_.name,
                 num_bytes);
    return nullptr;
  }
  if (NothingToFree()) {
    LOG(WARNING, "{}: cannot allocate {} bytes, and none of its memory is in use to be freed",
                 options_.name, num_bytes);
    return nullptr;
  }
  return retry_.AllocateRaw(
      [this](size_t a, size_t n, bool verbose) { return TryAllocate(a, n, verbose); },
      options_.retry_timeout, alignment, num_bytes);
}

bool BFCAllocator::CanEverFit(size_t alignment, size_t num_bytes) const {
  MutexLock lock(&mu_);
  return NeededBytes(alignment, num_bytes) <= RoundDown(memory_limit_);
}

bool BFCAllocator::NothingToFree() const {
  MutexLock lock(&mu_);
  return stats_.bytes_in_use == 0;
}

void* BFCAllocator::TryAllocate(size_t alignment, size_t num_bytes, bool log_failure) {
  MutexLock lock(&mu_);
  if (void* ptr = AllocateFromBins(alignment, num_bytes)) return ptr;
  const size_t needed = NeededBytes(alignment, num_bytes);
  if (needed > memory_limit_) return nullptr;  // No point freeing anything.
  if (Extend(needed)) return AllocateFromBins(alignment, num_bytes);
  if (options_.garbage_collection && FreeEmptyRegions(0) > 0 && Extend(needed)) {
    return AllocateFromBins(alignment, num_bytes);
  }
  if (log_failure) {
    LOG(WARNING, "{}: out of memory allocating {} bytes (alignment {})\n{}", options_.name,
                 num_bytes, alignment, DumpLocked().DebugString());
  }
  return nullptr;
}

void* BFCAllocator::AllocateFromBins(size_t alignment, size_t num_bytes) {
  const size_t needed = NeededBytes(alignment, num_bytes);
  const size_t rounded = RoundedBytes(num_bytes);
  // Only the first bin can hold chunks smaller than `needed`; in the later
  // ones the first (smallest) chunk is the best fit.
  const int first_bin = BinFor(needed);
  for (int b = first_bin; b < kNumBins; ++b) {
    b = NextNonEmptyBin(b);
    if (b == kNumBins) break;
    auto it = b == first_bin ? bins_[b].lower_bound(FreeKey(needed, 0, 0)) : bins_[b].begin();
    if (it == bins_[b].end()) continue;
    ChunkHandle h = std::get<2>(*it);
    bins_[b].erase(it);
    if (bins_[b].empty()) non_empty_bins_ &= ~(uint32_t{1} << b);
    if (alignment > kMinAllocationSize) {
      const uintptr_t addr = reinterpret_cast<uintptr_t>(chunks_[h].ptr);
      const size_t misalign = (alignment - addr % alignment) % alignment;
      if (misalign != 0) {  // Keep the front as a free chunk.
        const ChunkHandle back = Split(h, misalign);
        InsertFree(h);
        h = back;
      }
    }
    const size_t leftover = chunks_[h].size - rounded;
    if (leftover > 0 && (leftover >= rounded || leftover >= kMaxInternalFragmentation)) {
      InsertFree(Split(h, rounded));
    }
    Chunk& c = chunks_[h];
    ASAN_UNPOISON_MEMORY_REGION(RealAddress(c.ptr), VisibleBytes(num_bytes, c.size));
    c.in_use = true;
    c.requested_size = num_bytes;
    in_use_[c.ptr] = h;
    // As TensorFlow's: the chunk taken counts, not the bytes asked for.
    ++stats_.num_allocs;
    stats_.bytes_in_use += static_cast<int64_t>(c.size);
    stats_.peak_bytes_in_use = std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
    stats_.largest_alloc_size = std::max(stats_.largest_alloc_size, static_cast<int64_t>(c.size));
    return c.ptr;
  }
  return nullptr;
}

bool BFCAllocator::Extend(size_t needed) {
  const size_t reserved = static_cast<size_t>(stats_.bytes_reserved);
  const size_t available = memory_limit_ > reserved ? RoundDown(memory_limit_ - reserved) : 0;
  if (needed > available) return false;
  size_t bytes = available;
  if (options_.allow_growth) {
    bytes = curr_region_bytes_;
    while (bytes < needed && bytes <= available / 2) bytes *= 2;
    bytes = std::clamp(bytes, needed, available);
  }
  size_t received = 0;
  void* mem = sub_allocator_->Alloc(kMinAllocationSize, bytes, &received);
  bool backpedalled = false;
  while (mem == nullptr && bytes > needed) {  // The sub-allocator is short: ask for less.
    bytes = std::max(needed, RoundDown(bytes / 10 * 9));
    mem = sub_allocator_->Alloc(kMinAllocationSize, bytes, &received);
    backpedalled = true;
  }
  if (mem == nullptr) return false;
  ASAN_POISON_MEMORY_REGION(RealAddress(mem), received);
  if (options_.allow_growth && !backpedalled) {
    // Twice the region taken, not twice the planned size: a region the
    // limit clamped (a job under a cut limit) must not inflate the next one,
    // which would otherwise double at every clamped region until it took
    // the whole limit once raised, or overflowed to zero.
    curr_region_bytes_ = bytes * 2;
  }
  const ChunkHandle h = NewChunk();
  Chunk& c = chunks_[h];
  c.ptr = static_cast<char*>(mem);
  c.size = RoundDown(received);
  regions_[reinterpret_cast<uintptr_t>(mem)] = Region{c.ptr, c.size, received, h};
  InsertFree(h);
  stats_.bytes_reserved += static_cast<int64_t>(received);
  stats_.peak_bytes_reserved = std::max(stats_.peak_bytes_reserved, stats_.bytes_reserved);
  return true;
}

BFCAllocator::ChunkHandle BFCAllocator::NewChunk() {
  if (free_records_ != kInvalidChunk) {
    const ChunkHandle h = free_records_;
    free_records_ = chunks_[h].next;
    chunks_[h] = Chunk();
    return h;
  }
  chunks_.emplace_back();
  return chunks_.size() - 1;
}

void BFCAllocator::DeleteChunk(ChunkHandle h) {
  chunks_[h] = Chunk();
  chunks_[h].next = free_records_;
  free_records_ = h;
}

void BFCAllocator::InsertFree(ChunkHandle h) {
  const Chunk& c = chunks_[h];
  const int b = BinFor(c.size);
  bins_[b].emplace(c.size, reinterpret_cast<uintptr_t>(c.ptr), h);
  non_empty_bins_ |= uint32_t{1} << b;
}

void BFCAllocator::RemoveFree(ChunkHandle h) {
  const Chunk& c = chunks_[h];
  const int b = BinFor(c.size);
  bins_[b].erase(FreeKey(c.size, reinterpret_cast<uintptr_t>(c.ptr), h));
  if (bins_[b].empty()) non_empty_bins_ &= ~(uint32_t{1} << b);
}

int BFCAllocator::NextNonEmptyBin(int bin) const {
  const uint32_t at_or_above = non_empty_bins_ & ~((uint32_t{1} << bin) - 1);
  return at_or_above == 0 ? kNumBins : std::countr_zero(at_or_above);
}

BFCAllocator::ChunkHandle BFCAllocator::Split(ChunkHandle h, size_t offset) {
  const ChunkHandle n = NewChunk();  // May move chunks_: index only after.
  Chunk& c = chunks_[h];
  Chunk& rest = chunks_[n];
  rest.ptr = c.ptr + offset;
  rest.size = c.size - offset;
  rest.prev = h;
  rest.next = c.next;
  if (c.next != kInvalidChunk) chunks_[c.next].prev = n;
  c.size = offset;
  c.next = n;
  return n;
}

void BFCAllocator::Merge(ChunkHandle h, ChunkHandle next) {
  Chunk& c = chunks_[h];
  const Chunk& n = chunks_[next];
  c.size += n.size;
  c.next = n.next;
  if (n.next != kInvalidChunk) chunks_[n.next].prev = h;
  DeleteChunk(next);
}

bool BFCAllocator::FreeLocked(void* ptr) {
  auto it = in_use_.find(ptr);
  if (it == in_use_.end()) return false;
  ChunkHandle h = it->second;
  in_use_.erase(it);
  Chunk& c = chunks_[h];
  ASAN_POISON_MEMORY_REGION(RealAddress(c.ptr), c.size);
  c.in_use = false;
  stats_.bytes_in_use -= static_cast<int64_t>(c.size);
  c.requested_size = 0;
  const ChunkHandle next = c.next;
  if (next != kInvalidChunk && !chunks_[next].in_use) {
    RemoveFree(next);
    Merge(h, next);
  }
  const ChunkHandle prev = chunks_[h].prev;
  if (prev != kInvalidChunk && !chunks_[prev].in_use) {
    RemoveFree(prev);
    Merge(prev, h);
    h = prev;
  }
  InsertFree(h);
  return true;
}

bool BFCAllocator::TryDeallocateRaw(void* ptr) {
  bool freed;
  {
    MutexLock lock(&mu_);
    freed = FreeLocked(ptr);
  }
  if (freed) retry_.NotifyDealloc();
  return freed;
}

void BFCAllocator::DeallocateRaw(void* ptr) {
  if (ptr == nullptr) return;
  bool freed;
  {
    MutexLock lock(&mu_);
    freed = FreeLocked(ptr);
    if (!freed) ++num_bad_deallocations_;
  }
  if (freed) {
    retry_.NotifyDealloc();
  } else {
    LOG(ERROR, "{}: DeallocateRaw({}) of a pointer that is not live here (double free or "
                  "foreign pointer); ignored",
                  options_.name, ptr);
  }
}

bool BFCAllocator::RegionIsEmpty(const Region& r) const {
  const Chunk& c = chunks_[r.first_chunk];
  return !c.in_use && c.next == kInvalidChunk;
}

int BFCAllocator::FreeEmptyRegions(size_t target_reserved) {
  std::vector<std::pair<size_t, uintptr_t>> empty;  // (size, start)
  for (const auto& [addr, region] : regions_) {
    if (RegionIsEmpty(region)) empty.emplace_back(region.received_bytes, addr);
  }
  std::sort(empty.rbegin(), empty.rend());  // largest first
  int freed = 0;
  for (const auto& [size, addr] : empty) {
    if (static_cast<size_t>(stats_.bytes_reserved) <= target_reserved) break;
    auto it = regions_.find(addr);
    RemoveFree(it->second.first_chunk);
    DeleteChunk(it->second.first_chunk);
    ASAN_UNPOISON_MEMORY_REGION(RealAddress(it->second.ptr), it->second.received_bytes);
    sub_allocator_->Free(it->second.ptr, it->second.received_bytes);
    stats_.bytes_reserved -= static_cast<int64_t>(it->second.received_bytes);
    regions_.erase(it);
    ++freed;
  }
  return freed;
}

size_t BFCAllocator::SetMemoryLimit(size_t memory_limit) {
  MutexLock lock(&mu_);
  memory_limit_ = std::max(memory_limit, static_cast<size_t>(stats_.bytes_reserved));
  stats_.bytes_limit = static_cast<int64_t>(memory_limit_);
  return memory_limit_;
}

size_t BFCAllocator::FreeEmptyMemory(size_t target_reserved) {
  MutexLock lock(&mu_);
  FreeEmptyRegions(target_reserved);
  return static_cast<size_t>(stats_.bytes_reserved);
}

bool BFCAllocator::Owns(const void* ptr) const {
  const uintptr_t addr = reinterpret_cast<uintptr_t>(ptr);
  MutexLock lock(&mu_);
  auto it = regions_.upper_bound(addr);
  if (it == regions_.begin()) return false;
  --it;
  return addr < it->first + it->second.chunk_bytes;
}

size_t BFCAllocator::RequestedSize(const void* ptr) const {
  MutexLock lock(&mu_);
  auto it = in_use_.find(ptr);
  return it == in_use_.end() ? 0 : chunks_[it->second].requested_size;
}

size_t BFCAllocator::AllocatedSize(const void* ptr) const {
  MutexLock lock(&mu_);
  auto it = in_use_.find(ptr);
  return it == in_use_.end() ? 0 : chunks_[it->second].size;
}

std::optional<AllocatorStats> BFCAllocator::GetStats() const {
  MutexLock lock(&mu_);
  AllocatorStats stats = stats_;
  stats.largest_free_block_bytes = static_cast<int64_t>(LargestFreeChunk());
  return stats;
}

size_t BFCAllocator::LargestFreeChunk() const {
  if (non_empty_bins_ == 0) return 0;
  // Bins are ordered by size class and each by size: the answer is the last
  // chunk of the highest non-empty bin.
  const int top = static_cast<int>(std::bit_width(non_empty_bins_)) - 1;
  return std::get<0>(*bins_[top].rbegin());
}

void BFCAllocator::ClearStats() {
  MutexLock lock(&mu_);
  stats_.num_allocs = 0;
  stats_.peak_bytes_in_use = stats_.bytes_in_use;
  stats_.largest_alloc_size = 0;
  stats_.peak_bytes_reserved = stats_.bytes_reserved;
}

size_t BFCAllocator::UnusedBytes() const {
  MutexLock lock(&mu_);
  const auto in_use = static_cast<size_t>(stats_.bytes_in_use);
  return memory_limit_ > in_use ? memory_limit_ - in_use : 0;
}

int64_t BFCAllocator::num_bad_deallocations() const {
  MutexLock lock(&mu_);
  return num_bad_deallocations_;
}

BFCAllocator::PoolStats BFCAllocator::GetPoolStats() const {
  MutexLock lock(&mu_);
  PoolStats s;
  s.memory_limit = memory_limit_;
  s.pool_bytes = static_cast<size_t>(stats_.bytes_reserved);
  for (const auto& [addr, region] : regions_) {
    ++s.num_regions;
    if (RegionIsEmpty(region)) {
      ++s.num_empty_regions;
    } else {
      s.live_region_bytes += region.received_bytes;
    }
  }
  return s;
}

MemoryDump BFCAllocator::GetMemoryDump() const {
  MutexLock lock(&mu_);
  return DumpLocked();
}

MemoryDump BFCAllocator::DumpLocked() const {
  MemoryDump d;
  d.allocator_name = options_.name;
  d.memory_limit = memory_limit_;
  d.bytes_reserved = static_cast<size_t>(stats_.bytes_reserved);
  d.num_regions = static_cast<int>(regions_.size());
  d.bins.resize(kNumBins);
  for (int b = 0; b < kNumBins; ++b) {
    d.bins[b].bin = b;
    d.bins[b].min_chunk_size = kMinAllocationSize << b;
  }
  for (const auto& [addr, region] : regions_) {
    for (ChunkHandle h = region.first_chunk; h != kInvalidChunk; h = chunks_[h].next) {
      const Chunk& c = chunks_[h];
      BinSummary& bin = d.bins[BinFor(c.size)];
      if (c.in_use) {
        ++bin.in_use_chunks;
        bin.in_use_bytes += c.size;
        bin.requested_bytes += c.requested_size;
      } else {
        ++bin.free_chunks;
        bin.free_bytes += c.size;
        d.free_bytes += c.size;
        d.largest_free_chunk = std::max(d.largest_free_chunk, c.size);
      }
    }
  }
  if (d.free_bytes > 0) {
    d.fragmentation = 1.0 - static_cast<double>(d.largest_free_chunk) /
                                static_cast<double>(d.free_bytes);
  }
  return d;
}

}  // namespace minitf
