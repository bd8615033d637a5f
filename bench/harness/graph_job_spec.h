// What a `graphdef` job runs: a training graph read from a GraphDef file
// (one TensorFlow wrote, or minitf), the ops to run once and every step, and
// how each placeholder is fed. Plain data, read from a scenario by
// graph_job.h, which says the JSON form.
#ifndef MINITF_BENCH_HARNESS_GRAPH_JOB_SPEC_H_
#define MINITF_BENCH_HARNESS_GRAPH_JOB_SPEC_H_

#include <cstdint>
#include <string>
#include <vector>

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

}  // namespace minitf::harness

#endif  // MINITF_BENCH_HARNESS_GRAPH_JOB_SPEC_H_
