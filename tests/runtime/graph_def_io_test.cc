// Reading and writing TensorFlow's GraphDef files (runtime/graph_def_io.h):
// round trips through both formats, TensorFlow's field numbers on the wire,
// TensorProto's value forms, and the errors for what minitf refuses.
#include "runtime/graph_def_io.h"

#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/graph.h"
#include "tests/testlib/test_files.h"

namespace minitf {
namespace {

using ::testing::HasSubstr;

// A graph with every attr kind minitf keeps, devices, control inputs and
// versions.
GraphDef EveryKindGraph() {
  GraphDef g;
  g.versions = {.producer = 1882, .min_consumer = 12, .bad_consumers = {3, 5}};
  g.node.push_back(NodeDef{
      .name = "w",
      .op = "Const",
      .input = {},
      .device = "/job:localhost/replica:0/task:0/device:CPU:0",
      .attr = {{"dtype", DT_FLOAT},
               {"value", Tensor::FromVector<float>({1.5f, -2.0f, 3.25f, 0.0f, 7.0f, 9.5f},
                                                   TensorShape({2, 3}))},
               {"_class", std::vector<std::string>{"loc:@w"}},
               {"_output_shapes", std::vector<PartialTensorShape>{
                                      PartialTensorShape({2, -1}), PartialTensorShape()}}}});
  g.node.push_back(NodeDef{.name = "n", .op = "Const", .input = {}, .device = "",
                           .attr = {{"dtype", DT_INT64},
                                    {"value", Tensor::Scalar<int64_t>(-42)}}});
  g.node.push_back(NodeDef{
      .name = "y",
      .op = "MatMul",
      .input = {"w", "w:0", "^n"},
      .device = "/device:GPU:0",
      .attr = {{"T", DT_FLOAT},
               {"transpose_a", false},
               {"transpose_b", true},
               {"_f", 0.25f},
               {"_s", std::string("text with \"quotes\"\n")},
               {"_i", std::vector<int64_t>{1, -2, 3}},
               {"_fl", std::vector<float>{0.5f, -1.0f}},
               {"_t", std::vector<DataType>{DT_INT32, DT_BOOL}},
               {"_b", std::vector<bool>{true, false}},
               {"_shape", PartialTensorShape({-1, 4})},
               {"_unknown", PartialTensorShape()},
               {"_d", Tensor::FromVector<double>({1e-300, 2.5})},
               {"_bools", Tensor::FromVector<bool>({true, false, true})},
               {"_ints", Tensor::FromVector<int32_t>({7, -8})},
               {"_empty", Tensor(DT_FLOAT, TensorShape({0, 3}))}}});
  return g;
}

void ExpectSameTensor(const Tensor& a, const Tensor& b, const std::string& where) {
  ASSERT_EQ(a.dtype(), b.dtype()) << where;
  ASSERT_EQ(a.shape(), b.shape()) << where;
  ASSERT_EQ(a.TotalBytes(), b.TotalBytes()) << where;
  if (a.TotalBytes() > 0) {
    EXPECT_EQ(std::string(static_cast<const char*>(a.raw_data()), a.TotalBytes()),
              std::string(static_cast<const char*>(b.raw_data()), b.TotalBytes()))
        << where;
  }
}

void ExpectSameGraph(const GraphDef& a, const GraphDef& b) {
  EXPECT_EQ(a.versions.producer, b.versions.producer);
  EXPECT_EQ(a.versions.min_consumer, b.versions.min_consumer);
  EXPECT_EQ(a.versions.bad_consumers, b.versions.bad_consumers);
  ASSERT_EQ(a.node.size(), b.node.size());
  for (size_t i = 0; i < a.node.size(); ++i) {
    const NodeDef& x = a.node[i];
    const NodeDef& y = b.node[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.op, y.op);
    EXPECT_EQ(x.input, y.input);
    EXPECT_EQ(x.device, y.device);
    ASSERT_EQ(x.attr.size(), y.attr.size()) << x.name;
    for (const auto& [name, value] : x.attr) {
      auto it = y.attr.find(name);
      ASSERT_NE(it, y.attr.end()) << x.name << "." << name;
      const std::string where = x.name + "." + name;
      ASSERT_EQ(value.TypeName(), it->second.TypeName()) << where;
      if (value.Holds<Tensor>()) {
        ExpectSameTensor(value.tensor(), it->second.tensor(), where);
      } else {
        EXPECT_EQ(value.DebugString(), it->second.DebugString()) << where;
      }
    }
  }
}

TEST(GraphDefIoTest, BinaryAndTextRoundTripEveryAttrKind) {
  const GraphDef g = EveryKindGraph();
  absl::StatusOr<GraphDef> binary = ParseBinaryGraphDef(SerializeBinaryGraphDef(g));
  ASSERT_TRUE(binary.ok()) << binary.status();
  ExpectSameGraph(g, *binary);
  absl::StatusOr<GraphDef> text = ParseTextGraphDef(SerializeTextGraphDef(g));
  ASSERT_TRUE(text.ok()) << text.status();
  ExpectSameGraph(g, *text);
}

TEST(GraphDefIoTest, FilesRoundTripByExtension) {
  const std::string dir = test::MakeTempDir("graph_def_io");
  const GraphDef g = EveryKindGraph();
  ASSERT_TRUE(WriteGraphDefFile(dir + "/g.pb", g).ok());
  ASSERT_TRUE(WriteGraphDefFile(dir + "/g.pbtxt", g).ok());
  EXPECT_THAT(test::ReadFileOrDie(dir + "/g.pbtxt"), HasSubstr("node {"));
  for (const char* name : {"/g.pb", "/g.pbtxt"}) {
    absl::StatusOr<GraphDef> read = ReadGraphDefFile(dir + name);
    ASSERT_TRUE(read.ok()) << read.status();
    ExpectSameGraph(g, *read);
  }
  GraphDef via_binary;
  ASSERT_TRUE(ReadBinaryProto(dir + "/g.pb", &via_binary).ok());
  ExpectSameGraph(g, via_binary);
  // The binary form is deterministic: equal graphs, equal files.
  ASSERT_TRUE(WriteBinaryProto(dir + "/again.pb", via_binary).ok());
  EXPECT_EQ(test::ReadFileOrDie(dir + "/g.pb"), test::ReadFileOrDie(dir + "/again.pb"));
}

// The bytes of graph.proto's field numbers: node = 1, versions = 4; in a
// NodeDef name = 1, op = 2, input = 3, device = 4, attr = 5; in VersionDef
// producer = 1. A reader with other numbers could not pass this.
TEST(GraphDefIoTest, WritesTensorFlowsFieldNumbers) {
  GraphDef g;
  g.versions.producer = 5;
  g.node.push_back(NodeDef{.name = "a", .op = "B", .input = {"c"}, .device = "d",
                           .attr = {{"e", int64_t{7}}}});
  const std::string bytes = SerializeBinaryGraphDef(g);
  // node (1, LEN): name (1) "a", op (2) "B", input (3) "c", device (4) "d",
  // attr (5) entry { key (1) "e", value (2) AttrValue { i (3) = 7 } }.
  const std::string node = std::string("\x0a\x01" "a" "\x12\x01" "B" "\x1a\x01" "c"
                                       "\x22\x01" "d" "\x2a\x07\x0a\x01" "e" "\x12\x02\x18\x07",
                                       21);
  const std::string expected = std::string("\x0a") + static_cast<char>(node.size()) + node +
                               std::string("\x22\x02\x08\x05", 4);
  EXPECT_EQ(bytes, expected);
}

// TensorFlow's TensorProto forms: one value fills the tensor, a short list
// repeats its last value, no values means zeros, tensor_content is raw bytes.
TEST(GraphDefIoTest, TensorProtoValueForms) {
  absl::StatusOr<GraphDef> g = ParseTextGraphDef(R"pb(
    node { name: "fill" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "value" value { tensor { dtype: DT_FLOAT
             tensor_shape { dim { size: 2 } dim { size: 3 } } float_val: 1.5 } } } }
    node { name: "repeat" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32
             tensor_shape { dim { size: 4 } } int_val: 1 int_val: 2 } } } }
    node { name: "zeros" op: "Const" attr { key: "dtype" value { type: DT_INT64 } }
           attr { key: "value" value { tensor { dtype: DT_INT64
             tensor_shape { dim { size: 3 } } } } } }
    node { name: "content" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32
             tensor_shape { dim { size: 2 } } tensor_content: "\001\000\000\000\377\377\377\377" } } } }
    node { name: "flag" op: "Const" attr { key: "dtype" value { type: DT_BOOL } }
           attr { key: "value" value { tensor { dtype: DT_BOOL bool_val: true } } } }
    versions { producer: 1882 }
  )pb");
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->node.size(), 5u);
  auto value = [&](int i) { return g->node[i].attr.at("value").tensor(); };
  EXPECT_THAT(std::vector<float>(value(0).data<float>(), value(0).data<float>() + 6),
              ::testing::Each(1.5f));
  EXPECT_EQ(value(0).shape(), TensorShape({2, 3}));
  EXPECT_THAT(std::vector<int32_t>(value(1).data<int32_t>(), value(1).data<int32_t>() + 4),
              ::testing::ElementsAre(1, 2, 2, 2));
  EXPECT_THAT(std::vector<int64_t>(value(2).data<int64_t>(), value(2).data<int64_t>() + 3),
              ::testing::ElementsAre(0, 0, 0));
  EXPECT_THAT(std::vector<int32_t>(value(3).data<int32_t>(), value(3).data<int32_t>() + 2),
              ::testing::ElementsAre(1, -1));
  EXPECT_EQ(value(4).shape(), TensorShape({}));
  EXPECT_TRUE(value(4).data<bool>()[0]);
  EXPECT_EQ(g->versions.producer, 1882);
  // The graph they form is valid for minitf.
  EXPECT_TRUE(ConvertGraphDefToGraph(*g).ok());
}

