// OpRegistry: the process-wide table of OpDefs, filled by REGISTER_OP.
//
//   REGISTER_OP("Square").Input("x: T").Output("y: T")
//       .Attr("T: {float, double, int32, int64}")
//       .SetShapeFn(shape_fns::UnchangedShape);
//
//   const OpDef* def = OpRegistry::Global()->LookUp("Square");
//
// Each REGISTER_OP expands to one static object whose constructor calls
// OpRegistry::Global()->Register(builder). A spec that does not parse, or an
// op registered twice, is logged and kept in registration_errors() so a test
// can insist there are none. Thread-safe.
#ifndef MINITF_RUNTIME_OP_REGISTRY_H_
#define MINITF_RUNTIME_OP_REGISTRY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "platform/mutex.h"
#include "runtime/op_def.h"
#include "runtime/op_def_builder.h"

namespace minitf {

class OpRegistry {
 public:
  // Construct-on-first-use; never destroyed.
  static OpRegistry* Global();

  absl::Status Register(const OpDefBuilder& builder);
  // nullptr when no op has that name. The OpDef lives as long as the registry.
  const OpDef* LookUp(absl::string_view op_name) const;
  // NotFound naming the op when it is not registered.
  absl::StatusOr<const OpDef*> LookUpOrError(absl::string_view op_name) const;
  std::vector<std::string> ListOpNames() const;
  std::vector<std::string> registration_errors() const;

 private:
  mutable Mutex mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<const OpDef>> ops_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> errors_ ABSL_GUARDED_BY(mu_);
};

namespace register_op {
// The static object REGISTER_OP creates: registers on construction.
struct OpDefBuilderReceiver {
  OpDefBuilderReceiver(const OpDefBuilder& builder);  // NOLINT: used by the macro.
};
}  // namespace register_op

#define MINITF_REGISTER_OP_CONCAT_(a, b) a##b
#define MINITF_REGISTER_OP_UNIQ_(ctr, name)                                      \
  static ::minitf::register_op::OpDefBuilderReceiver MINITF_REGISTER_OP_CONCAT_( \
      minitf_register_op_, ctr) [[maybe_unused]] = ::minitf::OpDefBuilder(name)
#define MINITF_REGISTER_OP_IMPL_(ctr, name) MINITF_REGISTER_OP_UNIQ_(ctr, name)
#define REGISTER_OP(name) MINITF_REGISTER_OP_IMPL_(__COUNTER__, name)

}  // namespace minitf

#endif  // MINITF_RUNTIME_OP_REGISTRY_H_
