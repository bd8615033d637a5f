// BFCAllocator: best-fit with coalescing, TensorFlow's pooling allocator.
//
// The model. The allocator owns *regions*: large blocks obtained from a
// SubAllocator and returned to it only whole. Each region is cut into
// *chunks* that tile it exactly, linked in address order (prev/next). A chunk
// is either in use (handed out by AllocateRaw) or free. Chunk sizes are
// multiples of kMinAllocationSize (256 bytes) and so are chunk addresses.
// Free chunks are indexed by *bins*: bin i holds the free chunks whose size is
// in [256 << i, 256 << (i + 1)) (the last bin has no upper end), ordered by
// (size, address). Chunks are named by ChunkHandle, an index into a vector of
// records; freed records are kept on a free list and reused, never leaked.
//
// Allocation rounds the request up to 256 bytes, searches the bins from the
// request's size class upwards for the smallest chunk that fits (the best
// fit; the lowest address among equals), and splits it when the remainder is
// worth keeping: unless the remainder is smaller than the request *and* under
// 128 MiB, it becomes a new free chunk. When nothing fits, a new region is
// reserved: under allow_growth regions start at 2 MiB and double, otherwise
// the first region is the whole memory_limit. Reserved bytes never exceed
// memory_limit. If that fails and garbage_collection is on, the empty regions
// (one free chunk covering the region) are returned to the sub-allocator and
// the extension tried once more. Unless the request says no_retry_on_failure,
// a failed allocation then waits (AllocatorRetry) for frees, up to
// Options::retry_timeout, and logs a MemoryDump if it still fails; it fails
// at once when none of the pool is in use (nothing could be freed).
// Deallocation coalesces the chunk with free neighbours in its region.
//
//   BFCAllocator bfc(std::make_unique<HostSubAllocator>(), 1 << 30,
//                    {.allow_growth = true, .name = "cpu_bfc"});
//   void* p = bfc.AllocateRaw(64, 1000);   // a 1024-byte chunk
//   bfc.DeallocateRaw(p);
//
// A request of zero bytes returns nullptr (no chunk is taken), as in
// TensorFlow; callers such as Tensor do not allocate for empty buffers.
//
// Statistics, as TensorFlow's BFC counts them: bytes_in_use,
// peak_bytes_in_use and largest_alloc_size count chunk bytes (AllocatedSize:
// the request rounded up to 256 bytes, more when a chunk was not split), not
// the bytes asked for (RequestedSize); largest_free_block_bytes is the
// largest free chunk. bytes_reserved and peak_bytes_reserved are the sum of
// region sizes (TensorFlow's pool_bytes and peak_pool_bytes); bytes_limit is
// memory_limit. ClearStats also resets peak_bytes_reserved, which
// TensorFlow's does not: AntMan samples a peak per step.
//
// Thread-safety: every public method may be called from any thread; one
// mutex guards the whole pool.
#ifndef MINITF_ALLOCATOR_BFC_ALLOCATOR_H_
#define MINITF_ALLOCATOR_BFC_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <set>
#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "allocator/allocator.h"
#include "allocator/allocator_retry.h"
#include "allocator/memory_dump.h"
#include "allocator/sub_allocator.h"
#include "platform/mutex.h"

namespace minitf {

class BFCAllocator final : public Allocator {
 public:
  struct Options {
    // Reserve regions on demand, doubling; otherwise reserve memory_limit at
    // the first allocation.
    bool allow_growth = true;
    // When an allocation fails, return empty regions and try once more.
    bool garbage_collection = true;
    std::string name = "bfc";
    // How long a failing allocation waits for frees (unless the request says
    // no_retry_on_failure).
    absl::Duration retry_timeout = absl::Seconds(10);
  };

  // Size statistics of the pool, for AdjustableAllocator and AntMan's
  // statistics (read under the lock, so consistent).
  struct PoolStats {
    size_t memory_limit = 0;
    size_t pool_bytes = 0;         // bytes reserved in regions
    size_t live_region_bytes = 0;  // bytes of regions holding an in-use chunk
    int num_regions = 0;
    int num_empty_regions = 0;
  };

  static constexpr size_t kMinAllocationSize = 256;
  static constexpr int kNumBins = 21;

  BFCAllocator(std::unique_ptr<SubAllocator> sub_allocator, size_t memory_limit,
               Options options);
  // Returns every region to the sub-allocator. Live allocations are reported.
  ~BFCAllocator() override;

  std::string Name() const override { return options_.name; }
  void* AllocateRaw(size_t alignment, size_t num_bytes,
                    const AllocationAttributes& attrs) override;
  using Allocator::AllocateRaw;
  // A pointer that is not live here (double free, foreign pointer) is
  // reported with a logged error and ignored; the pool is left untouched.
  void DeallocateRaw(void* ptr) override;
  std::optional<AllocatorStats> GetStats() const override;
  void ClearStats() override;
  bool TracksAllocationSizes() const override { return true; }
  size_t RequestedSize(const void* ptr) const override;
  size_t AllocatedSize(const void* ptr) const override;

