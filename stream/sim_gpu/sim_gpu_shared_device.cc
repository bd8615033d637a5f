#include "stream/sim_gpu/sim_gpu_shared_device.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <new>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "platform/logging.h"

namespace minitf::se {
namespace {

constexpr uint64_t kMagic = 0x6d696e6974667367;  // "minitfsg"
constexpr uint32_t kVersion = 5;  // 5: MPS client priority levels in the SM pool.
// How long an attaching process waits for the creator to finish the segment.
constexpr absl::Duration kCreationTimeout = absl::Seconds(5);
constexpr size_t kMaxNameLength = 64;

// Whether process `pid` may still use the device. A zombie counts as alive
// until its parent reaps it.
bool Alive(int32_t pid) {
  if (pid == getpid()) return true;
  return kill(pid, 0) == 0 || errno != ESRCH;
}

// Sleeps until `*word` is no longer `expected`, a wake, or `timeout`;
// whether the timeout passed.
bool FutexWait(std::atomic<uint32_t>* word, uint32_t expected, absl::Duration timeout) {
  const timespec ts = absl::ToTimespec(std::max(timeout, absl::ZeroDuration()));
  const long r = syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT, expected, &ts,
                         nullptr, 0);
  return r != 0 && errno == ETIMEDOUT;
}

// Bumps `*word` and wakes every process sleeping on it.
void FutexWakeAll(std::atomic<uint32_t>* word) {
  word->fetch_add(1);
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) &&
                  std::atomic<uint32_t>::is_always_lock_free,
              "futex words must be plain 32-bit atomics");

absl::Status ErrnoError(absl::string_view what, const std::string& segment) {
  return absl::InternalError(
      absl::StrCat("shared SimGPU segment ", segment, ": ", what, ": ", std::strerror(errno)));
}

}  // namespace

// A process-shared robust mutex: a process that dies holding it leaves it
// to the next locker, which is told so.
class ABSL_LOCKABLE RobustMutex {
 public:
  bool Init() {
    pthread_mutexattr_t attr;
    if (pthread_mutexattr_init(&attr) != 0) return false;
    const bool ok = pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED) == 0 &&
                    pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST) == 0 &&
                    pthread_mutex_init(&mu_, &attr) == 0;
    pthread_mutexattr_destroy(&attr);
    return ok;
  }
  // Whether the previous owner died holding it; the mutex is then made
  // consistent, and the caller repairs what it guards.
  bool Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() {
    const int r = pthread_mutex_lock(&mu_);
    if (r == EOWNERDEAD) {
      pthread_mutex_consistent(&mu_);
      return true;
    }
    if (r != 0) LOG(ERROR, "shared SimGPU: pthread_mutex_lock: {}", std::strerror(r));
    return false;
  }
  void Unlock() ABSL_UNLOCK_FUNCTION() { pthread_mutex_unlock(&mu_); }

 private:
  pthread_mutex_t mu_;
};

// The segment. Zero-filled when made; `magic` is set last.
struct SharedSimGPUState {
  struct Waiter {
    int32_t pid = 0;  // 0: a free place
    uint32_t context = 0;
    EngineTurn turn;
  };
  struct Lease {
    int32_t pid = 0;  // 0: a free place
    int64_t bytes = 0;
  };

