// Runs a step with the GIL released, so that other Python threads go on;
// on Python's main thread, Ctrl-C (any signal whose handler raises)
// cancels the step and raises the handler's exception (KeyboardInterrupt)
// once the step has stopped.
#ifndef MINITF_PYTHON_SRC_INTERRUPTIBLE_H_
#define MINITF_PYTHON_SRC_INTERRUPTIBLE_H_

#include <functional>

#include "absl/status/status.h"
#include "runtime/cancellation.h"

namespace minitf::python {

// Calls `step` (which must stop soon after `cancel` is cancelled) and
// returns its status; throws pybind11::error_already_set when a signal
// handler raised. Called with the GIL held.
absl::Status RunInterruptibly(const std::function<absl::Status()>& step,
                              CancellationManager* cancel);

}  // namespace minitf::python

#endif  // MINITF_PYTHON_SRC_INTERRUPTIBLE_H_
