#include "stream/sim_gpu/sim_gpu_sm_run.h"

#include <algorithm>
#include <limits>

#include "absl/time/clock.h"

namespace minitf::se {
namespace {

// A waiter looks again at least this often (a kernel nobody watches may
// have ended; a process may have died).
constexpr absl::Duration kLongestWait = absl::Milliseconds(50);

int64_t NowNs() { return absl::ToUnixNanos(absl::Now()); }

// Waits until the pool's next event or a change, at most kLongestWait.
void WaitForChange(const SmPoolState& pool, int64_t until_ns, const SmWaitOps& ops) {
  const int64_t now = NowNs();
  const int64_t until = std::min(until_ns, pool.NextEvent());
  const absl::Duration wait =
      until == SmPoolState::kNever ? kLongestWait
                                   : std::min(absl::Nanoseconds(until - now), kLongestWait);
  ops.wait(std::max(wait, absl::Nanoseconds(1)));
}

}  // namespace

SmRunResult RunOnSmPool(SmPoolState* pool, SmRequest request, absl::Time ready,
                        const std::function<absl::Status()>& body, const AfterBody& after_body,
                        const SmWaitOps& ops) {
  SmRunResult result;
  int64_t ready_ns = absl::ToUnixNanos(ready);
  request.pinned = static_cast<bool>(body);
  if (request.defers) {
    // Held back while another context that does not defer has work, and
    // until it has had none for defer_idle_ns.
    while (true) {
      const int64_t now = NowNs();
      pool->RunEventsUntil(now);
      if (!pool->OthersBusy(request.context)) {
        const int64_t last = pool->OthersLastEnd();
        const int64_t open = last == std::numeric_limits<int64_t>::min()
                                 ? last
                                 : last + std::max<int64_t>(request.defer_idle_ns, 0);
        if (open <= now) {
          ready_ns = std::max(ready_ns, open);
          break;
        }
        WaitForChange(*pool, open, ops);
      } else if (request.defer_idle_ns > 0) {
        // The gate opens defer_idle_ns after the others' last kernel ends:
        // looking every half of that finds it in time, without waking at
        // each of their kernels (and taking the lock they need).
        const absl::Duration poll =
            std::clamp(absl::Nanoseconds(request.defer_idle_ns / 2), kShortestHostWait, kLongestWait);
        ops.unlocked([poll] { absl::SleepFor(poll); });
      } else {
        WaitForChange(*pool, SmPoolState::kNever, ops);
      }
    }
  }
  int k = -1;
  while (true) {
    pool->RunEventsUntil(std::min(NowNs(), ready_ns));
    if ((k = pool->Add(request, ready_ns)) >= 0) break;
    ops.wait(kLongestWait);  // Every place taken: wait for one.
  }
  uint64_t seen = pool->version();
  ops.wake_all();
  const auto look = [&] {
    pool->RunEventsUntil(std::min(NowNs(), pool->ProjectedEnd(k)));
    if (pool->version() != seen) {
      seen = pool->version();
      ops.wake_all();
    }
  };
  if (body) {
    // The body runs once the kernel holds SMs.
    while (true) {
      pool->RunEventsUntil(NowNs());
      if (pool->kernel(k).sms > 0) break;
      if (pool->version() != seen) {
        seen = pool->version();
        ops.wake_all();
      }
      WaitForChange(*pool, SmPoolState::kNever, ops);
    }
    const absl::Time start = absl::Now();
    ops.unlocked([&] { result.body_status = body(); });
    result.body_time = absl::Now() - start;
    result.body_ran = true;
    pool->AdvanceTo(NowNs());
    pool->Unpin(k, absl::ToDoubleNanoseconds(after_body(result.body_status, result.body_time)));
    seen = pool->version();
    ops.wake_all();
  }
  while (true) {
    look();
    const SmKernel& kernel = pool->kernel(k);
    if (kernel.state == SmKernel::State::kDone) {
      result.end = absl::FromUnixNanos(kernel.end_ns);
      result.preemptions = kernel.preemptions;
      pool->Free(k);
      ops.wake_all();
      return result;
    }
    // Only a kernel on the SMs has an end to return at (a pending one's
    // ProjectedEnd is when it joins).
    const int64_t end = pool->ProjectedEnd(k);
    if (kernel.state == SmKernel::State::kActive && end != SmPoolState::kNever &&
        end - NowNs() < absl::ToInt64Nanoseconds(kShortestHostWait)) {
      result.end = absl::FromUnixNanos(end);
      result.preemptions = kernel.preemptions;
      pool->Detach(k);
      return result;
    }
    WaitForChange(*pool, end, ops);
  }
}

}  // namespace minitf::se
