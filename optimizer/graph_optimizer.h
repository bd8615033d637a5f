// GraphOptimizer: the passes TensorFlow's DirectSession runs on every graph
// it builds executors for (graph_optimizer.h in TensorFlow), chosen by an
// OptimizerOptions. DirectSession runs it on the graph of each Run
// signature after the feeds and fetches are rewritten and the nodes placed,
// before the graph is cut into partitions; fed, fetched and transfer nodes
// are never changed.
//
//   GraphOptimizer optimizer(options.config.graph_options, host_cpu);
//   MINITF_RETURN_IF_ERROR(optimizer.Optimize(graph.get()));
//
// Each round runs, in TensorFlow's order, constant folding, the layout
// (NCHW image nodes on a GPU into NHWC), the arithmetic simplifications, the
// removal of Identity and NoOp nodes that only pass something on, and common
// subexpression elimination; rounds repeat until none changes the graph (at
// most kMaxRounds times).
#ifndef MINITF_OPTIMIZER_GRAPH_OPTIMIZER_H_
#define MINITF_OPTIMIZER_GRAPH_OPTIMIZER_H_

#include "absl/status/status.h"
#include "device/device.h"
#include "optimizer/optimizer_options.h"
#include "runtime/graph.h"

namespace minitf {

class GraphOptimizer {
 public:
  static constexpr int kMaxRounds = 10;

  // `host` is the CPU device constant folding computes on (not owned; must
  // outlive the optimizer). Without one, the optimizer makes its own.
  explicit GraphOptimizer(const GraphOptions& options, Device* host = nullptr)
      : options_(options), host_(host) {}

  absl::Status Optimize(Graph* graph) const;

 private:
  absl::Status OptimizeOn(Device* host, Graph* graph) const;

  const GraphOptions options_;
  Device* const host_;
};

}  // namespace minitf

#endif  // MINITF_OPTIMIZER_GRAPH_OPTIMIZER_H_
