#include "optimizer/graph_optimizer.h"

#include "optimizer/optimizer_cse.h"
#include "platform/logging.h"

namespace minitf {

absl::Status GraphOptimizer::Optimize(Graph* graph) const {
  const int before = graph->num_op_nodes();
  for (int round = 0; round < kMaxRounds; ++round) {
    bool changed = false;
    if (options_.CommonSubexpressionElimination()) changed |= OptimizeCSE(graph, nullptr);
    if (!changed) break;
  }
  VLOG(1, "GraphOptimizer: {} nodes -> {}", before, graph->num_op_nodes());
  return absl::OkStatus();
}

}  // namespace minitf
