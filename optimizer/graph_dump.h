// TensorFlow's TF_DUMP_GRAPH_PREFIX: when the environment names a folder,
// each stage of graph optimization writes the graph it saw there as a
// .pbtxt, `<prefix>/<stage>_<n>.pbtxt` (n counts the dumps of the
// process), and logs the path. A dump that cannot be written is logged as
// a warning and the step goes on.
//
//   DumpGraph("before_optimization", *graph);
#ifndef MINITF_OPTIMIZER_GRAPH_DUMP_H_
#define MINITF_OPTIMIZER_GRAPH_DUMP_H_

#include <string>

#include "runtime/graph.h"

namespace minitf {

// The path written (for a stage whose name has characters other than
// letters, digits, '_' and '-', with '_' for them), or "" when TF_DUMP_GRAPH_PREFIX is unset or the write
// failed.
std::string DumpGraph(const std::string& stage, const Graph& graph);
std::string DumpGraphDef(const std::string& stage, const GraphDef& graph);

}  // namespace minitf

#endif  // MINITF_OPTIMIZER_GRAPH_DUMP_H_
