// GraphOptimizer: the passes TensorFlow's DirectSession runs on every graph
// it builds executors for (graph_optimizer.h in TensorFlow), chosen by an
// OptimizerOptions. DirectSession runs it on the graph of each Run
// signature after the feeds and fetches are rewritten and the nodes placed,
// before the graph is cut into partitions; fed, fetched and transfer nodes
// are never changed.
//
//   GraphOptimizer optimizer(options.config.graph_options.optimizer_options);
//   MINITF_RETURN_IF_ERROR(optimizer.Optimize(graph.get()));
//
// The passes run in turn until none changes the graph (at most
// kMaxRounds times).
#ifndef MINITF_OPTIMIZER_GRAPH_OPTIMIZER_H_
#define MINITF_OPTIMIZER_GRAPH_OPTIMIZER_H_

#include "absl/status/status.h"
#include "optimizer/optimizer_options.h"
#include "runtime/graph.h"

namespace minitf {

class GraphOptimizer {
 public:
  static constexpr int kMaxRounds = 10;

  explicit GraphOptimizer(const OptimizerOptions& options) : options_(options) {}

  absl::Status Optimize(Graph* graph) const;

 private:
  const OptimizerOptions options_;
};

}  // namespace minitf

#endif  // MINITF_OPTIMIZER_GRAPH_OPTIMIZER_H_
