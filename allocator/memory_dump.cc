#include "allocator/memory_dump.h"

#include "fmt/format.h"

namespace minitf {

std::string MemoryDump::DebugString() const {
  std::string out = fmt::format(
      "BFC pool '{}': limit={} reserved={} regions={} free={} largest_free_chunk={} "
      "fragmentation={:.3f}\n",
      allocator_name, memory_limit, bytes_reserved, num_regions, free_bytes,
      largest_free_chunk, fragmentation);
  for (const BinSummary& b : bins) {
    if (b.free_chunks == 0 && b.in_use_chunks == 0) continue;
    out += fmt::format(
        "  bin {:2} (>= {:>10} B): free {} chunks / {} B; in use {} chunks / {} B "
        "(requested {} B)\n",
        b.bin, b.min_chunk_size, b.free_chunks, b.free_bytes, b.in_use_chunks,
        b.in_use_bytes, b.requested_bytes);
  }
  return out;
}

}  // namespace minitf
