// Small helpers for tests of graph passes: a Scope's graph as a Graph, the
// count of an op's nodes, a node's op, the node feeding an input.
#ifndef MINITF_TESTS_TESTLIB_GRAPH_TESTING_H_
#define MINITF_TESTS_TESTLIB_GRAPH_TESTING_H_

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "ops/cc/scope.h"
#include "runtime/graph.h"

namespace minitf::test {

inline std::unique_ptr<Graph> ToGraph(const Scope& root) {
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok());
  absl::StatusOr<std::unique_ptr<Graph>> graph = ConvertGraphDefToGraph(def);
  EXPECT_TRUE(graph.ok()) << graph.status();
  return graph.ok() ? std::move(*graph) : std::make_unique<Graph>();
}

inline int CountOps(const Graph& graph, const std::string& op) {
  int count = 0;
  for (const Node* n : graph.op_nodes()) count += n->type_string() == op;
  return count;
}

// The op of node `name`, or "" when there is none.
inline std::string OpOf(const Graph& graph, const std::string& name) {
  const Node* n = graph.FindNode(name);
  return n == nullptr ? "" : n->type_string();
}

// The node feeding data input `i` of `name`; null (and a failure when
// `name` is missing) when there is none.
inline const Node* InputOf(const Graph& graph, const std::string& name, int i) {
  const Node* n = graph.FindNode(name);
  EXPECT_NE(n, nullptr) << name;
  if (n == nullptr) return nullptr;
  absl::StatusOr<const Edge*> e = n->input_edge(i);
  return e.ok() ? (*e)->src() : nullptr;
}

}  // namespace minitf::test

#endif  // MINITF_TESTS_TESTLIB_GRAPH_TESTING_H_
