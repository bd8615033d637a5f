// What the `minitf` commands' argument parsers and output writers share.
//
//   for (size_t i = 0; i < args.size(); ++i) {
//     auto value = [&] { return FlagValue(args, &i); };
//     if (args[i] == "--out") MINITF_ASSIGN_OR_RETURN(out_dir, value());
//   }
#ifndef MINITF_BENCH_HARNESS_EXPERIMENT_CLI_ARGS_H_
#define MINITF_BENCH_HARNESS_EXPERIMENT_CLI_ARGS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace minitf::harness {

// The value that follows the flag args[*i], moving *i onto it;
// InvalidArgument ("--out wants a value") when the flag is the last one.
absl::StatusOr<std::string> FlagValue(const std::vector<std::string>& args, size_t* i);

// Creates `dir` and its parents; Unavailable naming it when it cannot.
absl::Status MakeDir(const std::string& dir);

}  // namespace minitf::harness

#endif  // MINITF_BENCH_HARNESS_EXPERIMENT_CLI_ARGS_H_
