// TensorFlow's OptimizerOptions, RewriterConfig and GraphOptions (the
// graph_options field of a ConfigProto): which passes a session runs on the
// graphs of its Run signatures.
//
//   SessionOptions options;
//   options.config.graph_options.optimizer_options.opt_level = OptimizerOptions::L0;
//   options.config.graph_options.rewrite_options.disable_meta_optimizer = true;
//
// As in TensorFlow, two sets of switches turn passes on: optimizer_options
// for GraphOptimizer's own (constant folding, Identity removal, common
// subexpression elimination: L1, the default, turns every one on; at L0 each
// runs only when its own field asks for it), and rewrite_options for those
// of Grappler (each toggle on by DEFAULT; disable_meta_optimizer turns them
// all off). A pass both know (constant folding, the dependency optimizer's
// Identity removal, CSE) runs when either set asks for it, so a graph runs
// as written only with both off (GraphOptions::Unoptimized()).
#ifndef MINITF_OPTIMIZER_OPTIMIZER_OPTIONS_H_
#define MINITF_OPTIMIZER_OPTIMIZER_OPTIONS_H_

#include <cstdint>

namespace minitf {

struct OptimizerOptions {
  enum Level { L1 = 0, L0 = -1 };
  Level opt_level = L1;
  // At L0: merge equal nodes (OptimizeCSE).
  bool do_common_subexpression_elimination = false;
  // At L0: compute what is known before the graph runs (ConstantFold).
  bool do_constant_folding = false;
  // The largest Const constant folding makes; 0 for TensorFlow's 10 MiB.
  int64_t max_folded_constant_in_bytes = 0;

  bool CommonSubexpressionElimination() const {
    return opt_level >= L1 || do_common_subexpression_elimination;
  }
  bool ConstantFolding() const { return opt_level >= L1 || do_constant_folding; }
  // TensorFlow's GraphOptimizer removes Identity nodes at L1 only.
  bool RemoveIdentities() const { return opt_level >= L1; }
};

// TensorFlow's RewriterConfig: a toggle per Grappler pass.
struct RewriterConfig {
  enum Toggle { DEFAULT = 0, ON = 1, OFF = 2 };
  Toggle constant_folding = DEFAULT;
  // Identity and NoOp nodes that only pass something on (dependency_optimizer.h).
  Toggle dependency_optimization = DEFAULT;
  Toggle common_subgraph_elimination = DEFAULT;
  // Nodes that pass a value on unchanged (arithmetic_optimizer.h).
  Toggle arithmetic_optimization = DEFAULT;
  // NCHW convolution chains on a GPU in NHWC, the layout its kernels compute
  // in (layout_optimizer.h).
  Toggle layout_optimizer = DEFAULT;
  // MatMul + BiasAdd (+ activation, or on the CPU + a residual Add) into
  // _FusedMatMul, FusedBatchNormV3 + Relu into _FusedBatchNormEx
  // (remapper.h), on the CPU BatchMatMulV2 + Mul + Add into
  // _MklFusedBatchMatMulV2 (batch_matmul_fusion.h).
  Toggle remapping = DEFAULT;
  bool disable_meta_optimizer = false;

  bool On(Toggle toggle) const { return !disable_meta_optimizer && toggle != OFF; }
};

struct GraphOptions {
  OptimizerOptions optimizer_options;
  RewriterConfig rewrite_options;

  // Every pass off: the graph runs node for node as written.
  static GraphOptions Unoptimized() {
    GraphOptions options;
    options.optimizer_options.opt_level = OptimizerOptions::L0;
    options.rewrite_options.disable_meta_optimizer = true;
    return options;
  }
};

}  // namespace minitf

#endif  // MINITF_OPTIMIZER_OPTIMIZER_OPTIONS_H_
