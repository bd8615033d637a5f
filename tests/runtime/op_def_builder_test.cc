#include "runtime/op_def_builder.h"

#include "gtest/gtest.h"

namespace minitf {
namespace {

TEST(OpDefBuilderTest, ParsesArgsAttrsDefaultsAndRefs) {
  auto def = OpDefBuilder("Thing")
                 .Input("a: T")
                 .Input("b: float")
                 .Input("ref: Ref(T)")
                 .Input("many: N * T")
                 .Output("out: T")
                 .Attr("T: {float, double}")
                 .Attr("N: int >= 2")
                 .Attr("flag: bool = true")
                 .Attr("scale: float = 0.5")
                 .Attr("dims: list(int) = [1, 2]")
                 .Attr("shape: shape = [2,?]")
                 .Attr("label: string = 'hi'")
                 .Finalize();
  ASSERT_TRUE(def.ok()) << def.status();
  ASSERT_EQ(def->input_arg.size(), 4u);
  EXPECT_EQ(def->input_arg[0].type_attr, "T");
  EXPECT_EQ(def->input_arg[1].type, DT_FLOAT);
  EXPECT_TRUE(def->input_arg[2].is_ref);
  EXPECT_EQ(def->input_arg[3].number_attr, "N");
  const OpDef::AttrDef* t = def->FindAttr("T");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->allowed_values, (std::vector<DataType>{DT_FLOAT, DT_DOUBLE}));
  EXPECT_EQ(*def->FindAttr("N")->minimum, 2);
  EXPECT_TRUE(def->FindAttr("flag")->default_value->b());
  EXPECT_FLOAT_EQ(def->FindAttr("scale")->default_value->f(), 0.5f);
  EXPECT_EQ(def->FindAttr("dims")->default_value->Get<std::vector<int64_t>>(),
            (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(def->FindAttr("shape")->default_value->shape().DebugString(), "[2,?]");
  EXPECT_EQ(def->FindAttr("label")->default_value->s(), "hi");
}

TEST(OpDefBuilderTest, RejectsBadSpecsNamingTheOp) {
  auto undeclared = OpDefBuilder("Bad").Input("x: T").Finalize();
  ASSERT_FALSE(undeclared.ok());
  EXPECT_NE(undeclared.status().message().find("REGISTER_OP(\"Bad\")"), absl::string_view::npos);
  EXPECT_FALSE(OpDefBuilder("Bad").Attr("x: wobbly").Finalize().ok());
  EXPECT_FALSE(OpDefBuilder("Bad").Attr("b: bool = maybe").Finalize().ok());
  EXPECT_FALSE(OpDefBuilder("Bad").Attr("T: {float, nope}").Finalize().ok());
  EXPECT_FALSE(OpDefBuilder("Bad").Input("x float").Finalize().ok());
  EXPECT_FALSE(OpDefBuilder("Bad").Attr("a: int").Attr("a: int").Finalize().ok());
  EXPECT_FALSE(OpDefBuilder("Bad").Input("xs: N * float").Attr("N: type").Finalize().ok());
}

}  // namespace
}  // namespace minitf
