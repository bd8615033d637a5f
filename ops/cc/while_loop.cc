#include "ops/cc/while_loop.h"

#include "absl/strings/str_cat.h"
#include "ops/cc/array_ops.h"
#include "ops/cc/control_flow_ops.h"
#include "platform/status_macros.h"

namespace minitf::ops {

namespace {

// Records `s` in the scope and returns it.
absl::Status Fail(const Scope& scope, absl::Status s) {
  scope.UpdateStatus(s);
  return s;
}

// Checks that a builder's `outputs` match `want` in number and type.
absl::Status CheckOutputs(const std::string& what, const std::vector<Output>& want,
                          const std::vector<Output>& outputs) {
  if (outputs.size() != want.size()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " returned ", outputs.size(),
                                                   " outputs, expected ", want.size()));
  }
  for (size_t i = 0; i < want.size(); ++i) {
    if (!outputs[i].valid()) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": output ", i, " is invalid"));
    }
    if (RemoveRefType(outputs[i].type()) != RemoveRefType(want[i].type())) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": output ", i, " has type ", DataTypeString(outputs[i].type()), ", expected ",
          DataTypeString(want[i].type())));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status WhileLoop(const Scope& scope, const std::vector<Output>& inputs,
                       const CondGraphBuilderFn& cond, const BodyGraphBuilderFn& body,
                       std::vector<Output>* outputs, const WhileLoopOptions& options) {
  MINITF_RETURN_IF_ERROR(scope.status());
  if (inputs.empty()) {
    return Fail(scope, absl::InvalidArgumentError("WhileLoop needs at least one loop variable"));
  }
  std::string loop_name;
  // The Enters run in the enclosing frame, after the caller's control
  // dependencies; every other node of the loop runs in the loop's frame,
  // where those dependencies cannot reach.
  const Scope outer = scope.NewUniqueSubScope("while", &loop_name);
  const Scope loop = outer.WithNoControlDependencies();
  const std::string frame_name = options.frame_name.empty() ? loop_name : options.frame_name;
  std::vector<Output> merges;
  std::vector<std::string> merge_names;
  for (const Output& input : inputs) {
    Output enter = OpBuilder(outer, "Enter")
                       .Input(input)
                       .Attr("frame_name", frame_name)
                       .Attr("parallel_iterations", options.parallel_iterations)
                       .Finalize1();
    // Its second input becomes the NextIteration once the body exists.
    MergeOutputs merge = Merge(loop, {enter, enter});
    merges.push_back(merge.output);
    merge_names.push_back(merge.output.node_name());
  }
  MINITF_RETURN_IF_ERROR(loop.status());

  // Ops of cond and body that depend on no loop variable still run in the
  // loop, once per iteration: their scopes depend on the loop's first value.
  Output cond_out;
  MINITF_RETURN_IF_ERROR(
      cond(loop.NewSubScope("cond").WithControlDependencies({merges[0]}), merges, &cond_out));
  MINITF_RETURN_IF_ERROR(loop.status());
  if (!cond_out.valid() || RemoveRefType(cond_out.type()) != DT_BOOL) {
    return Fail(scope, absl::InvalidArgumentError(absl::StrCat(
                           "WhileLoop '", frame_name, "': cond must return a bool tensor, got ",
                           cond_out.valid() ? DataTypeString(cond_out.type()) : "nothing")));
  }
  Output loop_cond = OpBuilder(loop, "LoopCond").Input(cond_out).Finalize1();
  std::vector<Output> body_inputs, exits;
  for (const Output& merge : merges) {
    SwitchOutputs sw = Switch(loop, merge, loop_cond);
    exits.push_back(OpBuilder(loop, "Exit").Input(sw.output_false).Finalize1());
    body_inputs.push_back(Identity(loop, sw.output_true));
  }
  MINITF_RETURN_IF_ERROR(loop.status());

  std::vector<Output> body_outputs;
  MINITF_RETURN_IF_ERROR(body(loop.NewSubScope("body").WithControlDependencies({body_inputs[0]}),
                              body_inputs, &body_outputs));
  MINITF_RETURN_IF_ERROR(loop.status());
  if (absl::Status s =
          CheckOutputs(absl::StrCat("WhileLoop '", frame_name, "': body"), inputs, body_outputs);
      !s.ok()) {
    return Fail(scope, s);
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    Output next = OpBuilder(loop, "NextIteration").Input(body_outputs[i]).Finalize1();
    MINITF_RETURN_IF_ERROR(loop.status());
    if (absl::Status s = scope.UpdateInput(merge_names[i], 1, next); !s.ok()) {
      return Fail(scope, s);
    }
  }
  *outputs = std::move(exits);
  return absl::OkStatus();
}

absl::Status Cond(const Scope& scope, const Output& pred, const std::vector<Output>& inputs,
                  const BranchGraphBuilderFn& then_fn, const BranchGraphBuilderFn& else_fn,
                  std::vector<Output>* outputs) {
  MINITF_RETURN_IF_ERROR(scope.status());
  std::string cond_name;
  const Scope cond = scope.NewUniqueSubScope("cond", &cond_name);
  // Pivots: live only on their side, so that each branch's ops (constants
  // too) run only when it is taken.
  SwitchOutputs pivot_switch = Switch(cond, pred, pred);
  Output pivot_true = Identity(cond.WithOpName("switch_t"), pivot_switch.output_true);
  Output pivot_false = Identity(cond.WithOpName("switch_f"), pivot_switch.output_false);
  std::vector<Output> then_inputs, else_inputs;
  for (const Output& input : inputs) {
    SwitchOutputs sw = Switch(cond, input, pred);
    then_inputs.push_back(sw.output_true);
    else_inputs.push_back(sw.output_false);
  }
  MINITF_RETURN_IF_ERROR(cond.status());
  std::vector<Output> then_outputs, else_outputs;
  MINITF_RETURN_IF_ERROR(then_fn(cond.NewSubScope("then").WithControlDependencies({pivot_true}),
                                 then_inputs, &then_outputs));
  MINITF_RETURN_IF_ERROR(else_fn(cond.NewSubScope("else").WithControlDependencies({pivot_false}),
                                 else_inputs, &else_outputs));
  MINITF_RETURN_IF_ERROR(cond.status());
  if (absl::Status s = CheckOutputs("Cond: else branch", then_outputs, else_outputs); !s.ok()) {
    return Fail(scope, s);
  }
  outputs->clear();
  for (size_t i = 0; i < then_outputs.size(); ++i) {
    outputs->push_back(Merge(cond, {then_outputs[i], else_outputs[i]}).output);
  }
  return cond.status();
}

}  // namespace minitf::ops
