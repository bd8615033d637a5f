// The `minitf job` command line: one training job of the scenario format as
// this process, steered by AntMan's config file and started with the limits
// a cluster's device plugin hands the container (hami_env.h). What a
// `minitf coordinator` or `minitf colocate --processes` runs, and what a
// cluster's job pod runs (docs/DEPLOY.md).
#ifndef MINITF_CLI_JOB_COMMAND_H_
#define MINITF_CLI_JOB_COMMAND_H_

#include <string>
#include <vector>

namespace minitf::harness {

extern const char kJobUsage[];

// `args` follow "job". Returns the exit status: 0 when the job ran to its
// end, 1 when its set-up or a step failed, 2 for bad arguments or
// environment, 128 + the signal when stopped by SIGINT or SIGTERM.
int JobCommand(const std::vector<std::string>& args);

}  // namespace minitf::harness

#endif  // MINITF_CLI_JOB_COMMAND_H_
