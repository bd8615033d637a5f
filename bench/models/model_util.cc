#include "bench/models/model_util.h"

#include "absl/strings/str_cat.h"
#include "ops/cc/optimizers.h"
#include "ops/standard_ops.h"
#include "platform/status_macros.h"

namespace minitf {
namespace {

PartialTensorShape ShapeOf(const std::vector<int>& dims) {
  std::vector<int64_t> d(dims.begin(), dims.end());
  return PartialTensorShape(d);
}

Tensor DimsTensor(const std::vector<int>& dims) {
  std::vector<int32_t> d(dims.begin(), dims.end());
  return Tensor::FromVector<int32_t>(absl::Span<const int32_t>(d),
                                     TensorShape({static_cast<int64_t>(d.size())}));
}

}  // namespace

absl::StatusOr<Tensor> AllocateBatchTensor(const char* caller, absl::string_view what,
                                           DataType dtype, std::vector<int64_t> dims) {
  absl::StatusOr<TensorShape> shape = TensorShape::Build(dims);
  if (!shape.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(caller, ": ", what, ": ", shape.status().message()));
  }
  absl::StatusOr<Tensor> t = Tensor::Allocate(cpu_allocator(), dtype, *shape);
  if (!t.ok()) {
    return absl::Status(t.status().code(), absl::StrCat(caller, ": cannot allocate ", what, ": ",
                                                        t.status().message()));
  }
  return t;
}

absl::Status CheckRange(const char* caller, const char* parameter, int64_t value, int64_t min,
                        int64_t max) {
  if (value >= min && value <= max) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(caller, ": ", parameter, " must be in ", min, "..", max, ", got ", value));
}

Output Parameters::Normal(const char* name, std::vector<int> dims, float scale, int seed) {
  Output var = ops::Variable(root_.WithOpName(name), ShapeOf(dims), DT_FLOAT);
  Output value = ops::Mul(
      init_, ops::RandomStandardNormal(init_, Input(DimsTensor(dims)), DT_FLOAT, {.seed = seed}),
      scale);
  variables_.push_back(var);
  assigns_.push_back(ops::Assign(init_, var, value));
  return var;
}

Output Parameters::Zeros(const char* name, std::vector<int> dims) {
  Output var = ops::Variable(root_.WithOpName(name), ShapeOf(dims), DT_FLOAT);
  variables_.push_back(var);
  assigns_.push_back(ops::Assign(init_, var, ops::Fill(init_, Input(DimsTensor(dims)), 0.0f)));
  return var;
}

Output Parameters::InitOp(const char* name) const {
  return ops::NoOp(root_.WithOpName(name).WithControlDependencies(assigns_));
}

absl::StatusOr<Output> Parameters::TrainOp(const char* name, const Output& loss,
                                           float learning_rate,
                                           std::map<std::string, std::string>* gradients) const {
  ops::GradientDescentOptimizer sgd({.learning_rate = learning_rate});
  std::vector<ops::GradAndVar> grads_and_vars;
  MINITF_RETURN_IF_ERROR(sgd.ComputeGradients(root_, loss, variables_, &grads_and_vars));
  Output apply;
  MINITF_RETURN_IF_ERROR(sgd.ApplyGradients(root_, grads_and_vars, &apply));
  for (const auto& [grad, var] : grads_and_vars) (*gradients)[var.node_name()] = grad.name();
  return ops::NoOp(root_.WithOpName(name).WithControlDependencies({apply}));
}

double Accuracy(const Tensor& logits, const Tensor& labels) {
  auto l = logits.matrix<float>();
  auto y = labels.vec<int32_t>();
  const int64_t rows = l.dimension(0);
  if (rows == 0) return 0.0;
  int64_t correct = 0;
  for (int64_t i = 0; i < rows; ++i) {
    int64_t best = 0;
    for (int64_t k = 1; k < l.dimension(1); ++k) {
      if (l(i, k) > l(i, best)) best = k;
    }
    correct += best == y(i);
  }
  return static_cast<double>(correct) / static_cast<double>(rows);
}

absl::StatusOr<TrainingModel> FinishTrainingModel(
    const Scope& root, const Output& init, const Output& train, const Output& loss,
    const Output& logits, const Output& input, const Output& labels,
    std::map<std::string, std::string> gradients) {
  TrainingModel model;
  if (absl::Status s = root.ToGraphDef(&model.graph); !s.ok()) return s;
  model.init = init.node_name();
  model.train = train.node_name();
  model.loss = loss.name();
  model.logits = logits.name();
  model.input = input.name();
  model.labels = labels.name();
  model.gradients = std::move(gradients);
  return model;
}

}  // namespace minitf
