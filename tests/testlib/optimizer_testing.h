// Helpers for tests of graph passes that place nodes or run the graph: a
// Scope's graph with every node assigned to one device, and a GraphDef's
// fetches from one session run without graph optimization and one with it.
#ifndef MINITF_TESTS_TESTLIB_OPTIMIZER_TESTING_H_
#define MINITF_TESTS_TESTLIB_OPTIMIZER_TESTING_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "ops/cc/scope.h"
#include "optimizer/graph_optimizer.h"
#include "runtime/graph.h"
#include "session/session.h"

namespace minitf::test {

inline constexpr char kCpu[] = "/job:localhost/replica:0/task:0/device:CPU:0";
inline constexpr char kGpu[] = "/job:localhost/replica:0/task:0/device:GPU:0";

inline std::unique_ptr<Graph> ToPlacedGraph(const Scope& root, const std::string& device) {
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok());
  absl::StatusOr<std::unique_ptr<Graph>> graph = ConvertGraphDefToGraph(def);
  EXPECT_TRUE(graph.ok()) << graph.status();
  if (!graph.ok()) return std::make_unique<Graph>();
  for (Node* n : (*graph)->op_nodes()) n->set_assigned_device_name(device);
  return std::move(*graph);
}

// `fetches` of one run of `def` without graph optimization and one with
// it (the defaults), CPU only.
inline std::vector<std::vector<Tensor>> RunUnoptimizedAndOptimized(
    const GraphDef& def, const std::vector<std::pair<std::string, Tensor>>& feeds,
    const std::vector<std::string>& fetches) {
  std::vector<std::vector<Tensor>> results;
  for (const GraphOptions& graph_options : {GraphOptions::Unoptimized(), GraphOptions()}) {
    SessionOptions options;
    options.config.device_count["GPU"] = 0;
    options.config.graph_options = graph_options;
    std::unique_ptr<Session> session = *NewSession(options);
    EXPECT_TRUE(session->Create(def).ok());
    std::vector<Tensor> out;
    const absl::Status s = session->Run(feeds, fetches, {}, &out);
    EXPECT_TRUE(s.ok()) << s;
    out.resize(fetches.size());
    results.push_back(out);
  }
  return results;
}

}  // namespace minitf::test

#endif  // MINITF_TESTS_TESTLIB_OPTIMIZER_TESTING_H_
