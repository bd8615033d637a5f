// SleepUntil: blocks the calling thread until a deadline, the way the SimGPU
// cost model holds an engine or a stream for a modeled duration.
//
//   SleepUntil(start + modeled);
#ifndef MINITF_STREAM_HOST_SLEEP_UNTIL_H_
#define MINITF_STREAM_HOST_SLEEP_UNTIL_H_

#include "absl/time/time.h"

namespace minitf::se {

// Returns at once for a deadline in the past.
void SleepUntil(absl::Time deadline);

}  // namespace minitf::se

#endif  // MINITF_STREAM_HOST_SLEEP_UNTIL_H_