absl::Status ParseConstValue(const std::string& tensor_text) {
  return ParseTextGraphDef(R"pb(node { name: "bad" op: "Const"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "value" value { tensor { )pb" + tensor_text + " } } } }")
      .status();
}

TEST(GraphDefIoTest, BadTensorProtosNameTheNodeAndAttr) {
  const absl::Status too_many = ParseConstValue(
      "dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1 float_val: 2 float_val: 3");
  EXPECT_EQ(too_many.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(too_many.message(), HasSubstr("Node 'bad' (op 'Const'): attr 'value'"));
  EXPECT_THAT(too_many.message(), HasSubstr("3 values for a tensor of 2 elements"));

  const absl::Status short_content = ParseConstValue(
      "dtype: DT_FLOAT tensor_shape { dim { size: 2 } } tensor_content: \"\\000\\000\"");
  EXPECT_EQ(short_content.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(short_content.message(), HasSubstr("tensor_content has 2 bytes"));

  const absl::Status string_tensor = ParseConstValue("dtype: DT_STRING string_val: \"x\"");
  EXPECT_EQ(string_tensor.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(string_tensor.message(), HasSubstr("DT_STRING is not supported by minitf"));

  const absl::Status partial =
      ParseConstValue("dtype: DT_FLOAT tensor_shape { dim { size: -1 } }");
  EXPECT_THAT(partial.message(), HasSubstr("partial shape"));

  const absl::Status negative =
      ParseConstValue("dtype: DT_FLOAT tensor_shape { dim { size: -7 } }");
  EXPECT_THAT(negative.message(), HasSubstr("dimension of size -7"));

  const absl::Status overflow = ParseConstValue(
      "dtype: DT_FLOAT tensor_shape { dim { size: 4611686018427387904 } dim { size: 4 } }");
  EXPECT_EQ(overflow.code(), absl::StatusCode::kInvalidArgument);
}

TEST(GraphDefIoTest, AttrKindsMinitfLacksAreRefusedByName) {
  absl::Status func = ParseTextGraphDef(R"pb(node { name: "call" op: "PartitionedCall"
      attr { key: "f" value { func { name: "my_fn" } } } })pb").status();
  EXPECT_EQ(func.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(func.message(), HasSubstr("Node 'call' (op 'PartitionedCall'): attr 'f'"));
  EXPECT_THAT(func.message(), HasSubstr("my_fn"));

  absl::Status half = ParseTextGraphDef(R"pb(node { name: "h" op: "Cast"
      attr { key: "DstT" value { type: DT_HALF } } })pb").status();
  EXPECT_THAT(half.message(), HasSubstr("attr 'DstT': data type DT_HALF is not supported"));
}

// An empty list has no kind on the wire: it takes the one the op declares.
TEST(GraphDefIoTest, EmptyListsTakeTheRegisteredAttrKind) {
  absl::StatusOr<GraphDef> g = ParseTextGraphDef(R"pb(
      node { name: "a" op: "Const" attr { key: "_class" value { list { s: "loc:@b" } } } }
      node { name: "n" op: "NoOp" attr { key: "_unknown_list" value { list { } } } })pb");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->node[0].attr.at("_class").TypeName(), "list(string)");
  EXPECT_EQ(g->node[1].attr.at("_unknown_list").TypeName(), "list(int)");
}

TEST(GraphDefIoTest, FunctionLibrariesAreRefusedNamingTheFunctions) {
  const std::string text = R"pb(
      node { name: "x" op: "NoOp" }
      library { function { signature { name: "cond_true_5" input_arg { name: "a" type: DT_FLOAT } }
                           node_def { name: "y" op: "Identity" } }
                function { signature { name: "body_9" } } })pb";
  absl::Status from_text = ParseTextGraphDef(text).status();
  EXPECT_EQ(from_text.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(from_text.message(), HasSubstr("2 functions: cond_true_5, body_9"));
}

TEST(GraphDefIoTest, MalformedFilesAreErrorsNamingTheFile) {
  const std::string dir = test::MakeTempDir("graph_def_io_bad");
  GraphDef g;
  absl::Status missing = ReadBinaryProto(dir + "/none.pb", &g);
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.message(), HasSubstr("none.pb"));

  test::WriteFileAtomically(dir + "/text.pbtxt", "node { name: \"a\" op: \"NoOp\" \n  bogus: 3 }");
  absl::Status bad_text = ReadTextProto(dir + "/text.pbtxt", &g);
  EXPECT_EQ(bad_text.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad_text.message(), HasSubstr("text.pbtxt"));
  EXPECT_THAT(bad_text.message(), HasSubstr("line 2"));
  EXPECT_THAT(bad_text.message(), HasSubstr("bogus"));

  // A text file read as binary, and a truncated binary file.
  test::WriteFileAtomically(dir + "/text.pb", "node { name: \"a\" op: \"NoOp\" }");
  EXPECT_EQ(ReadBinaryProto(dir + "/text.pb", &g).code(), absl::StatusCode::kInvalidArgument);
  const std::string bytes = SerializeBinaryGraphDef(EveryKindGraph());
  test::WriteFileAtomically(dir + "/cut.pb", bytes.substr(0, bytes.size() / 2));
  absl::Status cut = ReadBinaryProto(dir + "/cut.pb", &g);
  EXPECT_EQ(cut.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(cut.message(), HasSubstr("cut.pb"));
}

// Text whose messages nest `depth` levels below a node's attr value.
std::string NestedAttrText(int depth) {
  std::string open, close;
  for (int i = 0; i < depth; ++i) {
    open += "func { name: \"f\" attr { key: \"a\" value { ";
    close += "} } } ";
  }
  return "node { name: \"n\" op: \"NoOp\" attr { key: \"x\" value { " + open + close +
         "} } }";
}

// A protocol buffer field on the wire: its tag, length and bytes.
std::string Field(int number, const std::string& bytes) {
  std::string out(1, static_cast<char>((number << 3) | 2));
  for (uint64_t n = bytes.size(); ; n >>= 7) {
    out += static_cast<char>((n & 0x7f) | (n >= 0x80 ? 0x80 : 0));
    if (n < 0x80) break;
  }
  return out + bytes;
}

// NestedAttrText(depth) as a binary GraphDef (TensorFlow's field numbers:
// AttrValue.func 10, NameAttrList name 1 and attr 2, a map entry's key 1
// and value 2, NodeDef name 1, op 2 and attr 5, GraphDef node 1).
std::string NestedAttrBytes(int depth) {
  std::string value;  // An empty AttrValue.
  for (int i = 0; i < depth; ++i) {
    const std::string entry = Field(1, "a") + Field(2, value);
    value = Field(10, Field(1, "f") + Field(2, entry));
  }
  const std::string node =
      Field(1, "n") + Field(2, "NoOp") + Field(5, Field(1, "x") + Field(2, value));
  return Field(1, node);
}

TEST(GraphDefIoTest, DeepNestingIsRefusedNamingTheLimitNotAStackOverflow) {
  // TensorFlow's graphs nest a few levels; these nest thousands, which
  // overflowed the parser's stack.
  absl::StatusOr<GraphDef> deep = ParseTextGraphDef(NestedAttrText(2500), "deep.pbtxt");
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(deep.status().message(), HasSubstr("deep.pbtxt"));
  EXPECT_THAT(deep.status().message(), HasSubstr("recursion limit of 100"));

  std::string bogus;
  for (int i = 0; i < 100000; ++i) bogus += "bogus { ";
  absl::StatusOr<GraphDef> unknown = ParseTextGraphDef(bogus, "bogus.pbtxt");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);

  // Three levels parse, and are refused for what they hold.
  EXPECT_THAT(ParseTextGraphDef(NestedAttrText(3), "ok.pbtxt").status().message(),
              HasSubstr("a function attr (f) is not supported"));

  // The same in binary, 200 levels deep, written by hand on the wire.
  absl::StatusOr<GraphDef> binary = ParseBinaryGraphDef(NestedAttrBytes(200), "deep.pb");
  ASSERT_FALSE(binary.ok());
  EXPECT_EQ(binary.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(binary.status().message(), HasSubstr("deep.pb"));
  EXPECT_THAT(binary.status().message(), HasSubstr("more than 100 levels deep"));
  // Three levels parse, and are refused for what they hold.
  EXPECT_THAT(ParseBinaryGraphDef(NestedAttrBytes(3), "ok.pb").status().message(),
              HasSubstr("a function attr (f) is not supported"));
}

TEST(GraphDefIoTest, OnlyRegularFilesAreReadAndNeverBlock) {
  const std::string dir = test::MakeTempDir("graph_def_io_kinds");
  GraphDef g;
  absl::Status directory = ReadBinaryProto(dir, &g);
  EXPECT_EQ(directory.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(directory.message(), HasSubstr("is a directory"));

  absl::Status device = ReadBinaryProto("/dev/zero", &g);
  EXPECT_EQ(device.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(device.message(), HasSubstr("'/dev/zero' is a character device"));

  // A FIFO with no writer: opening it would block for ever.
  const std::string fifo = dir + "/graph.pb";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  absl::Status pipe = ReadBinaryProto(fifo, &g);
  EXPECT_EQ(pipe.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(pipe.message(), HasSubstr("is a FIFO"));
}

TEST(GraphDefIoTest, BinaryErrorsSayWhatTheBytesAre) {
  absl::StatusOr<GraphDef> text = ParseBinaryGraphDef("node { name: \"a\" op: \"NoOp\" }", "t.pb");
  EXPECT_THAT(text.status().message(), HasSubstr("the file is text"));
  const std::string bytes = SerializeBinaryGraphDef(EveryKindGraph());
  absl::StatusOr<GraphDef> cut = ParseBinaryGraphDef(bytes.substr(0, bytes.size() / 2), "c.pb");
  EXPECT_THAT(cut.status().message(), HasSubstr("truncated or corrupt"));
  EXPECT_THAT(cut.status().message(), ::testing::Not(HasSubstr(".pbtxt")));
}

TEST(GraphDefIoTest, EveryMissingOpIsListedInOneError) {
  GraphDef g;
  g.node.push_back(NodeDef{.name = "a", .op = "NotAnOp", .input = {}, .device = "", .attr = {}});
  g.node.push_back(NodeDef{.name = "b", .op = "NoOp", .input = {}, .device = "", .attr = {}});
  g.node.push_back(NodeDef{.name = "c", .op = "AlsoNotAnOp", .input = {}, .device = "", .attr = {}});
  g.node.push_back(NodeDef{.name = "d", .op = "NotAnOp", .input = {}, .device = "", .attr = {}});
  absl::Status s = ConvertGraphDefToGraph(g).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("2 op types minitf does not have: 'AlsoNotAnOp' (node c), "
                                     "'NotAnOp' (nodes a, d)"));
}

// Files TensorFlow wrote (tools/tf_fixtures/): the binary and the text form
// of a graph read to the same GraphDef, and it keeps what TensorFlow put in.
TEST(GraphDefIoTest, ReadsTheFilesTensorFlowWrites) {
  const std::string dir = std::string(MINITF_SOURCE_DIR) + "/tests/fixtures/tf/";
  for (const char* name : {"mlp_frozen", "cond_v1", "resnet_block_momentum"}) {
    absl::StatusOr<GraphDef> binary = ReadGraphDefFile(dir + name + "/graph.pb");
    ASSERT_TRUE(binary.ok()) << binary.status();
    absl::StatusOr<GraphDef> text = ReadGraphDefFile(dir + name + "/graph.pbtxt");
    ASSERT_TRUE(text.ok()) << text.status();
    ExpectSameGraph(*binary, *text);
    EXPECT_GE(binary->versions.producer, 1000) << name;
    // Written again and read back, nothing changes.
    absl::StatusOr<GraphDef> again = ParseBinaryGraphDef(SerializeBinaryGraphDef(*binary));
    ASSERT_TRUE(again.ok()) << again.status();
    ExpectSameGraph(*binary, *again);
  }
  absl::StatusOr<GraphDef> mlp = ReadGraphDefFile(dir + "mlp_frozen/graph.pb");
  ASSERT_TRUE(mlp.ok());
  bool has_matmul = false;
  for (const NodeDef& n : mlp->node) {
    if (n.op != "MatMul") continue;
    has_matmul = true;
    EXPECT_EQ(n.attr.at("T").type(), DT_FLOAT) << n.name;
    EXPECT_FALSE(n.attr.at("transpose_a").b()) << n.name;
  }
  EXPECT_TRUE(has_matmul);
}

}  // namespace
}  // namespace minitf
