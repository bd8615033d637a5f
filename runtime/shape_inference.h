// InferenceContext: what a shape function sees of one node (its input shapes,
// constant input values where known, its attrs) and where it writes the
// node's output shapes. shape_fns:: holds the functions most ops share.
//
//   REGISTER_OP("Square")...SetShapeFn(shape_fns::UnchangedShape);
//   .SetShapeFn([](InferenceContext* c) {
//     PartialTensorShape a;
//     MINITF_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &a));
//     c->set_output(0, PartialTensorShape({a.dim_size(0), -1}));
//     return absl::OkStatus();
//   });
#ifndef MINITF_RUNTIME_SHAPE_INFERENCE_H_
#define MINITF_RUNTIME_SHAPE_INFERENCE_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "runtime/graph_def.h"
#include "runtime/node_def_util.h"
#include "runtime/op_def.h"
#include "runtime/tensor.h"
#include "runtime/tensor_shape.h"

namespace minitf {

class InferenceContext {
 public:
  // `input_tensors[i]` is the value of input i when it is a constant, else
  // nullptr. Pointers are not owned and must outlive the context.
  InferenceContext(const NodeDef* def, const OpDef* op_def,
                   std::vector<PartialTensorShape> input_shapes,
                   std::vector<const Tensor*> input_tensors, int num_outputs);

  const NodeDef& node_def() const { return *def_; }
  const OpDef& op_def() const { return *op_def_; }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  const PartialTensorShape& input(int i) const { return inputs_[i]; }
  // The constant value of input i, or nullptr when it is not known.
  const Tensor* input_tensor(int i) const { return input_tensors_[i]; }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  void set_output(int i, PartialTensorShape shape) { outputs_[i] = std::move(shape); }
  const PartialTensorShape& output(int i) const { return outputs_[i]; }
  const std::vector<PartialTensorShape>& outputs() const { return outputs_; }

  template <typename T>
  absl::Status GetAttr(absl::string_view name, T* value) const {
    return GetNodeAttr(*def_, name, value);
  }

  // `shape` with a rank check; an error names the node and both ranks.
  absl::Status WithRank(const PartialTensorShape& shape, int rank,
                        PartialTensorShape* out) const;
  absl::Status WithRankAtLeast(const PartialTensorShape& shape, int rank,
                               PartialTensorShape* out) const;
  absl::Status Merge(const PartialTensorShape& a, const PartialTensorShape& b,
                     PartialTensorShape* out) const;
  // Reads a 1-D int32/int64 input as a shape (Reshape's `shape`, Fill's
  // `dims`); unknown values give a shape of the right rank when the input's
  // length is known, else an unknown shape. -1 entries stay unknown.
  absl::Status MakeShapeFromShapeTensor(int input_index, PartialTensorShape* out) const;

  // Wraps `message` as InvalidArgument naming this node.
  absl::Status Error(absl::string_view message) const;

 private:
  const NodeDef* const def_;      // Not owned.
  const OpDef* const op_def_;     // Not owned.
  std::vector<PartialTensorShape> inputs_;
  std::vector<const Tensor*> input_tensors_;
  std::vector<PartialTensorShape> outputs_;
};

namespace shape_fns {

// Every output: unknown shape.
absl::Status UnknownShape(InferenceContext* c);
// Output 0 = input 0.
absl::Status UnchangedShape(InferenceContext* c);
// Output 0 = scalar.
absl::Status ScalarShape(InferenceContext* c);
// Output 0 = NumPy broadcast of inputs 0 and 1.
absl::Status BroadcastBinaryOpShape(InferenceContext* c);
// NumPy broadcasting of two partial shapes; an error names both.
absl::Status BroadcastShapes(const PartialTensorShape& a, const PartialTensorShape& b,
                             PartialTensorShape* out);

}  // namespace shape_fns

}  // namespace minitf

#endif  // MINITF_RUNTIME_SHAPE_INFERENCE_H_
