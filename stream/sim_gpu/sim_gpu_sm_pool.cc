#include "stream/sim_gpu/sim_gpu_sm_pool.h"

#include <algorithm>
#include <cmath>

namespace minitf::se {
namespace {

// Work left below this (ns) is done: what rounding leaves of a kernel whose
// end came.
constexpr double kDoneNs = 0.5;
// The work a pinned kernel is given while its body runs: it ends only when
// unpinned.
constexpr double kPinnedWorkNs = 1e30;

int64_t SaturatingAdd(int64_t a, int64_t b) {
  if (b > 0 && a > SmPoolState::kNever - b) return SmPoolState::kNever;
  return a + b;
}

}  // namespace

void SmPoolState::Init(const SmPoolConfig& config) {
  *this = SmPoolState();
  config_ = config;
  config_.sm_count = std::max(config_.sm_count, 1);
}

int SmPoolState::Add(const SmRequest& request, int64_t ready_ns) {
  int place = -1;
  for (int i = 0; i < kMaxKernels; ++i) {
    if (kernels_[i].state == SmKernel::State::kFree) {
      place = i;
      break;
    }
  }
  if (place < 0) return -1;
  ++version_;
  const double sm_count = config_.sm_count;
  SmKernel& k = kernels_[place];
  k = SmKernel();
  k.state = SmKernel::State::kPending;
  k.pinned = request.pinned;
  k.defers = request.defers;
  k.pid = request.pid;
  k.context = request.context;
  k.rank = request.rank;
  k.client_priority = request.client_priority;
  k.ticket = next_ticket_++;
  k.width = request.width > 0 ? std::min(request.width, sm_count) : sm_count;
  k.cap = std::clamp(request.cap_fraction, 1e-6, 1.0) * sm_count;
  k.partition = request.partition;
  k.partition_cap = std::clamp(request.partition_fraction, 1e-6, 1.0) * sm_count;
  if (k.partition != 0) {
    // The newest kernel's share is its partition's (a resize).
    for (SmKernel& other : kernels_) {
      if (other.state != SmKernel::State::kFree && other.partition == k.partition &&
          other.context == k.context) {
        other.partition_cap = k.partition_cap;
      }
    }
  }
  k.left_ns = request.pinned ? kPinnedWorkNs : std::max(request.work_ns, 0.0);
  k.begin_ns = std::max(ready_ns, clock_ns_);
  if (k.begin_ns <= clock_ns_) Settle();
  return place;
}

void SmPoolState::AdvanceTo(int64_t t_ns) {
  while (t_ns > clock_ns_) {
    const int64_t next = NextEvent();
    if (next > t_ns) {
      Progress(t_ns);
      return;
    }
    Progress(next);
    Settle();
  }
}

void SmPoolState::Progress(int64_t t_ns) {
  if (t_ns <= clock_ns_) return;
  if (clock_ns_ != std::numeric_limits<int64_t>::min()) {
    const double dt = static_cast<double>(t_ns - clock_ns_);
    for (SmKernel& k : kernels_) {
      if (k.state == SmKernel::State::kActive && k.sms > 0) {
        k.left_ns -= dt * k.sms / k.width;
      }
    }
  }
  clock_ns_ = t_ns;
}

int64_t SmPoolState::ProjectedEnd(int i) const {
  const SmKernel& k = kernels_[i];
  switch (k.state) {
    case SmKernel::State::kPending:
      return k.begin_ns;
    case SmKernel::State::kDone:
      return k.end_ns;
    case SmKernel::State::kActive: {
      if (k.sms <= 0 || k.pinned) return kNever;
      const double ns = std::ceil(std::max(k.left_ns, 0.0) * k.width / k.sms);
      if (ns >= 9e18) return kNever;
      return SaturatingAdd(clock_ns_, std::max<int64_t>(static_cast<int64_t>(ns), 1));
    }
    case SmKernel::State::kFree:
      break;
  }
  return kNever;
}

void SmPoolState::RunEventsUntil(int64_t t_ns) {
  for (int64_t next = NextEvent(); next <= t_ns && next > clock_ns_; next = NextEvent()) {
    AdvanceTo(next);
  }
}

int64_t SmPoolState::NextEvent() const {
  int64_t next = kNever;
  for (int i = 0; i < kMaxKernels; ++i) {
    const SmKernel& k = kernels_[i];
    if (k.state == SmKernel::State::kPending) next = std::min(next, k.begin_ns);
    if (k.state != SmKernel::State::kActive) continue;
    next = std::min(next, ProjectedEnd(i));
    if (k.takes_ns > clock_ns_) next = std::min(next, k.takes_ns);
  }
  if (config_.share == SimGPUOptions::Share::kTimeslice) {
    if (slice_begin_ns_ > clock_ns_) next = std::min(next, slice_begin_ns_);
    if (slice_end_ns_ != kNever && slice_end_ns_ > clock_ns_) next = std::min(next, slice_end_ns_);
  }
  return next;
}

void SmPoolState::Settle() {
  ++version_;
  for (SmKernel& k : kernels_) {
    if (k.state == SmKernel::State::kActive && !k.pinned && k.left_ns <= kDoneNs) {
      k.state = SmKernel::State::kDone;
      k.end_ns = clock_ns_;
      if (!k.defers) others_last_end_ns_ = std::max(others_last_end_ns_, clock_ns_);
      k.sms = 0;
      if (k.detached) k = SmKernel();
    } else if (k.state == SmKernel::State::kPending && k.begin_ns <= clock_ns_) {
      k.state = SmKernel::State::kActive;
      k.takes_ns = SaturatingAdd(clock_ns_, config_.drain_ns);
    }
  }
  if (config_.share == SimGPUOptions::Share::kTimeslice) Rotate();
  Allocate();
}

void SmPoolState::Rotate() {
  // The longest-waiting kernel of each kind: of the slice's context, of any
  // other.
  const SmKernel* own = nullptr;
  const SmKernel* other = nullptr;
  const SmKernel* first = nullptr;
  for (const SmKernel& k : kernels_) {
    if (k.state != SmKernel::State::kActive) continue;
    if (first == nullptr || k.ticket < first->ticket) first = &k;
    if (k.context == slice_context_) {
      if (own == nullptr || k.ticket < own->ticket) own = &k;
    } else if (other == nullptr || k.ticket < other->ticket) {
      other = &k;
    }
  }
  const bool draining = clock_ns_ < slice_begin_ns_;
  if (own == nullptr && !draining) {
    // The slice's context has nothing left: the device goes to whoever
    // waits, at once (nothing of the old context runs to drain).
    if (first == nullptr) {
      slice_end_ns_ = kNever;
      return;
    }
    slice_context_ = first->context;
    draining_context_ = 0;
    slice_begin_ns_ = clock_ns_;
    slice_end_ns_ = kNever;
    own = first;
    other = nullptr;
    for (const SmKernel& k : kernels_) {
      if (k.state == SmKernel::State::kActive && k.context != slice_context_ &&
          (other == nullptr || k.ticket < other->ticket)) {
        other = &k;
      }
    }
  }
  if (other == nullptr) {
    slice_end_ns_ = kNever;  // Alone: never switched out.
    return;
  }
  if (slice_end_ns_ == kNever) {
    // Another context arrived: the slice in progress (slices run back to
    // back from slice_begin_ns_) ends at its next boundary.
    const int64_t slice = std::max<int64_t>(config_.timeslice_ns, 1);
    const int64_t since = std::max<int64_t>(clock_ns_ - slice_begin_ns_, 0);
    slice_end_ns_ = slice_begin_ns_ + (since / slice + 1) * slice;
  }
  if (clock_ns_ < slice_end_ns_ || own == nullptr) return;
  draining_context_ = slice_context_;
  slice_context_ = other->context;
  slice_begin_ns_ = SaturatingAdd(clock_ns_, config_.drain_ns);
  slice_end_ns_ = SaturatingAdd(slice_begin_ns_, std::max<int64_t>(config_.timeslice_ns, 1));
  ++switches_;
}

uint32_t SmPoolState::RunningContext() const {
  return clock_ns_ < slice_begin_ns_ ? draining_context_ : slice_context_;
}

int SmPoolState::Order(int* order) const {
  int n = 0;
  const bool sliced = config_.share == SimGPUOptions::Share::kTimeslice;
  const uint32_t running = RunningContext();
  for (int i = 0; i < kMaxKernels; ++i) {
    if (!Live(i)) continue;
    // A body running on the host keeps its SMs, whosever the slice.
    const bool holding_body = kernels_[i].pinned && kernels_[i].sms > 0;
    if (sliced && kernels_[i].context != running && !holding_body) continue;
    order[n++] = i;
  }
  const auto by_priority = [this](int a, int b) {
    const SmKernel &x = kernels_[a], &y = kernels_[b];
    return x.rank != y.rank ? x.rank < y.rank : x.ticket < y.ticket;
  };
  if (config_.share != SimGPUOptions::Share::kMps) {
    std::sort(order, order + n, by_priority);
    return n;
  }
  // Arrival across contexts; each context's places sorted by priority.
  std::sort(order, order + n,
            [this](int a, int b) { return kernels_[a].ticket < kernels_[b].ticket; });
  bool seen[kMaxKernels] = {};
  int places[kMaxKernels];
  int members[kMaxKernels];
  for (int p = 0; p < n; ++p) {
    if (seen[p]) continue;
    const uint32_t context = kernels_[order[p]].context;
    int m = 0;
    for (int q = p; q < n; ++q) {
      if (!seen[q] && kernels_[order[q]].context == context) {
        seen[q] = true;
        places[m] = q;
        members[m] = order[q];
        ++m;
      }
    }
    std::sort(members, members + m, by_priority);
    for (int j = 0; j < m; ++j) order[places[j]] = members[j];
  }
  // The client priority levels before all of that.
  std::stable_sort(order, order + n, [this](int a, int b) {
    return kernels_[a].client_priority < kernels_[b].client_priority;
  });
  return n;
}

void SmPoolState::Allocate() {
  int order[kMaxKernels];
  const int n = Order(order);
  if (clock_ns_ != allocated_at_ns_) {
    for (SmKernel& k : kernels_) k.sms_at_clock = k.sms;
    allocated_at_ns_ = clock_ns_;
  }
  // What each holds: SMs given at this very time are not held yet (another
  // kernel joining now, the next of a stream whose thread comes late, may
  // come before), a body's SMs are.
  double held[kMaxKernels];
  for (int i = 0; i < kMaxKernels; ++i) {
    const SmKernel& k = kernels_[i];
    held[i] = k.pinned ? k.sms : std::min(k.sms, k.sms_at_clock);
    if (Live(i)) kernels_[i].sms = 0;
  }
  double free = config_.sm_count;
  // What each context may still take (mps caps); contexts by first place.
  uint32_t contexts[kMaxKernels];
  double context_left[kMaxKernels];
  int context_count = 0;
  const auto cap_left = [&](const SmKernel& k) -> double& {
    for (int c = 0; c < context_count; ++c) {
      if (contexts[c] == k.context) return context_left[c];
    }
    contexts[context_count] = k.context;
    context_left[context_count] =
        config_.share == SimGPUOptions::Share::kMps ? k.cap : config_.sm_count;
    return context_left[context_count++];
  };
  // What each partition may still take (null: the kernel has none).
  uint32_t partition_context[kMaxKernels];
  uint32_t partitions[kMaxKernels];
  double partition_left[kMaxKernels];
  int partition_count = 0;
  const auto partition_cap_left = [&](const SmKernel& k) -> double* {
    if (k.partition == 0) return nullptr;
    for (int c = 0; c < partition_count; ++c) {
      if (partitions[c] == k.partition && partition_context[c] == k.context) {
        return &partition_left[c];
      }
    }
    partition_context[partition_count] = k.context;
    partitions[partition_count] = k.partition;
    partition_left[partition_count] = k.partition_cap;
    return &partition_left[partition_count++];
  };
  const auto give = [&](int i, double most) {
    SmKernel& k = kernels_[i];
    double& left = cap_left(k);
    double* const in_partition = partition_cap_left(k);
    const double limit = in_partition != nullptr ? std::min(left, *in_partition) : left;
    const double take = std::max(0.0, std::min({most - k.sms, free, limit}));
    k.sms += take;
    free -= take;
    left -= take;
    if (in_partition != nullptr) *in_partition -= take;
  };
  // Gives back what kernel `i` holds, up to `most`.
  const auto take_back = [&](int i, double most) {
    SmKernel& k = kernels_[i];
    const double back = std::min(k.sms, most);
    k.sms -= back;
    free += back;
    cap_left(k) += back;
    if (double* const in_partition = partition_cap_left(k)) *in_partition += back;
  };
  // Every kernel keeps what it holds (a body's whatever its width); SMs
  // nobody holds go in order; then a kernel past its drain time takes, in
  // order, what the kernels after it hold (the last first): their blocks
  // have drained. So a newcomer gets the SMs a kernel leaves before a
  // running kernel of a lower order spreads onto them, as the block
  // scheduler hands an SM to the waiting block of the highest priority.
  for (int p = 0; p < n; ++p) {
    const SmKernel& k = kernels_[order[p]];
    give(order[p], k.pinned ? held[order[p]] : std::min(held[order[p]], k.width));
  }
  for (int p = 0; p < n; ++p) give(order[p], kernels_[order[p]].width);
  for (int p = 0; p < n; ++p) {
    const SmKernel& k = kernels_[order[p]];
    if (k.takes_ns > clock_ns_ || k.sms >= k.width) continue;
    for (int q = n - 1; q > p && k.sms < k.width; --q) {
      if (kernels_[order[q]].pinned || kernels_[order[q]].sms <= 0) continue;
      take_back(order[q], k.width - k.sms);
      give(order[p], k.width);
    }
  }
  for (int p = 0; p < n; ++p) give(order[p], kernels_[order[p]].width);
  for (int i = 0; i < kMaxKernels; ++i) {
    SmKernel& k = kernels_[i];
    if (k.state == SmKernel::State::kActive && held[i] > 0 && k.sms <= 0) ++k.preemptions;
  }
}

void SmPoolState::Unpin(int i, double work_ns) {
  SmKernel& k = kernels_[i];
  k.pinned = false;
  k.left_ns = std::max(work_ns, 0.0);
  Settle();
}

void SmPoolState::Free(int i) {
  if (Live(i) && !kernels_[i].defers) {
    others_last_end_ns_ = std::max(others_last_end_ns_, clock_ns_);
  }
  kernels_[i] = SmKernel();
  Settle();
}

void SmPoolState::Detach(int i) {
  if (kernels_[i].state == SmKernel::State::kDone) {
    Free(i);
    return;
  }
  ++version_;
  kernels_[i].detached = true;
}

void SmPoolState::RemoveProcess(int32_t pid) {
  bool removed = false;
  for (SmKernel& k : kernels_) {
    if (k.state != SmKernel::State::kFree && k.pid == pid) {
      k = SmKernel();
      removed = true;
    }
  }
  if (removed) Settle();
}

bool SmPoolState::OthersBusy(uint32_t context) const {
  for (const SmKernel& k : kernels_) {
    const bool live = k.state == SmKernel::State::kPending || k.state == SmKernel::State::kActive;
    if (live && !k.defers && k.context != context) return true;
  }
  return false;
}

int SmPoolState::Waiting() const {
  int n = 0;
  for (const SmKernel& k : kernels_) {
    n += k.state == SmKernel::State::kPending ||
                 (k.state == SmKernel::State::kActive && k.sms <= 0)
             ? 1
             : 0;
  }
  return n;
}

}  // namespace minitf::se