  std::atomic<uint64_t> magic{0};
  uint32_t version = 0;
  int64_t capacity = 0;
  // The sharing every attachment agreed to (set by the creator).
  SharedSimGPUDevice::Sharing::Mode sharing = SharedSimGPUDevice::Sharing::Mode::kTimeslice;
  int64_t timeslice_ns = 0;
  int32_t sm_count = 0;
  int64_t drain_ns = 0;
  RobustMutex mu;
  std::atomic<uint32_t> turn_seq{0};     // Bumped when the engine is released.
  std::atomic<uint32_t> preempt_seq{0};  // Bumped when a kernel outranking the running one arrives.
  std::atomic<uint32_t> sm_seq{0};       // Bumped when the SMs' pool changes.
  uint64_t next_ticket ABSL_GUARDED_BY(mu) = 0;
  int32_t running_pid ABSL_GUARDED_BY(mu) = 0;
  uint32_t running_context ABSL_GUARDED_BY(mu) = 0;
  EngineTurn running ABSL_GUARDED_BY(mu);
  uint32_t next_context ABSL_GUARDED_BY(mu) = 0;
  // Timeslice sharing: the context whose slice it is (0: none yet) and when
  // the slice ends (Unix nanoseconds: every process reads one clock).
  uint32_t slice_context ABSL_GUARDED_BY(mu) = 0;
  int64_t slice_end_ns ABSL_GUARDED_BY(mu) = 0;
  int64_t slice_switches ABSL_GUARDED_BY(mu) = 0;
  bool taken ABSL_GUARDED_BY(mu) = false;  // Set after running_pid and running.
  Waiter waiting[SharedSimGPUDevice::kMaxWaiting] ABSL_GUARDED_BY(mu);
  Lease leases[SharedSimGPUDevice::kMaxProcesses] ABSL_GUARDED_BY(mu);
  SmPoolState sms ABSL_GUARDED_BY(mu);

  // By the creator, before the segment is published (magic): nobody else
  // can see it yet, so it needs no lock.
  void InitSms(const SmPoolConfig& config) ABSL_NO_THREAD_SAFETY_ANALYSIS { sms.Init(config); }

