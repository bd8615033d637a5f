#include "python/src/interruptible.h"

#include <thread>

#include "absl/time/time.h"
#include "platform/mutex.h"
#include "pybind11/pybind11.h"

namespace minitf::python {
namespace py = pybind11;

namespace {

bool OnMainThread() {
  static const unsigned long main_ident =  // NOLINT(runtime/int): CPython's type.
      py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();
  return PyThread_get_thread_ident() == main_ident;
}

}  // namespace

absl::Status RunInterruptibly(const std::function<absl::Status()>& step,
                              CancellationManager* cancel) {
  // Signal handlers run on the main thread only: elsewhere the step runs
  // here, without the GIL.
  if (!OnMainThread()) {
    py::gil_scoped_release release;
    return step();
  }
  // On the main thread the step runs on a thread of its own, and this one
  // looks for a pending signal every 50 ms.
  absl::Status status;
  Notification done;
  bool interrupted = false;
  {
    py::gil_scoped_release release;
    std::thread worker([&] {
      status = step();
      done.Notify();
    });
    while (!done.WaitForNotificationWithTimeout(absl::Milliseconds(50))) {
      py::gil_scoped_acquire acquire;
      if (PyErr_CheckSignals() != 0) {
        interrupted = true;
        break;
      }
    }
    if (interrupted) cancel->StartCancel();
    worker.join();
  }
  if (interrupted) throw py::error_already_set();
  return status;
}

}  // namespace minitf::python