  // As DeallocateRaw, but returns false (silently) when `ptr` is not a live
  // allocation of this allocator.
  bool TryDeallocateRaw(void* ptr);
  // Whether `ptr` points into one of this allocator's regions.
  bool Owns(const void* ptr) const;

  // Sets the limit on reserved bytes, but never below the bytes reserved now;
  // returns the limit set. Does not free anything.
  size_t SetMemoryLimit(size_t memory_limit);
  // Returns empty regions to the sub-allocator, largest first, until at most
  // `target_reserved` bytes are reserved or no empty region is left. Returns
  // the bytes reserved afterwards.
  size_t FreeEmptyMemory(size_t target_reserved);

  // memory_limit minus the chunk bytes in use (bytes_in_use): what could be
  // allocated if the free space were one chunk. A snapshot; it may change at
  // once.
  size_t UnusedBytes() const;
  PoolStats GetPoolStats() const;
  MemoryDump GetMemoryDump() const;
  // How many DeallocateRaw calls were refused (double free, foreign pointer).
  int64_t num_bad_deallocations() const;

  // The chunk size a request of `num_bytes` gets (at least 256).
  static size_t RoundedBytes(size_t num_bytes);

 private:
  using ChunkHandle = size_t;
  static constexpr ChunkHandle kInvalidChunk = std::numeric_limits<size_t>::max();

  // Invariants: a live chunk lies inside one region; prev/next are its
  // address neighbours in that region (kInvalidChunk at the ends); two free
  // chunks are never neighbours; a chunk is in its bin's set iff it is free.
  struct Chunk {
    char* ptr = nullptr;
    size_t size = 0;            // multiple of kMinAllocationSize
    size_t requested_size = 0;  // meaningful while in_use
    bool in_use = false;
    ChunkHandle prev = kInvalidChunk;
    ChunkHandle next = kInvalidChunk;
  };
  // Invariant: the chunk at `ptr` (first_chunk) keeps its handle for the
  // region's lifetime (splits keep the lower half, merges the lower chunk).
  struct Region {
    char* ptr = nullptr;
    size_t chunk_bytes = 0;     // the region's usable bytes (tiled by chunks)
    size_t received_bytes = 0;  // what the sub-allocator granted (for Free)
    ChunkHandle first_chunk = kInvalidChunk;
  };
  // A free chunk's key in its bin: (size, address, handle).
  using FreeKey = std::tuple<size_t, uintptr_t, ChunkHandle>;

  static int BinFor(size_t chunk_size);
  bool CanEverFit(size_t alignment, size_t num_bytes) const;
  // No chunk is in use, so waiting for a deallocation cannot help.
  bool NothingToFree() const;
  void* TryAllocate(size_t alignment, size_t num_bytes, bool log_failure);

  void* AllocateFromBins(size_t alignment, size_t num_bytes) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool Extend(size_t needed_bytes) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  ChunkHandle NewChunk() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void DeleteChunk(ChunkHandle h) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void InsertFree(ChunkHandle h) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RemoveFree(ChunkHandle h) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The first bin at or above `bin` holding a free chunk; kNumBins if none.
  int NextNonEmptyBin(int bin) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The size of the largest free chunk; 0 when none is free.
  size_t LargestFreeChunk() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Cuts `h` at `offset`: `h` keeps the front, the returned chunk the rest.
  ChunkHandle Split(ChunkHandle h, size_t offset) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Folds `next` (the address successor of `h`) into `h`.
  void Merge(ChunkHandle h, ChunkHandle next) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool FreeLocked(void* ptr) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool RegionIsEmpty(const Region& r) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Returns empty regions until `target_reserved`; the number returned.
  int FreeEmptyRegions(size_t target_reserved) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  MemoryDump DumpLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Constant after construction.
  const Options options_;
  const std::unique_ptr<SubAllocator> sub_allocator_;
  AllocatorRetry retry_;  // thread-safe on its own

  mutable Mutex mu_;
  size_t memory_limit_ ABSL_GUARDED_BY(mu_);
  size_t curr_region_bytes_ ABSL_GUARDED_BY(mu_);  // size of the next region
  std::vector<Chunk> chunks_ ABSL_GUARDED_BY(mu_);
  ChunkHandle free_records_ ABSL_GUARDED_BY(mu_) = kInvalidChunk;  // via Chunk::next
  std::set<FreeKey> bins_[kNumBins] ABSL_GUARDED_BY(mu_);
  uint32_t non_empty_bins_ ABSL_GUARDED_BY(mu_) = 0;  // bit b: bins_[b] has a chunk
  static_assert(kNumBins <= 32);
  std::map<uintptr_t, Region> regions_ ABSL_GUARDED_BY(mu_);  // by start address
  absl::flat_hash_map<const void*, ChunkHandle> in_use_ ABSL_GUARDED_BY(mu_);
  AllocatorStats stats_ ABSL_GUARDED_BY(mu_);
  int64_t num_bad_deallocations_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace minitf

#endif  // MINITF_ALLOCATOR_BFC_ALLOCATOR_H_
