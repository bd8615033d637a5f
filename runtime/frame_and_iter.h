// FrameAndIter: the while-loop frame instance and iteration a node runs in.
#ifndef MINITF_RUNTIME_FRAME_AND_ITER_H_
#define MINITF_RUNTIME_FRAME_AND_ITER_H_

#include <cstdint>

namespace minitf {

// 0:0 outside loops. A frame id identifies one instance of a loop's frame
// (one per iteration of its enclosing loop) and is the same in every
// partition of a step, so a _Send and its _Recv inside a loop meet per
// iteration.
struct FrameAndIter {
  uint64_t frame_id = 0;
  int64_t iter_id = 0;
  bool IsRoot() const { return frame_id == 0 && iter_id == 0; }
};

}  // namespace minitf

#endif  // MINITF_RUNTIME_FRAME_AND_ITER_H_
