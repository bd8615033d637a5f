// Var: the state behind a Variable node: a tensor and the mutex that guards
// it, kept in a device's ResourceMgr so the value outlives steps and
// executors. The Variable kernel outputs a reference to `tensor` (with `mu`);
// Assign, AssignAdd and ApplyGradientDescent change it through that reference.
//
//   auto var = device->resource_manager()->LookupOrCreate<Var>(
//       container, name, [] { return std::make_unique<Var>(DT_FLOAT); });
//   ctx->set_output_ref(0, &(*var)->mu, &(*var)->tensor);
//
// Thread safety: which buffer `tensor` holds, and its shape, change only
// under `mu`. Updates with use_locking=false write the elements without `mu`,
// as TensorFlow's do.
#ifndef MINITF_OPS_KERNELS_VAR_H_
#define MINITF_OPS_KERNELS_VAR_H_

#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "platform/mutex.h"
#include "runtime/resource_mgr.h"
#include "runtime/tensor.h"
#include "runtime/types.h"

namespace minitf {

class Var : public ResourceBase {
 public:
  explicit Var(DataType dtype) : dtype(dtype) {}

  // False until the first Assign gives the tensor a type and a buffer.
  bool initialized() const ABSL_SHARED_LOCKS_REQUIRED(mu) { return tensor.IsInitialized(); }

  std::string DebugString() const override {
    MutexLock lock(&mu);
    if (!tensor.IsInitialized()) {
      return absl::StrCat("Var<", DataTypeString(dtype), ", uninitialized>");
    }
    return absl::StrCat("Var<", DataTypeString(dtype), " ", tensor.shape().DebugString(), ">");
  }

  // Constant after construction: the element type every value must have.
  const DataType dtype;

  mutable Mutex mu;
  // The value; DT_INVALID (uninitialized) until assigned.
  Tensor tensor ABSL_GUARDED_BY(mu);
};

}  // namespace minitf

#endif  // MINITF_OPS_KERNELS_VAR_H_
