// Ctrl-C and SIGTERM for a long command: the first asks it to wind down
// (it polls InterruptSignal() and writes what it has), a second one ends
// the process at once with status 128 + the signal, as the default action
// would.
//
//   InstallInterruptHandlers();
//   options.interruption = [] { return InterruptSignalName(); };
//   ...
//   if (int signo = InterruptSignal()) return 128 + signo;
#ifndef MINITF_CLI_INTERRUPT_H_
#define MINITF_CLI_INTERRUPT_H_

#include <string>

namespace minitf::harness {

// Handles SIGINT and SIGTERM from now on. The first one prints `next` (a
// line saying what happens next; it must outlive the process's handling)
// to stderr.
void InstallInterruptHandlers(
    const char* next = "\nminitf: interrupted: stopping the jobs at their next step and "
                       "writing the results (interrupt again to quit at once)\n");

// 0, or the first signal received since InstallInterruptHandlers.
int InterruptSignal();

// "", "SIGINT" or "SIGTERM".
std::string InterruptSignalName();

}  // namespace minitf::harness

#endif  // MINITF_CLI_INTERRUPT_H_
