// Op definitions: Switch and Merge, the two primitives of a `cond`, and
// Enter, Exit, NextIteration and LoopCond, which with them make a while loop.
//
// Switch forwards `data` to output_true or output_false depending on `pred`;
// the other output is dead, and deadness propagates to everything downstream
// of it until a Merge, which forwards whichever input is alive.
//
// A while loop runs in a frame of its own (named by Enter's `frame_name`):
// Enter brings a tensor into the frame, Merge picks it (iteration 0) or the
// previous iteration's NextIteration, LoopCond marks the loop predicate a
// Switch tests, NextIteration carries a value to the next iteration, and
// Exit hands the last iteration's value back to the enclosing frame.
#include "platform/status_macros.h"
#include "runtime/op_registry.h"
#include "runtime/shape_inference.h"

namespace minitf {

REGISTER_OP("Switch")
    .Input("data: T")
    .Input("pred: bool")
    .Output("output_false: T")
    .Output("output_true: T")
    .Attr("T: type")
    .SetShapeFn([](InferenceContext* c) {
      PartialTensorShape pred;
      MINITF_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &pred));
      c->set_output(0, c->input(0));
      c->set_output(1, c->input(0));
      return absl::OkStatus();
    });

REGISTER_OP("Merge")
    .Input("inputs: N * T")
    .Output("output: T")
    .Output("value_index: int32")
    .Attr("T: type")
    .Attr("N: int >= 1")
    .SetShapeFn([](InferenceContext* c) {
      // The output has the shape all inputs agree on; unknown where they
      // differ. An input of unknown rank (a loop's back edge, not yet
      // inferred) makes the output unknown: a loop variable may change shape.
      PartialTensorShape out = c->input(0);
      for (int i = 1; i < c->num_inputs(); ++i) {
        if (c->input(i).unknown_rank()) {
          out = PartialTensorShape();
          break;
        }
        auto merged = out.MergeWith(c->input(i));
        out = merged.ok() ? *merged
                          : (out.dims() == c->input(i).dims() && out.dims() >= 0
                                 ? PartialTensorShape::UnknownOfRank(out.dims())
                                 : PartialTensorShape());
      }
      c->set_output(0, out);
      c->set_output(1, TensorShape());
      return absl::OkStatus();
    });

namespace {

absl::Status ForwardShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

}  // namespace

REGISTER_OP("Enter")
    .Input("data: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("frame_name: string")
    .Attr("is_constant: bool = false")
    .Attr("parallel_iterations: int = 10")
    .SetShapeFn(ForwardShape);

REGISTER_OP("Exit").Input("data: T").Output("output: T").Attr("T: type").SetShapeFn(ForwardShape);

REGISTER_OP("NextIteration")
    .Input("data: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(ForwardShape);

REGISTER_OP("LoopCond")
    .Input("input: bool")
    .Output("output: bool")
    .SetShapeFn([](InferenceContext* c) {
      PartialTensorShape pred;
      MINITF_RETURN_IF_ERROR(c->WithRank(c->input(0), 0, &pred));
      c->set_output(0, pred);
      return absl::OkStatus();
    });

}  // namespace minitf
