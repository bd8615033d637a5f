// What a `graphdef` job runs: a training graph read from a GraphDef file
// (one TensorFlow wrote, or minitf), the ops to run once and every step, and
// how each placeholder is fed: the data, and how a scenario's JSON gives it.
#ifndef MINITF_BENCH_HARNESS_SCENARIO_GRAPH_JOB_SPEC_H_
#define MINITF_BENCH_HARNESS_SCENARIO_GRAPH_JOB_SPEC_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "runtime/types.h"

namespace minitf::harness {

// One fed tensor: the contents of a .npy file, or a random tensor.
struct FeedSpec {
  std::string tensor = {};  // "images:0"
  std::string file = {};    // a .npy file; "" for a random tensor of:
  std::string dtype = {};   // "float32", "float64", "int32", "int64" or "bool"
  std::vector<int64_t> shape = {};
  // "normal" (mean 0, standard deviation 1), "uniform" ([low, high)),
  // "uniform_int" (integers in [low, high)), "ones" or "zeros".
  std::string random = {};
  double low = 0;
  double high = 1;
};

struct GraphJobSpec {
  std::string file = {};   // .pb (binary) or .pbtxt (text)
  std::string init = {};   // run once before the steps; "" for none
  std::string train = {};  // run every step
  std::vector<FeedSpec> feeds = {};
};

// Reads a job's "graph" object (`path` names it in errors, "jobs[0].graph");
// relative file names are joined to `dir` (the scenario file's directory;
// "" leaves them as they are). InvalidArgument naming the field and the
// value for an unknown key, a missing file or train op, a feed that is
// neither a file name nor an object, a bad dtype, shape or random kind, an
// empty range.
absl::Status ParseGraphJob(const nlohmann::json& j, const std::string& file,
                           const std::string& path, const std::string& dir, GraphJobSpec* out);

// A feed's dtype: numpy's names (what manifest.json writes: "float32",
// "float64") or TensorFlow's ("int32", "int64", "bool"); InvalidArgument
// otherwise, and for resources.
absl::StatusOr<DataType> FeedDataType(absl::string_view name);

}  // namespace minitf::harness

#endif  // MINITF_BENCH_HARNESS_SCENARIO_GRAPH_JOB_SPEC_H_
