// Rewriting a graph for one Run signature (TensorFlow's subgraph.cc):
// every fed tensor becomes the output of an _Arg node, every fetched tensor
// the input of a _Retval node, and everything the fetches and targets do
// not need is pruned away.
#ifndef MINITF_SESSION_SUBGRAPH_H_
#define MINITF_SESSION_SUBGRAPH_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "runtime/graph.h"

namespace minitf::subgraph {

// What the rewrite produced, for the session to check feeds against.
struct RewriteResult {
  // For feed i: the type and (possibly partial) shape the graph expects.
  std::vector<DataType> feed_types;
  std::vector<PartialTensorShape> feed_shapes;
};

// `client_device` is the device (full name) feeds arrive on and fetches
// leave from: every _Arg and _Retval asks for it, so that a graph placed on
// other devices gets its feeds and fetches through _Send/_Recv. Empty: they
// ask for nothing.
//
// REQUIRES: `feeds` and `fetches` are canonical tensor names ("x:0"),
// feeds without duplicates. Errors name the feed, fetch or target that does
// not exist in `graph`.
absl::Status RewriteGraphForExecution(Graph* graph, const std::vector<std::string>& feeds,
                                      const std::vector<std::string>& fetches,
                                      const std::vector<std::string>& targets,
                                      const std::string& client_device,
                                      RewriteResult* result);

// Removes every node from which no node in `keep` can be reached.
void PruneForTargets(Graph* graph, const std::vector<Node*>& keep);

}  // namespace minitf::subgraph

#endif  // MINITF_SESSION_SUBGRAPH_H_
