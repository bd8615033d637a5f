// What the training models share: the names a training loop needs
// (TrainingModel), a batch to feed (Batch), trainable variables with their
// initialisers and gradient-descent updates (Parameters), and Accuracy.
#ifndef MINITF_BENCH_MODELS_MODEL_UTIL_H_
#define MINITF_BENCH_MODELS_MODEL_UTIL_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "ops/cc/scope.h"
#include "runtime/graph_def.h"
#include "runtime/tensor.h"

namespace minitf {

// The names a training loop needs.
struct TrainingModel {
  GraphDef graph;
  std::string init;    // target: initialises the variables
  std::string train;   // target: one gradient-descent step
  std::string loss;    // tensor: mean loss of the batch
  std::string logits;  // tensor: [batch, classes]
  std::string input;   // placeholder of the examples
  std::string labels;  // placeholder of the int32 labels
  // Each trainable variable's gradient tensor (AddSymbolicGradients').
  std::map<std::string, std::string> gradients;
};

// A batch of examples and their labels.
struct Batch {
  Tensor x;       // float [batch, ...]: the examples
  Tensor labels;  // int32 [batch]
  std::vector<std::pair<std::string, Tensor>> Feeds(const TrainingModel& model) const {
    return {{model.input, x}, {model.labels, labels}};
  }
};

// A host tensor of `dims` for a synthetic batch, `what` it is (say "feed
// 'images'") named in `caller`'s errors: InvalidArgument for a negative or
// overflowing shape, ResourceExhausted naming the shape when host memory
// cannot hold it.
absl::StatusOr<Tensor> AllocateBatchTensor(const char* caller, absl::string_view what,
                                           DataType dtype, std::vector<int64_t> dims);

// InvalidArgument from `caller` unless `value` is in [min, max], naming the
// parameter and the range.
absl::Status CheckRange(const char* caller, const char* parameter, int64_t value, int64_t min,
                        int64_t max);

// The model's graph and the names of its init and train ops, its loss,
// logits, input and labels tensors and its gradients, once every node is
// built.
absl::StatusOr<TrainingModel> FinishTrainingModel(
    const Scope& root, const Output& init, const Output& train, const Output& loss,
    const Output& logits, const Output& input, const Output& labels,
    std::map<std::string, std::string> gradients);

// The fraction of rows of `logits` whose largest entry is at the label.
double Accuracy(const Tensor& logits, const Tensor& labels);

// The trainable variables of a model, the Assigns that initialise them, and
// the op that trains them.
class Parameters {
 public:
  // `root` creates the variables, `init` their initialisers.
  Parameters(const Scope& root, const Scope& init) : root_(root), init_(init) {}

  // A variable of `dims` drawn from N(0, scale^2), reproducibly for `seed`.
  Output Normal(const char* name, std::vector<int> dims, float scale, int seed);
  // A variable of `dims` filled with zeros.
  Output Zeros(const char* name, std::vector<int> dims);

  // The op that runs every initialiser.
  Output InitOp(const char* name) const;
  // The op that applies plain gradient descent to every variable, with the
  // gradients of `loss` derived by AddSymbolicGradients; `gradients` gets
  // each variable's gradient tensor.
  absl::StatusOr<Output> TrainOp(const char* name, const Output& loss, float learning_rate,
                                 std::map<std::string, std::string>* gradients) const;

 private:
  Scope root_;
  Scope init_;
  std::vector<Output> variables_;
  std::vector<Output> assigns_;
};

}  // namespace minitf

#endif  // MINITF_BENCH_MODELS_MODEL_UTIL_H_
