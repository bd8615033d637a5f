// Op definitions: _Arg and _Retval, through which a step's feeds enter and its
// fetches leave (DirectSession rewrites feeds and fetches into them).
#include "runtime/op_registry.h"
#include "runtime/shape_inference.h"

namespace minitf {

REGISTER_OP("_Arg")
    .Output("output: T")
    .Attr("T: type")
    .Attr("index: int >= 0")
    .SetIsStateful()
    .SetShapeFn(shape_fns::UnknownShape);

REGISTER_OP("_Retval")
    .Input("input: T")
    .Attr("T: type")
    .Attr("index: int >= 0")
    .SetIsStateful()
    .SetShapeFn(shape_fns::UnknownShape);

}  // namespace minitf
