// TensorFlow's OptimizerOptions and GraphOptions (the graph_options field of
// a ConfigProto): which of GraphOptimizer's passes a session runs on the
// graphs of its Run signatures.
//
//   SessionOptions options;
//   options.config.graph_options.optimizer_options.opt_level = OptimizerOptions::L0;
//
// As in TensorFlow, L1 (the default) turns every pass on; at L0 each pass
// runs only when its own field asks for it. Passes so far: common
// subexpression elimination (optimizer_cse.h).
#ifndef MINITF_OPTIMIZER_OPTIMIZER_OPTIONS_H_
#define MINITF_OPTIMIZER_OPTIMIZER_OPTIONS_H_

namespace minitf {

struct OptimizerOptions {
  enum Level { L1 = 0, L0 = -1 };
  Level opt_level = L1;
  // At L0: merge equal nodes (OptimizeCSE).
  bool do_common_subexpression_elimination = false;

  bool CommonSubexpressionElimination() const {
    return opt_level >= L1 || do_common_subexpression_elimination;
  }
};

struct GraphOptions {
  OptimizerOptions optimizer_options;
};

}  // namespace minitf

#endif  // MINITF_OPTIMIZER_OPTIMIZER_OPTIONS_H_
