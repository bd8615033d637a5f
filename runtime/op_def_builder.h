// OpDefBuilder: parses the REGISTER_OP mini-language into an OpDef.
//
//   OpDefBuilder("MatMul")
//       .Input("a: T").Input("b: T").Output("product: T")
//       .Attr("transpose_a: bool = false").Attr("T: {float, double}")
//       .SetShapeFn(shape_fns::MatMulShape);
//
// Errors in the specs are collected and reported by Finalize, naming the op
// and the spec at fault.
#ifndef MINITF_RUNTIME_OP_DEF_BUILDER_H_
#define MINITF_RUNTIME_OP_DEF_BUILDER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/op_def.h"

namespace minitf {

class OpDefBuilder {
 public:
  explicit OpDefBuilder(std::string op_name);

  OpDefBuilder& Input(std::string spec);
  OpDefBuilder& Output(std::string spec);
  OpDefBuilder& Attr(std::string spec);
  OpDefBuilder& SetIsStateful();
  OpDefBuilder& SetShapeFn(ShapeInferenceFn fn);

  // Parses every spec and checks that each type/number attr an arg uses is
  // declared with the right kind.
  absl::StatusOr<OpDef> Finalize() const;

  const std::string& op_name() const { return op_def_.name; }

 private:
  OpDef op_def_;
  std::vector<std::string> inputs_;
  std::vector<std::string> outputs_;
  std::vector<std::string> attrs_;
};

}  // namespace minitf

#endif  // MINITF_RUNTIME_OP_DEF_BUILDER_H_
