#include "stream/sim_gpu/sim_gpu_shared_device.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

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
constexpr uint32_t kVersion = 1;
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
    EngineTurn turn;
  };
  struct Lease {
    int32_t pid = 0;  // 0: a free place
    int64_t bytes = 0;
  };

  std::atomic<uint64_t> magic{0};
  uint32_t version = 0;
  int64_t capacity = 0;
  RobustMutex mu;
  std::atomic<uint32_t> turn_seq{0};     // Bumped when the engine is released.
  std::atomic<uint32_t> preempt_seq{0};  // Bumped when a kernel outranking the running one arrives.
  uint64_t next_ticket ABSL_GUARDED_BY(mu) = 0;
  int32_t running_pid ABSL_GUARDED_BY(mu) = 0;
  EngineTurn running ABSL_GUARDED_BY(mu);
  bool taken ABSL_GUARDED_BY(mu) = false;  // Set after running_pid and running.
  Waiter waiting[SharedSimGPUDevice::kMaxWaiting] ABSL_GUARDED_BY(mu);
  Lease leases[SharedSimGPUDevice::kMaxProcesses] ABSL_GUARDED_BY(mu);

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
    if (taken && !Alive(running_pid)) {
      LOG(WARNING, "shared SimGPU: process {} died holding the engine; it is free again",
          running_pid);
      taken = false;
      line_changed = true;
    }
    if (line_changed) FutexWakeAll(&turn_seq);
  }

  bool First(const EngineTurn& turn) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    for (const Waiter& w : waiting) {
      if (w.pid != 0 && w.turn < turn) return false;
    }
    return true;
  }

  bool Outranked(const EngineTurn& turn) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    for (const Waiter& w : waiting) {
      if (w.pid != 0 && w.turn.rank < turn.rank) return true;
    }
    return false;
  }

  // Joins the line with `turn` and waits until it has the engine.
  void Enter(const EngineTurn& turn) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
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
    place->pid = pid;
    place->turn = turn;
    if (taken && turn.rank < running.rank) FutexWakeAll(&preempt_seq);
    while (taken || !First(turn)) Wait(&turn_seq, SharedSimGPUDevice::kLivenessPeriod);
    place->pid = 0;
    running_pid = pid;
    running = turn;
    taken = true;
  }

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
    absl::string_view name, int ordinal, int64_t capacity) {
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
    }
    if (!bad.ok()) {
      munmap(mapped, sizeof(SharedSimGPUState));
      return bad;
    }
  }
  return std::unique_ptr<SharedSimGPUDevice>(
      new SharedSimGPUDevice(state, segment, capacity));
}

SharedSimGPUDevice::SharedSimGPUDevice(SharedSimGPUState* state, std::string segment,
                                       int64_t capacity)
    : state_(state), segment_(std::move(segment)), capacity_(capacity) {}

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
  state_->Enter(turn);
  return turn;
}

void SharedSimGPUDevice::Release(const EngineTurn& turn) {
  StateLock lock(state_);
  state_->Leave();
}

bool SharedSimGPUDevice::WaitOutranked(const EngineTurn& turn, absl::Time deadline) {
  StateLock lock(state_);
  while (true) {
    if (state_->Outranked(turn)) {
      state_->PurgeDead();  // A dead process's kernel outranks nobody.
      if (state_->Outranked(turn)) return true;
    }
    const absl::Time now = absl::Now();
    if (now >= deadline) return false;
    state_->Wait(&state_->preempt_seq, deadline - now);
  }
}

absl::Status SharedSimGPUDevice::Yield(const EngineTurn& turn) {
  StateLock lock(state_);
  state_->Leave();
  state_->Enter(turn);
  return absl::OkStatus();
}

int SharedSimGPUDevice::Waiting() const {
  StateLock lock(state_);
  int n = 0;
  for (const SharedSimGPUState::Waiter& w : state_->waiting) n += w.pid != 0 ? 1 : 0;
  return n;
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
