#include "runtime/resource_mgr.h"

namespace minitf {

void ResourceMgr::Cleanup(const std::string& container) {
  MutexLock lock(&mu_);
  absl::erase_if(resources_, [&](const auto& kv) { return kv.first.first == container; });
}

void ResourceMgr::Clear() {
  MutexLock lock(&mu_);
  resources_.clear();
}

size_t ResourceMgr::size() const {
  MutexLock lock(&mu_);
  return resources_.size();
}

}  // namespace minitf
