// The `minitf run` command line: parses its arguments into RunGraphOptions
// (bench/harness/run_graph.h), runs the graph and prints what it fetched.
#ifndef MINITF_CLI_RUN_COMMAND_H_
#define MINITF_CLI_RUN_COMMAND_H_

#include <string>
#include <vector>

namespace minitf::harness {

extern const char kRunUsage[];

// `args` follow "run". Returns the exit status: 0 on success, 1 when the
// graph could not run (the error on stderr), 2 for bad arguments.
int RunCommand(const std::vector<std::string>& args);

}  // namespace minitf::harness

#endif  // MINITF_CLI_RUN_COMMAND_H_
