#include "python/src/interruptible.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdint>
#include <mutex>
#include <thread>

#include "platform/mutex.h"
#include "pybind11/pybind11.h"

namespace minitf::python {
namespace py = pybind11;

// While a step runs on the main thread, SIGINT goes to OnSigint instead of
// Python's handler (which only sets a flag that the main thread, busy in the
// step, would read after it): OnSigint notes the signal and wakes the
// watcher thread through an eventfd (both async-signal-safe); the watcher
// cancels the step. Afterwards Python's handler is back, and the signal is
// handed to it.
namespace {

Mutex watch_mu;
CancellationManager* running_step ABSL_GUARDED_BY(watch_mu) = nullptr;
int wake_fd = -1;
std::atomic<bool> interrupted{false};

void OnSigint(int) {
  interrupted.store(true, std::memory_order_relaxed);
  const uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = write(wake_fd, &one, sizeof one);
}

void Watch() {
  for (;;) {
    uint64_t count = 0;
    if (read(wake_fd, &count, sizeof count) != sizeof count) continue;
    MutexLock lock(&watch_mu);
    if (running_step != nullptr) running_step->StartCancel();
  }
}

bool OnMainThread() {
  static const unsigned long main_ident =  // NOLINT(runtime/int): CPython's type.
      py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();
  return PyThread_get_thread_ident() == main_ident;
}

}  // namespace

absl::Status RunInterruptibly(const std::function<absl::Status()>& step,
                              CancellationManager* cancel) {
  static std::once_flag started;
  std::call_once(started, [] {
    wake_fd = eventfd(0, EFD_CLOEXEC);
    if (wake_fd >= 0) std::thread(Watch).detach();
  });
  // Signal handlers run on the main thread only, and without an eventfd
  // nothing could wake the watcher; a SIGINT ignored or left to its default
  // action is not Python's to handle: in these cases the step just runs.
  struct sigaction python = {};
  sigaction(SIGINT, nullptr, &python);
  if (!OnMainThread() || wake_fd < 0 || python.sa_handler == SIG_IGN ||
      python.sa_handler == SIG_DFL) {
    py::gil_scoped_release release;
    return step();
  }
  interrupted.store(false, std::memory_order_relaxed);
  {
    MutexLock lock(&watch_mu);
    running_step = cancel;
  }
  struct sigaction ours = {};
  ours.sa_handler = OnSigint;
  sigemptyset(&ours.sa_mask);
  sigaction(SIGINT, &ours, &python);
  absl::Status status;
  {
    py::gil_scoped_release release;
    status = step();
  }
  sigaction(SIGINT, &python, nullptr);
  {
    MutexLock lock(&watch_mu);
    running_step = nullptr;
  }
  if (interrupted.load(std::memory_order_relaxed)) {
    PyErr_SetInterruptEx(SIGINT);
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
  }
  return status;
}

}  // namespace minitf::python
