// MemoryDump: a snapshot of a BFCAllocator's pool, for the log on OOM and for
// tests and statistics.
//
//   MemoryDump dump = bfc.GetMemoryDump();
//   LOG(INFO, "{}", dump.DebugString());   // one line per non-empty bin
#ifndef MINITF_ALLOCATOR_MEMORY_DUMP_H_
#define MINITF_ALLOCATOR_MEMORY_DUMP_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace minitf {

// The chunks whose size falls in one bin's size class.
struct BinSummary {
  int bin = 0;
  size_t min_chunk_size = 0;  // the bin holds chunks of [min, 2 * min)
  int64_t free_chunks = 0;
  size_t free_bytes = 0;
  int64_t in_use_chunks = 0;
  size_t in_use_bytes = 0;     // chunk sizes, rounding included
  size_t requested_bytes = 0;  // what the callers of those chunks asked for
};

struct MemoryDump {
  std::string allocator_name;
  size_t memory_limit = 0;
  size_t bytes_reserved = 0;  // the sum of region sizes
  int num_regions = 0;
  std::vector<BinSummary> bins;  // every bin, in size order
  size_t free_bytes = 0;         // inside regions, in free chunks
  size_t largest_free_chunk = 0;
  // 1 - largest_free_chunk / free_bytes: 0 when all free memory is one chunk,
  // near 1 when it is scattered in many small ones. 0 when nothing is free.
  double fragmentation = 0.0;

  // A multi-line, human-readable form (bins with no chunks are left out).
  std::string DebugString() const;
};

}  // namespace minitf

#endif  // MINITF_ALLOCATOR_MEMORY_DUMP_H_
