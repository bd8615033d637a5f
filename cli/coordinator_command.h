// The `minitf coordinator` command line: AntMan's local coordinator
// (coordinator.h) over one directory of jobs, until SIGINT or SIGTERM.
#ifndef MINITF_CLI_COORDINATOR_COMMAND_H_
#define MINITF_CLI_COORDINATOR_COMMAND_H_

#include <string>
#include <vector>

namespace minitf::harness {

extern const char kCoordinatorUsage[];

// `args` follow "coordinator". Returns the exit status: 0 when stopped by
// --seconds, 1 when a config could not be written, 2 for bad arguments,
// 128 + the signal when stopped by one.
int CoordinatorCommand(const std::vector<std::string>& args);

}  // namespace minitf::harness

#endif  // MINITF_CLI_COORDINATOR_COMMAND_H_
