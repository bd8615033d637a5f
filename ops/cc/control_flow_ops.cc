#include "ops/cc/control_flow_ops.h"

namespace minitf::ops {

SwitchOutputs Switch(const Scope& scope, Input data, Input pred) {
  std::vector<Output> out = OpBuilder(scope, "Switch").Input(data).Input(pred).Finalize();
  if (out.size() != 2) return {};
  return {out[0], out[1]};
}

MergeOutputs Merge(const Scope& scope, const std::vector<Output>& inputs) {
  std::vector<Output> out = OpBuilder(scope, "Merge").InputList(inputs).Finalize();
  if (out.size() != 2) return {};
  return {out[0], out[1]};
}

}  // namespace minitf::ops
