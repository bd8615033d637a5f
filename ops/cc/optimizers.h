// Optimizers: Minimize adds the gradients of a loss (AddSymbolicGradients)
// and the ops that apply them to the variables, as TensorFlow 1.x's
// tf.compat.v1.train optimizers do.
//
//   auto loss = ...;   // a scalar built from variables made with NewVariable
//   Output train;
//   MINITF_RETURN_IF_ERROR(ops::AdamOptimizer({.learning_rate = 1e-3f})
//                              .Minimize(root, loss, /*vars=*/{}, &train));
//   auto init = ops::GlobalVariablesInitializer(root);  // the slots too
//
// The variables are ref variables (NewVariable or Variable) or resource
// handles (VarHandleOp); with no list, the graph's trainable variables.
// Every update waits for every gradient (TensorFlow's GATE_GRAPH; its
// default, GATE_OP, only orders each op's own gradients): a ref variable is
// read in place, so an early update would change a weight another
// gradient still reads.
#ifndef MINITF_OPS_CC_OPTIMIZERS_H_
#define MINITF_OPS_CC_OPTIMIZERS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "ops/cc/scope.h"

namespace minitf::ops {

// A variable and its gradient.
using GradAndVar = std::pair<Output, Output>;

class Optimizer {
 public:
  virtual ~Optimizer() = default;

  // The gradients of `loss` with respect to `vars` (the trainable variables
  // when empty); InvalidArgument naming a variable the loss does not depend on.
  absl::Status ComputeGradients(const Scope& scope, const Output& loss,
                                const std::vector<Output>& vars,
                                std::vector<GradAndVar>* grads_and_vars) const;
  // The op (`train_op`, "<name>/apply") that applies each gradient to its
  // variable.
  absl::Status ApplyGradients(const Scope& scope, const std::vector<GradAndVar>& grads_and_vars,
                              Output* train_op);
  // ComputeGradients, then ApplyGradients.
  absl::Status Minimize(const Scope& scope, const Output& loss, const std::vector<Output>& vars,
                        Output* train_op);

  // "GradientDescent", "Momentum", "Adam": names the ops and slots.
  virtual std::string name() const = 0;

 protected:
  // The op updating `var` with `grad`, built in `scope` (which orders it
  // after every gradient); its slots are made in `slots`, the scope
  // Minimize was given.
  virtual Output ApplyDense(const Scope& scope, const Scope& slots, const Output& var,
                            const Output& grad) = 0;
  // Ops run once all the updates are done (Adam's beta powers); `updates`
  // are the update ops. Returns what the train op must also wait for.
  virtual std::vector<Output> Finish(const Scope& scope,
                                     const std::vector<Output>& updates) {
    return updates;
  }
  // Set up before the updates (Adam's beta powers).
  virtual void Prepare(const Scope& /*scope*/) {}

  // A zero-filled variable of var's shape and type, "<var>/<slot>", not
  // trainable, of var's kind (ref or resource).
  static Output ZerosSlot(const Scope& scope, const Output& var, const std::string& slot);
};

struct GradientDescentOptions {
  float learning_rate = 0.01f;
  bool use_locking = false;
};
// var -= learning_rate * grad.
class GradientDescentOptimizer : public Optimizer {
 public:
  explicit GradientDescentOptimizer(const GradientDescentOptions& options) : options_(options) {}
  std::string name() const override { return "GradientDescent"; }

 protected:
  Output ApplyDense(const Scope& scope, const Scope& slots, const Output& var,
                    const Output& grad) override;

 private:
  GradientDescentOptions options_;
};

struct MomentumOptions {
  float learning_rate = 0.01f;
  float momentum = 0.9f;
  bool use_nesterov = false;
  bool use_locking = false;
};
// accum = momentum * accum + grad; var -= learning_rate * accum.
class MomentumOptimizer : public Optimizer {
 public:
  explicit MomentumOptimizer(const MomentumOptions& options) : options_(options) {}
  std::string name() const override { return "Momentum"; }

 protected:
  Output ApplyDense(const Scope& scope, const Scope& slots, const Output& var,
                    const Output& grad) override;

 private:
  MomentumOptions options_;
};

struct AdamOptions {
  float learning_rate = 0.001f;
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float epsilon = 1e-8f;
  bool use_locking = false;
};
// Adam (Kingma & Ba), with TensorFlow 1.x's slots m ("<var>/Adam") and v
// ("<var>/Adam_1") and its beta1_power / beta2_power variables.
class AdamOptimizer : public Optimizer {
 public:
  explicit AdamOptimizer(const AdamOptions& options) : options_(options) {}
  std::string name() const override { return "Adam"; }

 protected:
  void Prepare(const Scope& scope) override;
  Output ApplyDense(const Scope& scope, const Scope& slots, const Output& var,
                    const Output& grad) override;
  std::vector<Output> Finish(const Scope& scope, const std::vector<Output>& updates) override;

 private:
  AdamOptions options_;
  Output beta1_power_;
  Output beta2_power_;
};

}  // namespace minitf::ops

#endif  // MINITF_OPS_CC_OPTIMIZERS_H_
