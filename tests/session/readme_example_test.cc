// The C++ example of README.md, compiled and checked.
#include "gtest/gtest.h"
#include "ops/standard_ops.h"
#include "platform/status_macros.h"
#include "session/session.h"

namespace minitf {
namespace {

absl::Status ReadmeExample(std::vector<Tensor>* result) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, {.shape = {-1, 2}});
  auto w = ops::Const(root, Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2})));
  auto y = ops::Relu(root.WithOpName("y"), ops::MatMul(root, x, w, {.transpose_b = true}));
  GraphDef graph;
  MINITF_RETURN_IF_ERROR(root.ToGraphDef(&graph));
  MINITF_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, NewSession(SessionOptions()));
  MINITF_RETURN_IF_ERROR(session->Create(graph));
  std::vector<Tensor> out;
  MINITF_RETURN_IF_ERROR(session->Run({{"x", Tensor::FromVector<float>({1, 1}, TensorShape({1, 2}))}}, {"y"}, {}, &out));
  *result = out;
  return absl::OkStatus();
}

TEST(ReadmeExampleTest, ComputesReluOfXTimesWTransposed) {
  std::vector<Tensor> out;
  ASSERT_TRUE(ReadmeExample(&out).ok());
  ASSERT_EQ(out.size(), 1u);
  // relu([1, 1] x [[1, 3], [2, 4]]) = [3, 7].
  ASSERT_EQ(out[0].shape(), TensorShape({1, 2}));
  EXPECT_EQ(out[0].matrix<float>()(0, 0), 3.0f);
  EXPECT_EQ(out[0].matrix<float>()(0, 1), 7.0f);
}

}  // namespace
}  // namespace minitf
