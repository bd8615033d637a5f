// GetNodeAttr for a fully defined shape: a shape whose element count
// overflows int64_t is an error naming the node and the attr, not a
// TensorShape that aborts.
#include "runtime/node_def_util.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

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

}  // namespace
}  // namespace minitf
