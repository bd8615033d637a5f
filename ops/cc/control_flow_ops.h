// Graph-builder functions for Switch and Merge, and Cond, which builds an
// if/else out of them.
//
//   auto sw = ops::Switch(root, x, pred);
//   auto merged = ops::Merge(root, {ops::Neg(root, sw.output_true),
//                                   ops::Identity(root, sw.output_false)});
#ifndef MINITF_OPS_CC_CONTROL_FLOW_OPS_H_
#define MINITF_OPS_CC_CONTROL_FLOW_OPS_H_

#include <vector>

#include "ops/cc/scope.h"

namespace minitf::ops {

struct SwitchOutputs {
  Output output_false;
  Output output_true;
};
SwitchOutputs Switch(const Scope& scope, Input data, Input pred);

struct MergeOutputs {
  Output output;
  Output value_index;
};
MergeOutputs Merge(const Scope& scope, const std::vector<Output>& inputs);

}  // namespace minitf::ops

#endif  // MINITF_OPS_CC_CONTROL_FLOW_OPS_H_
