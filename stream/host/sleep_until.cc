#include "stream/host/sleep_until.h"

#include "absl/time/clock.h"

namespace minitf::se {

void SleepUntil(absl::Time deadline) {
  // SleepFor may wake early (signals); sleep again for what is left.
  for (absl::Time now = absl::Now(); now < deadline; now = absl::Now()) {
    absl::SleepFor(deadline - now);
  }
}

}  // namespace minitf::se
