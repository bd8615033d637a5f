#include "runtime/gpu_op_manager.h"

#include <algorithm>
#include <utility>

namespace minitf {

GpuOpManager::GpuOpManager(std::string device_name, bool paces_sync_kernels)
    : device_name_(std::move(device_name)),
      paces_sync_kernels_(paces_sync_kernels),
      thread_([this] { Run(); }) {}

GpuOpManager::~GpuOpManager() {
  {
    MutexLock lock(&mu_);
    stop_ = true;
    cv_.SignalAll();
  }
  thread_.join();
}

void GpuOpManager::SetActive(bool active) {
  // Under mu_, so a slot wait that has just checked active() cannot miss
  // the signal.
  MutexLock lock(&mu_);
  active_.store(active, std::memory_order_release);
  cv_.SignalAll();
}

void GpuOpManager::SetPolicy(PacingPolicy policy) {
  MutexLock lock(&mu_);
  policy_ = policy;
}

PacingPolicy GpuOpManager::policy() const {
  MutexLock lock(&mu_);
  return policy_;
}

GpuOpManager::StepCounters GpuOpManager::BeginStep(absl::Duration budget,
                                                   int expected_launches) {
  MutexLock lock(&mu_);
  if (in_slot_) EndSlot();
  StepCounters ended{step_slots_, step_launches_, remaining_budget_};
  remaining_budget_ = std::max(budget, absl::ZeroDuration());
  expected_launches_ = std::max(expected_launches, 0);
  step_slots_ = absl::ZeroDuration();
  step_launches_ = 0;
  cv_.SignalAll();
  return ended;
}

void GpuOpManager::Enqueue(std::function<void()> launch) {
  MutexLock lock(&mu_);
  queue_.push_back(std::move(launch));
  cv_.SignalAll();
}

int64_t GpuOpManager::total_launches() const {
  MutexLock lock(&mu_);
  return total_launches_;
}

absl::Duration GpuOpManager::total_slots() const {
  MutexLock lock(&mu_);
  return total_slots_;
}

void GpuOpManager::RecordSlots(bool on) {
  MutexLock lock(&mu_);
  record_slots_ = on;
}

std::vector<GpuOpManager::IdleSlot> GpuOpManager::TakeSlots(int64_t* dropped) {
  MutexLock lock(&mu_);
  if (dropped != nullptr) *dropped = slots_dropped_;
  slots_dropped_ = 0;
  return std::exchange(slots_, {});
}

void GpuOpManager::Run() {
  while (true) {
    std::function<void()> launch;
    {
      MutexLock lock(&mu_);
      while (queue_.empty() && !stop_) cv_.Wait(&mu_);
      if (queue_.empty()) return;  // Stopping, and every launch has run.
      WaitSlot();
      launch = std::move(queue_.front());
      queue_.pop_front();
      ++step_launches_;
      ++total_launches_;
    }
    launch();
  }
}

void GpuOpManager::WaitSlot() {
  if (stop_ || !active()) return;
  const absl::Duration slot = SlotFor(policy_, remaining_budget_, static_cast<int>(queue_.size()),
                                      expected_launches_, step_launches_);
  if (slot <= absl::ZeroDuration()) return;
  in_slot_ = true;
  slot_start_ = absl::Now();
  slot_length_ = slot;
  const absl::Time deadline = slot_start_ + slot;
  // BeginStep ends the slot itself (in_slot_ false); stop and SetActive(false)
  // only wake this loop.
  while (in_slot_ && !stop_ && active()) {
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) break;
    cv_.WaitWithTimeout(&mu_, left);
  }
  if (in_slot_) EndSlot();
}

void GpuOpManager::EndSlot() {
  const absl::Duration waited = std::min(absl::Now() - slot_start_, slot_length_);
  remaining_budget_ -= waited;
  step_slots_ += waited;
  total_slots_ += waited;
  in_slot_ = false;
  if (record_slots_ && waited > absl::ZeroDuration()) {
    if (slots_.size() < kMaxRecordedSlots) {
      slots_.push_back({slot_start_, waited});
    } else {
      ++slots_dropped_;
    }
  }
}

}  // namespace minitf
