// The `minitf colocate` command line: parses its arguments into
// ExperimentOptions (bench/harness/experiment.h), runs the co-location
// experiment, writes its report and says how it ended.
#ifndef MINITF_CLI_COLOCATE_COMMAND_H_
#define MINITF_CLI_COLOCATE_COMMAND_H_

#include <string>
#include <vector>

namespace minitf::harness {

extern const char kColocateUsage[];

// `args` follow "colocate". Returns the exit status: 0 when every job ran
// to its end, 1 when a job failed or the experiment could not run, 2 for
// bad arguments, 128 + the signal when interrupted.
int ColocateCommand(const std::vector<std::string>& args);

}  // namespace minitf::harness

#endif  // MINITF_CLI_COLOCATE_COMMAND_H_