  // Locks; a dead owner's leftovers are cleared first.
  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) {
    if (mu.Lock()) PurgeDead();
  }
  void Unlock() ABSL_UNLOCK_FUNCTION(mu) { mu.Unlock(); }

  // Sleeps on `word` for at most `timeout` without the lock; whether the
  // timeout passed (dead processes were then looked for).
  bool Wait(std::atomic<uint32_t>* word, absl::Duration timeout)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    const uint32_t seen = word->load();
    Unlock();
    const bool timed_out = FutexWait(word, seen, timeout);
    Lock();
    if (timed_out) PurgeDead();
    return timed_out;
  }

  // Gives back what dead processes held: their leases, their waiting
  // kernels, the engine.
  void PurgeDead() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    bool line_changed = false;
    for (Waiter& w : waiting) {
      if (w.pid != 0 && !Alive(w.pid)) {
        w.pid = 0;
        line_changed = true;
      }
    }
    for (Lease& l : leases) {
      if (l.pid != 0 && !Alive(l.pid)) {
        LOG(WARNING, "shared SimGPU: process {} died holding {} bytes; they are free again",
            l.pid, l.bytes);
        l = Lease();
      }
    }
    for (int i = 0; i < SmPoolState::kMaxKernels; ++i) {
      const SmKernel& k = sms.kernel(i);
      if (k.state != SmKernel::State::kFree && k.pid != 0 && !Alive(k.pid)) {
        LOG(WARNING, "shared SimGPU: process {} died with kernels on the SMs; they are free again",
            k.pid);
        sms.RemoveProcess(k.pid);
        FutexWakeAll(&sm_seq);
      }
    }
    if (taken && !Alive(running_pid)) {
      LOG(WARNING, "shared SimGPU: process {} died holding the engine; it is free again",
          running_pid);
      taken = false;
      line_changed = true;
    }
    if (line_changed) FutexWakeAll(&turn_seq);
  }

  bool Timesliced() const { return sharing == SharedSimGPUDevice::Sharing::Mode::kTimeslice; }

  // Whether `a` of context `a_context` goes before `b` of `b_context`. By
  // priority then ticket; timesliced, the slice's context goes first, then
  // the others by arrival alone (priorities order a context's own kernels).
  bool Before(uint32_t a_context, const EngineTurn& a, uint32_t b_context,
              const EngineTurn& b) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (!Timesliced()) return a < b;
    const bool a_in = a_context == slice_context, b_in = b_context == slice_context;
    if (a_in != b_in) return a_in;
    return a_in ? a < b : a.ticket < b.ticket;
  }

  bool First(uint32_t context, const EngineTurn& turn) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    for (const Waiter& w : waiting) {
      if (w.pid != 0 && Before(w.context, w.turn, context, turn)) return false;
    }
    return true;
  }

  // Whether the running kernel `turn` of `context` must give the engine up:
  // a kernel of a higher priority waits (of its own context, timesliced), or
  // the slice went to another context that has a kernel waiting.
  bool Outranked(uint32_t context, const EngineTurn& turn) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    for (const Waiter& w : waiting) {
      if (w.pid == 0) continue;
      if (!Timesliced() && w.turn.rank < turn.rank) return true;
      if (Timesliced() && w.context == context && w.turn.rank < turn.rank) return true;
      if (Timesliced() && slice_context != context && w.context == slice_context) return true;
    }
    return false;
  }

  // Timesliced: when the slice has ended and a kernel of another context
  // waits while the slice's context still has work (a kernel running or
  // waiting), the slice goes to the context of the longest-waiting such
  // kernel. Wakes the running kernel and the line when it does.
  void Rotate(int64_t now_ns) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (!Timesliced() || slice_context == 0 || now_ns < slice_end_ns) return;
    const Waiter* next = nullptr;
    bool owner_waits = false;
    for (const Waiter& w : waiting) {
      if (w.pid == 0) continue;
      if (w.context == slice_context) {
        owner_waits = true;
      } else if (next == nullptr || w.turn.ticket < next->turn.ticket) {
        next = &w;
      }
    }
    const bool owner_busy = owner_waits || (taken && running_context == slice_context);
    if (next == nullptr || !owner_busy) return;
    slice_context = next->context;
    slice_end_ns = now_ns + timeslice_ns;
    ++slice_switches;
    FutexWakeAll(&preempt_seq);
    FutexWakeAll(&turn_seq);
  }

  // Timesliced: a kernel of another context than the slice's arrives after
  // the slice's end. The slice's context has run alone, in back-to-back
  // slices; the one in progress ends at the next multiple of the timeslice.
  void RenewSlice(uint32_t context, int64_t now_ns) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (!Timesliced() || slice_context == 0 || context == slice_context ||
        now_ns < slice_end_ns || timeslice_ns <= 0) {
      return;
    }
    slice_end_ns += ((now_ns - slice_end_ns) / timeslice_ns + 1) * timeslice_ns;
  }

  // How long a waiter sleeps before it looks again: the liveness period, or
  // less when a slice ends sooner (someone must rotate it).
  absl::Duration NextLook(int64_t now_ns) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    absl::Duration look = SharedSimGPUDevice::kLivenessPeriod;
    if (Timesliced() && slice_context != 0 && slice_end_ns > now_ns) {
      look = std::min(look, absl::Nanoseconds(slice_end_ns - now_ns));
    }
    return look;
  }

  // Joins the line with `turn` of `context` and waits until it has the
  // engine.
  void Enter(uint32_t context, const EngineTurn& turn) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    const int32_t pid = getpid();
    Waiter* place = nullptr;
    while (true) {
      for (Waiter& w : waiting) {
        if (w.pid == 0) {
          place = &w;
          break;
        }
      }
      if (place != nullptr) break;
      Wait(&turn_seq, SharedSimGPUDevice::kLivenessPeriod);  // A full line: wait for a place.
    }
    RenewSlice(context, NowNs());
    place->pid = pid;
    place->context = context;
    place->turn = turn;
    if (taken && Outranked(running_context, running)) FutexWakeAll(&preempt_seq);
    while (true) {
      const int64_t now = NowNs();
      Rotate(now);
      if (!taken && First(context, turn)) break;
      Wait(&turn_seq, NextLook(now));
    }
    place->pid = 0;
    running_pid = pid;
    running_context = context;
    running = turn;
    taken = true;
    if (Timesliced() && slice_context != context) {
      // The slice's context had no work left: the engine is this one's now.
      slice_context = context;
      slice_end_ns = NowNs() + timeslice_ns;
    }
  }

  static int64_t NowNs() { return absl::ToUnixNanos(absl::Now()); }

  void Leave() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    taken = false;
    FutexWakeAll(&turn_seq);
  }

  Lease* LeaseOf(int32_t pid) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    for (Lease& l : leases) {
      if (l.pid == pid) return &l;
    }
    return nullptr;
  }

  int64_t Leased() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    int64_t sum = 0;
    for (const Lease& l : leases) sum += l.pid != 0 ? l.bytes : 0;
    return sum;
  }
};

