#include "runtime/op_segment.h"

#include "runtime/op_registry.h"

namespace minitf {

bool OpSegment::ShouldOwnKernel(const OpDef& op) {
  if (!op.is_stateful) return false;
  return op.name != "_Arg" && op.name != "_Retval" && op.name != "_Send" && op.name != "_Recv" &&
         op.name != "_HostSend" && op.name != "_HostRecv";
}

bool OpSegment::ShouldOwnKernel(const std::string& op_name) {
  const OpDef* op = OpRegistry::Global()->LookUp(op_name);
  return op != nullptr && ShouldOwnKernel(*op);
}

absl::StatusOr<OpKernel*> OpSegment::FindOrCreate(const std::string& device,
                                                  const std::string& node_name,
                                                  const CreateKernelFn& create) {
  MutexLock lock(&mu_);
  std::unique_ptr<OpKernel>& slot = kernels_[std::make_pair(device, node_name)];
  if (slot == nullptr) {
    absl::StatusOr<std::unique_ptr<OpKernel>> kernel = create();
    if (!kernel.ok()) {
      kernels_.erase(std::make_pair(device, node_name));
      return kernel.status();
    }
    slot = *std::move(kernel);
  }
  return slot.get();
}

int OpSegment::size() const {
  MutexLock lock(&mu_);
  return static_cast<int>(kernels_.size());
}

}  // namespace minitf
