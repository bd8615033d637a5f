#include "bench/allocation_trace.h"

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "absl/container/flat_hash_map.h"
#include "allocator/allocator_registry.h"
#include "platform/mutex.h"
#include "session/session.h"

namespace minitf {
namespace {

// Aligned malloc that appends every call to a trace while recording is on.
class RecordingAllocator final : public Allocator {
 public:
  std::string Name() const override { return "recording_cpu"; }

  void* AllocateRaw(size_t alignment, size_t num_bytes, const AllocationAttributes&) override {
    alignment = std::max(alignment, kAllocatorAlignment);
    const size_t rounded =
        std::max(alignment, (num_bytes + alignment - 1) / alignment * alignment);
    void* ptr = std::aligned_alloc(alignment, rounded);
    if (ptr == nullptr) return nullptr;
    MutexLock lock(&mu_);
    if (recording_) {
      const int id = trace_.num_buffers++;
      ids_[ptr] = id;
      trace_.events.push_back({id, true, num_bytes});
      live_bytes_ += num_bytes;
      sizes_[ptr] = num_bytes;
      trace_.peak_live_bytes = std::max(trace_.peak_live_bytes, live_bytes_);
    }
    return ptr;
  }

  void DeallocateRaw(void* ptr) override {
    if (ptr == nullptr) return;
    {
      MutexLock lock(&mu_);
      if (auto it = ids_.find(ptr); it != ids_.end()) {
        trace_.events.push_back({it->second, false, 0});
        live_bytes_ -= sizes_[ptr];
        sizes_.erase(ptr);
        ids_.erase(it);
      }
    }
    std::free(ptr);
  }

  void Start() {
    MutexLock lock(&mu_);
    trace_ = AllocationTrace();
    ids_.clear();
    sizes_.clear();
    live_bytes_ = 0;
    recording_ = true;
  }

  // Stops recording; buffers still live get their frees appended.
  AllocationTrace Stop() {
    MutexLock lock(&mu_);
    recording_ = false;
    std::vector<int> live;
    for (const auto& [ptr, id] : ids_) live.push_back(id);
    std::sort(live.begin(), live.end());
    for (int id : live) trace_.events.push_back({id, false, 0});
    ids_.clear();
    sizes_.clear();
    return std::move(trace_);
  }

 private:
  Mutex mu_;
  bool recording_ ABSL_GUARDED_BY(mu_) = false;
  AllocationTrace trace_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<void*, int> ids_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<void*, size_t> sizes_ ABSL_GUARDED_BY(mu_);
  size_t live_bytes_ ABSL_GUARDED_BY(mu_) = 0;
};

class RecordingAllocatorFactory final : public AllocatorFactory {
 public:
  std::unique_ptr<Allocator> CreateAllocator() override {
    return std::make_unique<RecordingAllocator>();
  }
};

// Above every allocator minitf registers, so it is this binary's cpu_allocator().
REGISTER_MEM_ALLOCATOR("RecordingCPUAllocator", 1000, RecordingAllocatorFactory);

}  // namespace

absl::StatusOr<AllocationTrace> RecordMlpTrainingTrace(const MlpConfig& config,
                                                       int batch_size, int steps) {
  auto* recorder = dynamic_cast<RecordingAllocator*>(cpu_allocator());
  if (recorder == nullptr) {
    return absl::FailedPreconditionError(
        "RecordMlpTrainingTrace: the CPU allocator is not the recording one (is "
        "MINITF_CPU_ALLOCATOR set?)");
  }
  absl::StatusOr<TrainingModel> model = BuildMlpModel(config);
  if (!model.ok()) return model.status();
  absl::StatusOr<Batch> made = MakeRingsBatch(config, batch_size, /*seed=*/7);
  if (!made.ok()) return made.status();
  const Batch& batch = *made;

  recorder->Start();
  absl::Status status = [&]() -> absl::Status {
    // The model's nodes have no device of their own: without device_count
    // {"GPU": 0} they would be placed on SimGPU, and the CPU allocator would
    // record three 8-byte buffers instead of the model's tensors. Two
    // inter-op threads, as on the 2-core machine the traces in
    // docs/BENCHMARKS.md were recorded on.
    SessionOptions options;
    options.config.device_count["GPU"] = 0;
    options.config.inter_op_parallelism_threads = 2;
    absl::StatusOr<std::unique_ptr<Session>> session = NewSession(options);
    if (!session.ok()) return session.status();
    if (absl::Status s = (*session)->Create(model->graph); !s.ok()) return s;
    if (absl::Status s = (*session)->Run({}, {}, {model->init}, nullptr); !s.ok()) return s;
    std::vector<Tensor> out;
    for (int i = 0; i < steps; ++i) {
      absl::Status s = (*session)->Run(batch.Feeds(*model), {model->loss}, {model->train}, &out);
      if (!s.ok()) return s;
    }
    return (*session)->Close();
  }();
  AllocationTrace trace = recorder->Stop();
  if (!status.ok()) return status;
  return trace;
}

}  // namespace minitf