namespace {

class ABSL_SCOPED_LOCKABLE StateLock {
 public:
  explicit StateLock(SharedSimGPUState* s) ABSL_EXCLUSIVE_LOCK_FUNCTION(s->mu) : s_(s) {
    s_->Lock();
  }
  ~StateLock() ABSL_UNLOCK_FUNCTION() { s_->Unlock(); }

 private:
  SharedSimGPUState* const s_;
};

}  // namespace

std::string SharedSimGPUSegment(absl::string_view name, int ordinal) {
  return absl::StrCat("/minitf-simgpu.", name, ".", ordinal);
}

absl::Status ValidateSharedSimGPUName(absl::string_view name) {
  if (name.empty() || name.size() > kMaxNameLength) {
    return absl::InvalidArgumentError(absl::StrCat("shared SimGPU name '", name,
                                                   "' must have 1 to ", kMaxNameLength,
                                                   " characters"));
  }
  for (char c : name) {
    if (!absl::ascii_isalnum(c) && c != '.' && c != '_' && c != '-') {
      return absl::InvalidArgumentError(absl::StrCat(
          "shared SimGPU name '", name, "' may hold only letters, digits, '.', '_' and '-'"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<SharedSimGPUDevice>> SharedSimGPUDevice::Attach(
    absl::string_view name, int ordinal, int64_t capacity, Sharing sharing) {
  if (absl::Status valid = ValidateSharedSimGPUName(name); !valid.ok()) return valid;
  const std::string segment = SharedSimGPUSegment(name, ordinal);
  int fd = shm_open(segment.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  const bool creator = fd >= 0;
  if (!creator) {
    if (errno != EEXIST) return ErrnoError("cannot create it", segment);
    fd = shm_open(segment.c_str(), O_RDWR, 0);
    if (fd < 0) return ErrnoError("cannot open it", segment);
  }
  const absl::Time give_up = absl::Now() + kCreationTimeout;
  if (creator) {
    if (ftruncate(fd, sizeof(SharedSimGPUState)) != 0) {
      absl::Status error = ErrnoError("cannot size it", segment);
      close(fd);
      shm_unlink(segment.c_str());
      return error;
    }
  } else {
    struct stat st;
    while (fstat(fd, &st) == 0 && st.st_size < static_cast<off_t>(sizeof(SharedSimGPUState)) &&
           absl::Now() < give_up) {
      absl::SleepFor(absl::Milliseconds(1));
    }
    if (fstat(fd, &st) != 0 || st.st_size != static_cast<off_t>(sizeof(SharedSimGPUState))) {
      close(fd);
      return absl::InternalError(absl::StrCat(
          "shared SimGPU segment ", segment, " has ", st.st_size, " bytes, not the ",
          sizeof(SharedSimGPUState), " of this build's device; remove /dev/shm", segment));
    }
  }
  void* mapped =
      mmap(nullptr, sizeof(SharedSimGPUState), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (mapped == MAP_FAILED) return ErrnoError("cannot map it", segment);
  SharedSimGPUState* state = nullptr;
  if (creator) {
    state = new (mapped) SharedSimGPUState();
    state->version = kVersion;
    state->capacity = capacity;
    state->sharing = sharing.mode;
    state->timeslice_ns = absl::ToInt64Nanoseconds(sharing.timeslice);
    state->sm_count = sharing.sm_count;
    state->drain_ns = absl::ToInt64Nanoseconds(sharing.drain);
    state->InitSms({.sm_count = sharing.sm_count,
                    .share = sharing.mode,
                    .timeslice_ns = state->timeslice_ns,
                    .drain_ns = state->drain_ns});
    if (!state->mu.Init()) {
      munmap(mapped, sizeof(SharedSimGPUState));
      shm_unlink(segment.c_str());
      return absl::InternalError(
          absl::StrCat("shared SimGPU segment ", segment, ": cannot make its mutex"));
    }
    state->magic.store(kMagic);
  } else {
    state = static_cast<SharedSimGPUState*>(mapped);
    while (state->magic.load() != kMagic && absl::Now() < give_up) {
      absl::SleepFor(absl::Milliseconds(1));
    }
    absl::Status bad;
    if (state->magic.load() != kMagic) {
      bad = absl::InternalError(absl::StrCat("shared SimGPU segment ", segment,
                                             " was left half made; remove /dev/shm", segment));
    } else if (state->version != kVersion) {
      bad = absl::InternalError(absl::StrCat("shared SimGPU segment ", segment, " has version ",
                                             state->version, ", not ", kVersion));
    } else if (state->capacity != capacity) {
      bad = absl::InvalidArgumentError(absl::StrCat(
          "shared SimGPU '", name, "' device ", ordinal, " has ", state->capacity,
          " bytes of memory; this process asks for ", capacity,
          " (every process sharing it must give the same memory=)"));
    } else if (state->sharing != sharing.mode ||
               state->timeslice_ns != absl::ToInt64Nanoseconds(sharing.timeslice)) {
      bad = absl::InvalidArgumentError(absl::StrCat(
          "shared SimGPU '", name, "' device ", ordinal, " is shared by ",
          SimGPUShareName(state->sharing), " (timeslice ", state->timeslice_ns / 1000,
          " us); this process asks for ", SimGPUShareName(sharing.mode), " (timeslice ",
          absl::ToInt64Microseconds(sharing.timeslice),
          " us) (every process sharing it must give the same share= and timeslice_us=)"));
    } else if (state->sm_count != sharing.sm_count ||
               state->drain_ns != absl::ToInt64Nanoseconds(sharing.drain)) {
      bad = absl::InvalidArgumentError(absl::StrCat(
          "shared SimGPU '", name, "' device ", ordinal, " has ", state->sm_count,
          " SMs and a drain time of ", state->drain_ns / 1000, " us; this process asks for ",
          sharing.sm_count, " and ", absl::ToInt64Microseconds(sharing.drain),
          " us (every process sharing it must give the same sm_count= and preempt_us=)"));
    }
    if (!bad.ok()) {
      munmap(mapped, sizeof(SharedSimGPUState));
      return bad;
    }
  }
  uint32_t context = 0;
  {
    StateLock lock(state);
    context = ++state->next_context;
  }
  return std::unique_ptr<SharedSimGPUDevice>(
      new SharedSimGPUDevice(state, segment, capacity, context));
}

SharedSimGPUDevice::SharedSimGPUDevice(SharedSimGPUState* state, std::string segment,
                                       int64_t capacity, uint32_t context)
    : state_(state), segment_(std::move(segment)), capacity_(capacity), context_(context) {}

SharedSimGPUDevice::~SharedSimGPUDevice() { munmap(state_, sizeof(SharedSimGPUState)); }

bool SharedSimGPUDevice::Reserve(int64_t bytes) {
  const int32_t pid = getpid();
  StateLock lock(state_);
  SharedSimGPUState::Lease* lease = state_->LeaseOf(pid);
  const auto fits = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(state_->mu) {
    return state_->Leased() + bytes <= capacity_ &&
           (lease != nullptr || (lease = state_->LeaseOf(0)) != nullptr);
  };
  if (!fits()) {
    state_->PurgeDead();
    if (!fits()) return false;
  }
  lease->pid = pid;
  lease->bytes += bytes;
  return true;
}

void SharedSimGPUDevice::Unreserve(int64_t bytes) {
  StateLock lock(state_);
  SharedSimGPUState::Lease* lease = state_->LeaseOf(getpid());
  if (lease == nullptr || lease->bytes < bytes) {
    LOG(ERROR, "shared SimGPU {}: this process gives back {} bytes but holds {}", segment_, bytes,
        lease == nullptr ? 0 : lease->bytes);
    if (lease != nullptr) *lease = SharedSimGPUState::Lease();
    return;
  }
  lease->bytes -= bytes;
  if (lease->bytes == 0) *lease = SharedSimGPUState::Lease();
}

int64_t SharedSimGPUDevice::BytesInUse() {
  StateLock lock(state_);
  state_->PurgeDead();
  return state_->Leased();
}

int64_t SharedSimGPUDevice::BytesInUseHere() {
  StateLock lock(state_);
  const SharedSimGPUState::Lease* lease = state_->LeaseOf(getpid());
  return lease == nullptr ? 0 : lease->bytes;
}

absl::StatusOr<EngineTurn> SharedSimGPUDevice::Acquire(int rank) {
  StateLock lock(state_);
  const EngineTurn turn{rank, state_->next_ticket++};
  state_->Enter(context_, turn);
  return turn;
}

void SharedSimGPUDevice::Release(const EngineTurn& /*turn*/) {
  StateLock lock(state_);
  state_->Leave();
}

bool SharedSimGPUDevice::WaitOutranked(const EngineTurn& turn, absl::Time deadline) {
  StateLock lock(state_);
  while (true) {
    state_->Rotate(SharedSimGPUState::NowNs());
    if (state_->Outranked(context_, turn)) {
      state_->PurgeDead();  // A dead process's kernel outranks nobody.
      if (state_->Outranked(context_, turn)) return true;
    }
    const absl::Time now = absl::Now();
    if (now >= deadline) return false;
    state_->Wait(&state_->preempt_seq,
                 std::min(deadline - now, state_->NextLook(absl::ToUnixNanos(now))));
  }
}

absl::Status SharedSimGPUDevice::Yield(const EngineTurn& turn) {
  StateLock lock(state_);
  state_->Leave();
  state_->Enter(context_, turn);
  return absl::OkStatus();
}

int SharedSimGPUDevice::Waiting() const {
  StateLock lock(state_);
  int n = 0;
  for (const SharedSimGPUState::Waiter& w : state_->waiting) n += w.pid != 0 ? 1 : 0;
  return n;
}

int64_t SharedSimGPUDevice::TimesliceSwitches() const {
  StateLock lock(state_);
  return state_->slice_switches + state_->sms.switches();
}

SmRunResult SharedSimGPUDevice::RunOnSms(SmRequest request, absl::Time ready,
                                         const std::function<absl::Status()>& body,
                                         const AfterBody& after_body) {
  StateLock lock(state_);
  request.pid = getpid();
  request.context = context_;
  request.cap_fraction = active_thread_fraction_.load();
  request.client_priority = client_priority_.load();
  request.defers = defers_.load();
  request.defer_idle_ns = defer_idle_ns_.load();
  SharedSimGPUState* const s = state_;
  const SmWaitOps ops{
      .wait = [s](absl::Duration timeout)
          ABSL_EXCLUSIVE_LOCKS_REQUIRED(s->mu) { s->Wait(&s->sm_seq, timeout); },
      .wake_all = [s] { FutexWakeAll(&s->sm_seq); },
      .unlocked =
          [s](const std::function<void()>& f) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s->mu) {
            s->Unlock();
            f();
            s->Lock();
          },
  };
  return RunOnSmPool(&state_->sms, request, ready, body, after_body, ops);
}

int SharedSimGPUDevice::SmWaiting() const {
  StateLock lock(state_);
  return state_->sms.Waiting();
}

void SharedSimGPUDevice::SetActiveThreadFraction(double fraction) {
  active_thread_fraction_.store(std::clamp(fraction, 0.01, 1.0));
}

void SharedSimGPUDevice::SetClientPriority(int level) {
  client_priority_.store(std::clamp(level, 0, 1));
}

void SharedSimGPUDevice::SetDefers(bool defers, absl::Duration idle) {
  defer_idle_ns_.store(absl::ToInt64Nanoseconds(std::max(idle, absl::ZeroDuration())));
  defers_.store(defers);
}

double SharedSimGPUDevice::active_thread_fraction() const {
  return active_thread_fraction_.load();
}

absl::Status RemoveSharedSimGPU(absl::string_view name, int count) {
  if (absl::Status valid = ValidateSharedSimGPUName(name); !valid.ok()) return valid;
  for (int i = 0; i < count; ++i) {
    const std::string segment = SharedSimGPUSegment(name, i);
    if (shm_unlink(segment.c_str()) != 0 && errno != ENOENT) {
      return ErrnoError("cannot remove it", segment);
    }
  }
  return absl::OkStatus();
}

}  // namespace minitf::se
