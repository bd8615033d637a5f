#include "cli/interrupt.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

namespace minitf::harness {
namespace {

// Written by the handler: a lock-free atomic is safe to touch there.
std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);
// What the first signal prints; set before the handlers are installed.
std::atomic<const char*> g_next{""};
static_assert(std::atomic<const char*>::is_always_lock_free);

void OnSignal(int signo) {
  int none = 0;
  if (!g_signal.compare_exchange_strong(none, signo)) _exit(128 + signo);
  // Only async-signal-safe calls here: write(2) and strlen, not iostreams.
  const char* next = g_next.load();
  const ssize_t ignored = write(STDERR_FILENO, next, strlen(next));
  (void)ignored;
}

}  // namespace

void InstallInterruptHandlers(const char* next) {
  g_next.store(next);
  struct sigaction action = {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

int InterruptSignal() { return g_signal.load(); }

std::string InterruptSignalName() {
  switch (InterruptSignal()) {
    case 0:
      return "";
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    default:
      return "a signal";
  }
}

}  // namespace minitf::harness
