#include "runtime/graph.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/cc/scope.h"
#include "ops/standard_ops.h"

namespace minitf {
namespace {

using ::testing::HasSubstr;

TEST(GraphTest, BuildsEdgesSourceSinkAndDefaults) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, {.shape = {2, 3}});
  auto y = ops::Identity(root.WithOpName("y"), x);
  ops::NoOp(root.WithOpName("after").WithControlDependencies({y}));
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  auto g = ConvertGraphDefToGraph(def);
  ASSERT_TRUE(g.ok()) << g.status();
  Node* yn = (*g)->FindNode("y");
  ASSERT_NE(yn, nullptr);
  EXPECT_EQ(yn->num_inputs(), 1);
  EXPECT_EQ(yn->output_shapes()[0].DebugString(), "[2,3]");
  EXPECT_EQ(yn->def().attr.at("T").type(), DT_FLOAT);
  // x has a control edge from _SOURCE; `after` one to _SINK.
  bool from_source = false;
  for (const Edge* e : (*g)->FindNode("x")->in_edges()) from_source |= e->src()->IsSource();
  EXPECT_TRUE(from_source);
  bool control_from_y = false;
  for (const Edge* e : (*g)->FindNode("after")->in_edges()) {
    control_from_y |= e->IsControlEdge() && e->src() == yn;
  }
  EXPECT_TRUE(control_from_y);
  // Round trip.
  GraphDef again = (*g)->ToGraphDef();
  auto g2 = ConvertGraphDefToGraph(again);
  ASSERT_TRUE(g2.ok());
  EXPECT_EQ((*g2)->num_op_nodes(), 3);
}

TEST(GraphTest, RejectsControlInputBeforeDataInputAndBadAttrs) {
  GraphDef def;
  NodeDef c;
  c.name = "c";
  c.op = "Const";
  c.attr = {{"dtype", DT_FLOAT}, {"value", Tensor::Scalar<float>(1)}};
  NodeDef i;
  i.name = "i";
  i.op = "Identity";
  i.input = {"^c", "c"};
  i.attr = {{"T", DT_FLOAT}};
  def.node = {c, i};
  auto g = ConvertGraphDefToGraph(def);
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(std::string(g.status().message()), HasSubstr("comes after a control input"));

  def.node[1].input = {"c"};
  def.node[1].attr = {{"T", 3}};  // An int where a type belongs.
  g = ConvertGraphDefToGraph(def);
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(std::string(g.status().message()), HasSubstr("attr 'T' has type int, expected type"));

  def.node[1].attr = {};
  g = ConvertGraphDefToGraph(def);
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(std::string(g.status().message()), HasSubstr("missing attr 'T'"));

  def.node[1].attr = {{"T", DT_FLOAT}, {"bogus", true}};
  g = ConvertGraphDefToGraph(def);
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(std::string(g.status().message()), HasSubstr("unknown attr 'bogus'"));
}

TEST(GraphTest, MalformedInputNames) {
  GraphDef def;
  NodeDef i;
  i.name = "i";
  i.op = "Identity";
  i.attr = {{"T", DT_FLOAT}};
  for (const char* bad : {"", "x:", "x:-1", "^", ":0", "^x:1"}) {
    i.input = {bad};
    def.node = {i};
    auto g = ConvertGraphDefToGraph(def);
    EXPECT_FALSE(g.ok()) << "input '" << bad << "' was accepted";
  }
}

TEST(GraphTest, CycleIsReportedWithItsPath) {
  GraphDef def;
  for (const auto& [name, input] :
       std::vector<std::pair<std::string, std::string>>{{"a", "c"}, {"b", "a"}, {"c", "b"}}) {
    NodeDef n;
    n.name = name;
    n.op = "Identity";
    n.input = {input};
    n.attr = {{"T", DT_FLOAT}};
    def.node.push_back(n);
  }
  auto g = ConvertGraphDefToGraph(def);
  ASSERT_FALSE(g.ok());
  const std::string msg(g.status().message());
  EXPECT_THAT(msg, HasSubstr("cycle"));
  EXPECT_TRUE(msg.find("a -> b -> c -> a") != std::string::npos ||
              msg.find("b -> c -> a -> b") != std::string::npos ||
              msg.find("c -> a -> b -> c") != std::string::npos)
      << msg;
}

TEST(ScopeTest, NamesAreUniqueAndSubScopesPrefix) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root, 1.0f);
  auto b = ops::Const(root, 2.0f);
  auto c = ops::Const(root.NewSubScope("layer").WithOpName("w"), 3.0f);
  EXPECT_EQ(a.node_name(), "Const");
  EXPECT_EQ(b.node_name(), "Const_1");
  EXPECT_EQ(c.node_name(), "layer/w");
  ops::Const(root.WithOpName("Const"), 4.0f);  // Duplicate explicit name.
  EXPECT_FALSE(root.ok());
  EXPECT_THAT(std::string(root.status().message()), HasSubstr("Duplicate node name 'Const'"));
}

TEST(ScopeTest, LiteralInputsTakeTheTypeTheOpNeeds) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  auto y = ops::Identity(root, x);
  EXPECT_EQ(y.type(), DT_DOUBLE);
  auto i = ops::Identity(root, 3);
  EXPECT_EQ(i.type(), DT_INT32);
  EXPECT_TRUE(root.ok()) << root.status();
}

TEST(ScopeTest, FirstErrorSticks) {
  Scope root = Scope::NewRootScope();
  OpBuilder(root, "NotAnOp").Finalize();
  ops::Const(root, 1.0f);
  GraphDef def;
  absl::Status s = root.ToGraphDef(&def);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("NotAnOp"));
}

}  // namespace
}  // namespace minitf
