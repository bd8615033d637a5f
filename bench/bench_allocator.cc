// BFCAllocator against glibc malloc and mimalloc, alloc+free pairs (Google
// Benchmark).
//
//   build/bin/bench_allocator
//
// BM_<Kind>_FixedSize/N:     allocate N bytes and free them, repeatedly.
// BM_<Kind>_MixedSizes:      a window of 64 live buffers of 16 B..64 KiB; each
//                            pair frees the oldest and allocates a new one.
// BM_<Kind>_ExampleMlpTrace: the host allocations of examples/train_mlp's
//                            model (2-32-3 MLP, batch 512), recorded from a
//                            real session (initialisation and 3 training
//                            steps, see allocation_trace.h) and replayed.
// BM_<Kind>_MnistMlpTrace:   the same for a 784-512-10 MLP at batch 256.
// The BFC trace benchmarks also report fragmentation = peak bytes reserved /
// peak bytes in use of one replay on a fresh pool.
// Kinds: BFC (one BFCAllocator over host memory, shared by the threads),
// Malloc (glibc aligned_alloc/free) and Mimalloc (mi_malloc_aligned/mi_free),
// the baselines of the same run. Each runs on 1 and 2 threads and reports
// ns_per_pair.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

#include "allocator/bfc_allocator.h"
#include "allocator/sub_allocator.h"
#include "bench/allocation_trace.h"
#include "benchmark/benchmark.h"
#include "mimalloc.h"

