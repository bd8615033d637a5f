// WhileLoop and Cond: build a while loop and an if/else out of the
// control-flow ops, as TensorFlow's C++ `BuildWhileLoop` (cc/ops/while_loop.h)
// and its v1 `cond` do.
//
//   std::vector<Output> out;
//   MINITF_RETURN_IF_ERROR(ops::WhileLoop(
//       root, {i0, sum0},
//       [](const Scope& s, const std::vector<Output>& v, Output* cond) {
//         *cond = ops::Less(s, v[0], 10);
//         return s.status();
//       },
//       [](const Scope& s, const std::vector<Output>& v, std::vector<Output>* next) {
//         *next = {ops::Add(s, v[0], 1), ops::Add(s, v[1], v[0])};
//         return s.status();
//       },
//       &out));   // out[1] is 0 + 1 + ... + 9
//
// The loop variables enter a frame of their own (Enter), Merge picks the
// initial value or the previous iteration's (NextIteration), LoopCond and
// Switch route each value to the body or to Exit. `cond` and `body` build
// with scopes whose ops depend on the loop (constants they make run in
// every iteration). A tensor from outside the loop must be passed in as a
// loop variable (as in TensorFlow's C++ API); using it directly in the body
// is an error at graph construction ("inputs from different frames").
#ifndef MINITF_OPS_CC_WHILE_LOOP_H_
#define MINITF_OPS_CC_WHILE_LOOP_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "ops/cc/scope.h"

namespace minitf::ops {

using CondGraphBuilderFn =
    std::function<absl::Status(const Scope&, const std::vector<Output>& inputs, Output* cond)>;
using BodyGraphBuilderFn = std::function<absl::Status(
    const Scope&, const std::vector<Output>& inputs, std::vector<Output>* outputs)>;

struct WhileLoopOptions {
  // The frame's name; empty: the scope's unique name for "while".
  std::string frame_name;
  // How many iterations may run at once (TensorFlow's default is 10).
  int64_t parallel_iterations = 10;
};

// Builds `while (cond(v)) v = body(v);` over the loop variables `inputs`
// and sets `outputs` to their final values. Errors (also recorded in the
// scope) name the loop when `body` returns the wrong number or types.
absl::Status WhileLoop(const Scope& scope, const std::vector<Output>& inputs,
                       const CondGraphBuilderFn& cond, const BodyGraphBuilderFn& body,
                       std::vector<Output>* outputs, const WhileLoopOptions& options = {});

using BranchGraphBuilderFn = std::function<absl::Status(
    const Scope&, const std::vector<Output>& inputs, std::vector<Output>* outputs)>;

// Builds `outputs = pred ? then_fn(inputs) : else_fn(inputs)`: only the
// taken branch runs (the other's nodes are dead). Both branches must return
// as many outputs, of the same types.
absl::Status Cond(const Scope& scope, const Output& pred, const std::vector<Output>& inputs,
                  const BranchGraphBuilderFn& then_fn, const BranchGraphBuilderFn& else_fn,
                  std::vector<Output>* outputs);

}  // namespace minitf::ops

#endif  // MINITF_OPS_CC_WHILE_LOOP_H_
