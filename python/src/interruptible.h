// Runs a step with the GIL released, so that other Python threads go on;
// on Python's main thread, Ctrl-C (SIGINT) cancels the step and, once it
// has stopped, Python's SIGINT handler runs (KeyboardInterrupt, by
// default).
#ifndef MINITF_PYTHON_SRC_INTERRUPTIBLE_H_
#define MINITF_PYTHON_SRC_INTERRUPTIBLE_H_

#include <functional>

#include "absl/status/status.h"
#include "runtime/cancellation.h"

namespace minitf::python {

// Calls `step` (which must stop soon after `cancel` is cancelled) on this
// thread and returns its status; throws pybind11::error_already_set when
// Python's SIGINT handler raised. Called with the GIL held.
absl::Status RunInterruptibly(const std::function<absl::Status()>& step,
                              CancellationManager* cancel);

}  // namespace minitf::python

#endif  // MINITF_PYTHON_SRC_INTERRUPTIBLE_H_
