// GetNodeAttr for a fully defined shape: a shape whose element count
// overflows int64_t is an error naming the node and the attr, not a
// TensorShape that aborts.
#include "runtime/node_def_util.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/op_registry.h"

namespace minitf {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(NodeDefUtilTest, ShapeAttrWithTooManyElementsIsAnErrorNamingNodeAndAttr) {
  NodeDef def;
  def.name = "n";
  def.attr["shape"] = PartialTensorShape({int64_t{1} << 40, int64_t{1} << 40});
  TensorShape shape;
  absl::Status s = GetNodeAttr(def, "shape", &shape);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), AllOf(HasSubstr("Node 'n'"), HasSubstr("'shape'"),
                                 HasSubstr("[1099511627776,1099511627776]")));

  def.attr["shape"] = PartialTensorShape({2, 3});
  ASSERT_TRUE(GetNodeAttr(def, "shape", &shape).ok());
  EXPECT_EQ(shape, TensorShape({2, 3}));
}

TEST(NodeDefUtilTest, ListLengthsAreBoundedBeforeAnythingIsAllocated) {
  // AddN with N = 2^40 and two inputs: the types of 2^40 inputs were listed
  // (17 GB) before N was compared with the inputs.
  const OpDef* add_n = OpRegistry::Global()->LookUp("AddN");
  ASSERT_NE(add_n, nullptr);
  NodeDef def;
  def.name = "sum";
  def.op = "AddN";
  def.input = {"a", "b"};
  def.attr["T"] = DT_FLOAT;
  def.attr["N"] = int64_t{1} << 40;
  DataTypeVector inputs, outputs;
  absl::Status huge = InOutTypesForNode(def, *add_n, &inputs, &outputs);
  EXPECT_EQ(huge.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(huge.message(), AllOf(HasSubstr("'N' = 1099511627776"), HasSubstr("1048576")));

  // Within the bound but more than the node's inputs.
  def.attr["N"] = int64_t{3};
  absl::Status more = InOutTypesForNode(def, *add_n, &inputs, &outputs);
  EXPECT_EQ(more.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(more.message(), HasSubstr("more inputs than the node's 2"));

  def.attr["N"] = int64_t{2};
  ASSERT_TRUE(InOutTypesForNode(def, *add_n, &inputs, &outputs).ok());
  EXPECT_EQ(inputs.size(), 2u);

  // An output list (Unpack's num) is bounded too.
  const OpDef* unpack = OpRegistry::Global()->LookUp("Unpack");
  ASSERT_NE(unpack, nullptr);
  NodeDef split;
  split.name = "parts";
  split.op = "Unpack";
  split.input = {"x"};
  split.attr["T"] = DT_FLOAT;
  split.attr["num"] = int64_t{1} << 40;
  split.attr["axis"] = int64_t{0};
  EXPECT_EQ(InOutTypesForNode(split, *unpack, &inputs, &outputs).code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace minitf