namespace minitf {
namespace {

constexpr size_t kAlignment = Allocator::kAllocatorAlignment;

BFCAllocator* NewHostBfc(const char* name) {
  BFCAllocator::Options options;
  options.allow_growth = true;
  options.name = name;
  return new BFCAllocator(std::make_unique<HostSubAllocator>(), size_t{8} << 30, options);
}

// Shared by the threads of a benchmark; lives for the whole process.
BFCAllocator* SharedBfc() {
  static BFCAllocator* const bfc = NewHostBfc("bench_bfc");
  return bfc;
}
struct BfcKind {
  static void* Alloc(size_t n) { return SharedBfc()->AllocateRaw(kAlignment, n); }
  static void Free(void* p) { SharedBfc()->DeallocateRaw(p); }
};
struct MallocKind {
  static void* Alloc(size_t n) {
    return std::aligned_alloc(kAlignment, (n + kAlignment - 1) / kAlignment * kAlignment);
  }
  static void Free(void* p) { std::free(p); }
};

struct MimallocKind {
  static void* Alloc(size_t n) { return mi_malloc_aligned(n, kAlignment); }
  static void Free(void* p) { mi_free(p); }
};

void ReportPairs(benchmark::State& state, int64_t pairs) {
  state.SetItemsProcessed(pairs);
  state.counters["ns_per_pair"] = benchmark::Counter(
      static_cast<double>(pairs), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

template <typename Kind>
void FixedSize(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  for (auto _ : state) {
    void* p = Kind::Alloc(n);
    benchmark::DoNotOptimize(p);
    Kind::Free(p);
  }
  ReportPairs(state, state.iterations());
}

template <typename Kind>
void MixedSizes(benchmark::State& state) {
  std::mt19937 rng(42 + state.thread_index());
  std::vector<size_t> sizes(4096);
  for (size_t& s : sizes) s = 16 + rng() % (64 * 1024);
  std::vector<void*> window(64, nullptr);
  size_t i = 0;
  for (auto _ : state) {
    void*& slot = window[i % window.size()];
    if (slot != nullptr) Kind::Free(slot);
    slot = Kind::Alloc(sizes[i % sizes.size()]);
    ++i;
  }
  for (void* p : window) {
    if (p != nullptr) Kind::Free(p);
  }
  ReportPairs(state, state.iterations());
}

// The recorded traces, made once (before any benchmark runs) by running the
// model through a session whose CPU allocator records.
struct Traces {
  AllocationTrace example;  // examples/train_mlp: 2-32-3 MLP, batch 512
  AllocationTrace mnist;    // a 784-512-10 MLP, batch 256
};
const Traces& RecordedTraces() {
  static const Traces* const traces = [] {
    auto record = [](const MlpConfig& config, int batch) {
      absl::StatusOr<AllocationTrace> trace = RecordMlpTrainingTrace(config, batch, /*steps=*/3);
      if (!trace.ok()) {
        std::fprintf(stderr, "recording the trace failed: %s\n",
                     trace.status().ToString().c_str());
        std::exit(1);
      }
      return *std::move(trace);
    };
    auto* t = new Traces;
    MlpConfig example;  // train_mlp's defaults
    MlpConfig mnist;
    mnist.features = 784;
    mnist.hidden = 512;
    mnist.classes = 10;
    t->example = record(example, 512);
    t->mnist = record(mnist, 256);
    return t;
  }();
  return *traces;
}

template <typename AllocFn, typename FreeFn>
int64_t Replay(const AllocationTrace& trace, std::vector<void*>* live, AllocFn alloc,
               FreeFn free) {
  int64_t pairs = 0;
  for (const AllocationEvent& e : trace.events) {
    if (e.allocate) {
      (*live)[e.id] = alloc(e.bytes);
      ++pairs;
    } else {
      free((*live)[e.id]);
    }
  }
  return pairs;
}

template <typename Kind>
void TraceReplay(benchmark::State& state, const AllocationTrace& trace) {
  std::vector<void*> live(trace.num_buffers, nullptr);
  int64_t pairs = 0;
  for (auto _ : state) pairs += Replay(trace, &live, Kind::Alloc, Kind::Free);
  ReportPairs(state, pairs);
}

// Fragmentation of BFC on a trace: peak bytes reserved / peak bytes in use,
// replayed once on a fresh pool.
void ReportFragmentation(benchmark::State& state, const AllocationTrace& trace) {
  if (state.thread_index() != 0) return;
  std::unique_ptr<BFCAllocator> bfc(NewHostBfc("fragmentation_bfc"));
  std::vector<void*> live(trace.num_buffers, nullptr);
  Replay(
      trace, &live, [&](size_t n) { return bfc->AllocateRaw(kAlignment, n); },
      [&](void* p) { bfc->DeallocateRaw(p); });
  const AllocatorStats stats = *bfc->GetStats();
  const double peak_in_use = static_cast<double>(std::max<int64_t>(1, stats.peak_bytes_in_use));
  state.counters["fragmentation"] = static_cast<double>(stats.peak_bytes_reserved) / peak_in_use;
  state.counters["peak_reserved_MiB"] = static_cast<double>(stats.peak_bytes_reserved) / (1 << 20);
  state.counters["peak_in_use_MiB"] = peak_in_use / (1 << 20);
  state.counters["pairs_per_replay"] = static_cast<double>(trace.num_buffers);
}

void BM_BFC_FixedSize(benchmark::State& s) { FixedSize<BfcKind>(s); }
void BM_Malloc_FixedSize(benchmark::State& s) { FixedSize<MallocKind>(s); }
void BM_Mimalloc_FixedSize(benchmark::State& s) { FixedSize<MimallocKind>(s); }
void BM_BFC_MixedSizes(benchmark::State& s) { MixedSizes<BfcKind>(s); }
void BM_Mimalloc_MixedSizes(benchmark::State& s) { MixedSizes<MimallocKind>(s); }
void BM_Malloc_MixedSizes(benchmark::State& s) { MixedSizes<MallocKind>(s); }
void BM_BFC_ExampleMlpTrace(benchmark::State& s) {
  TraceReplay<BfcKind>(s, RecordedTraces().example);
  ReportFragmentation(s, RecordedTraces().example);
}
void BM_Malloc_ExampleMlpTrace(benchmark::State& s) {
  TraceReplay<MallocKind>(s, RecordedTraces().example);
}
void BM_Mimalloc_ExampleMlpTrace(benchmark::State& s) {
  TraceReplay<MimallocKind>(s, RecordedTraces().example);
}
void BM_BFC_MnistMlpTrace(benchmark::State& s) {
  TraceReplay<BfcKind>(s, RecordedTraces().mnist);
  ReportFragmentation(s, RecordedTraces().mnist);
}
void BM_Malloc_MnistMlpTrace(benchmark::State& s) {
  TraceReplay<MallocKind>(s, RecordedTraces().mnist);
}
void BM_Mimalloc_MnistMlpTrace(benchmark::State& s) {
  TraceReplay<MimallocKind>(s, RecordedTraces().mnist);
}

#define MINITF_ALLOCATOR_BENCH(fn) fn->Threads(1)->Threads(2)->UseRealTime()
MINITF_ALLOCATOR_BENCH(BENCHMARK(BM_BFC_FixedSize)->Arg(64)->Arg(4096)->Arg(1 << 20));
MINITF_ALLOCATOR_BENCH(BENCHMARK(BM_Malloc_FixedSize)->Arg(64)->Arg(4096)->Arg(1 << 20));
MINITF_ALLOCATOR_BENCH(BENCHMARK(BM_BFC_MixedSizes));
MINITF_ALLOCATOR_BENCH(BENCHMARK(BM_Malloc_MixedSizes));
MINITF_ALLOCATOR_BENCH(BENCHMARK(BM_Mimalloc_FixedSize)->Arg(64)->Arg(4096)->Arg(1 << 20));
MINITF_ALLOCATOR_BENCH(BENCHMARK(BM_Mimalloc_MixedSizes));
MINITF_ALLOCATOR_BENCH(BENCHMARK(BM_BFC_ExampleMlpTrace));
MINITF_ALLOCATOR_BENCH(BENCHMARK(BM_Malloc_ExampleMlpTrace));
MINITF_ALLOCATOR_BENCH(BENCHMARK(BM_Mimalloc_ExampleMlpTrace));
MINITF_ALLOCATOR_BENCH(BENCHMARK(BM_BFC_MnistMlpTrace));
MINITF_ALLOCATOR_BENCH(BENCHMARK(BM_Malloc_MnistMlpTrace));
MINITF_ALLOCATOR_BENCH(BENCHMARK(BM_Mimalloc_MnistMlpTrace));

}  // namespace
}  // namespace minitf

BENCHMARK_MAIN();
