// A program built against an installed minitf: a two-node graph (a constant
// and its square, MatMul) run in a session, the product checked. Exits
// non-zero on an error or a wrong answer.
#include <cstdio>
#include <memory>
#include <vector>

#include "ops/standard_ops.h"
#include "platform/status_macros.h"
#include "session/session.h"

// minitf's headers expect it; minitf::minitf carries it to its users.
#ifndef EIGEN_USE_THREADS
#error "EIGEN_USE_THREADS did not reach a user of minitf::minitf"
#endif

namespace {

using minitf::Tensor;

// a x a for a = [[1, 2], [3, 4]], on whichever device the placer picks.
absl::StatusOr<Tensor> SquareOfConstant() {
  using namespace minitf;
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root.WithOpName("a"),
                      Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2})));
  auto product = ops::MatMul(root.WithOpName("product"), a, a);
  GraphDef graph;
  MINITF_RETURN_IF_ERROR(root.ToGraphDef(&graph));
  MINITF_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, NewSession(SessionOptions()));
  MINITF_RETURN_IF_ERROR(session->Create(graph));
  std::vector<Tensor> outputs;
  MINITF_RETURN_IF_ERROR(session->Run({}, {"product"}, {}, &outputs));
  if (outputs.size() != 1) return absl::InternalError("Run returned no tensor for 'product'");
  return outputs[0];
}

}  // namespace

int main() {
  absl::StatusOr<Tensor> product = SquareOfConstant();
  if (!product.ok()) {
    std::fprintf(stderr, "minitf_consumer: %s\n", product.status().ToString().c_str());
    return 1;
  }
  const float expected[] = {7, 10, 15, 22};
  if (product->shape() != minitf::TensorShape({2, 2})) {
    std::fprintf(stderr, "minitf_consumer: product has shape %s, want [2,2]\n",
                 product->shape().DebugString().c_str());
    return 1;
  }
  const float* got = product->flat<float>().data();
  for (int i = 0; i < 4; ++i) {
    if (got[i] != expected[i]) {
      std::fprintf(stderr, "minitf_consumer: product[%d] = %g, want %g\n", i, got[i],
                   expected[i]);
      return 1;
    }
  }
  std::printf("minitf_consumer: [[1, 2], [3, 4]]^2 = [[7, 10], [15, 22]]\n");
  return 0;
}
