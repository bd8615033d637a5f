#include "allocator/allocator_registry.h"

#include <algorithm>
#include <cstdlib>

#include "platform/env.h"
#include "platform/logging.h"

namespace minitf {

AllocatorFactoryRegistry* AllocatorFactoryRegistry::Global() {
  static AllocatorFactoryRegistry* const registry = new AllocatorFactoryRegistry();
  return registry;
}

void AllocatorFactoryRegistry::Register(absl::string_view name, int priority,
                                        std::unique_ptr<AllocatorFactory> factory) {
  MutexLock lock(&mu_);
  for (const Entry& e : entries_) {
    if (e.name == name || e.priority == priority) {
      LOG(ERROR, "REGISTER_MEM_ALLOCATOR(\"{}\", {}) refused: \"{}\" is registered with "
                    "priority {}",
                    std::string(name), priority, e.name, e.priority);
      return;
    }
  }
  auto pos = std::find_if(entries_.begin(), entries_.end(),
                          [&](const Entry& e) { return e.priority < priority; });
  entries_.insert(pos, Entry{std::string(name), priority, std::move(factory)});
}

Allocator* AllocatorFactoryRegistry::GetAllocator(absl::string_view preferred) {
  MutexLock lock(&mu_);
  if (chosen_ != nullptr) return chosen_.get();
  if (entries_.empty()) return nullptr;
  const Entry* entry = &entries_.front();
  if (!preferred.empty()) {
    auto it = std::find_if(entries_.begin(), entries_.end(),
                           [&](const Entry& e) { return e.name == preferred; });
    if (it != entries_.end()) {
      entry = &*it;
    } else {
      LOG(WARNING, "no memory allocator \"{}\" is registered; using \"{}\"",
                   std::string(preferred), entry->name);
    }
  }
  chosen_ = entry->factory->CreateAllocator();
  return chosen_.get();
}

std::vector<std::string> AllocatorFactoryRegistry::Names() const {
  MutexLock lock(&mu_);
  std::vector<std::string> names;
  for (const Entry& e : entries_) names.push_back(e.name);
  return names;
}

Allocator* cpu_allocator() {
  static Allocator* const allocator = [] {
    Allocator* a =
        AllocatorFactoryRegistry::Global()->GetAllocator(GetEnvOr("MINITF_CPU_ALLOCATOR", ""));
    if (a == nullptr) {
      // Only reachable if called before the registrars ran (static init).
      LOG(ERROR, "cpu_allocator() called before any allocator was registered");
      std::abort();
    }
    return a;
  }();
  return allocator;
}

}  // namespace minitf
