// OpSegment: the kernels of a session's stateful ops, shared by all of its
// executors (TensorFlow's OpSegment).
//
// A session builds one set of executors per feed/fetch/target signature. The
// kernel of a stateless op may be built once per executor, but a stateful
// one (a seeded RandomUniform's generator, a Variable's buffer) must be one
// kernel per session and device, or a second signature would start a second
// random stream, or a second copy of the state. The session hands its
// executors a create_kernel hook that asks the segment for such kernels:
//
//   if (OpSegment::ShouldOwnKernel(*node.op_def())) {
//     MINITF_ASSIGN_OR_RETURN(OpKernel* kernel,
//                             segment->FindOrCreate(device->name(), node.name(), create));
//   }
//
// and a delete_kernel hook that leaves the segment's kernels alone.
//
// Thread-safe. Kernels live until the segment is destroyed; an executor
// using one must be destroyed first.
#ifndef MINITF_RUNTIME_OP_SEGMENT_H_
#define MINITF_RUNTIME_OP_SEGMENT_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "platform/mutex.h"
#include "runtime/op_def.h"
#include "runtime/op_kernel.h"

namespace minitf {

class OpSegment {
 public:
  using CreateKernelFn = std::function<absl::StatusOr<std::unique_ptr<OpKernel>>()>;

  OpSegment() = default;
  OpSegment(const OpSegment&) = delete;
  OpSegment& operator=(const OpSegment&) = delete;

  // Whether kernels of `op` are shared: stateful ops, except the call-frame
  // and transfer ops (_Arg, _Retval, _Send, _Recv), whose attributes (an
  // argument index, a rendezvous key) belong to one signature's graph.
  static bool ShouldOwnKernel(const OpDef& op);
  // The same for a kernel's op name; false for an op that is not registered.
  static bool ShouldOwnKernel(const std::string& op_name);

  // The kernel of node `node_name` on device `device`: the one made by an
  // earlier call, else one made now by `create` (under the segment's lock,
  // so a kernel is built once). An error of `create` is returned and nothing
  // is kept. The kernel is owned by the segment.
  absl::StatusOr<OpKernel*> FindOrCreate(const std::string& device,
                                         const std::string& node_name,
                                         const CreateKernelFn& create);

  // Number of kernels held, for tests.
  int size() const;

 private:
  mutable Mutex mu_;
  // (device, node name) -> kernel.
  absl::flat_hash_map<std::pair<std::string, std::string>, std::unique_ptr<OpKernel>> kernels_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace minitf

#endif  // MINITF_RUNTIME_OP_SEGMENT_H_
