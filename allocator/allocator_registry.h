// AllocatorFactoryRegistry: the named allocator factories of the process, and
// REGISTER_MEM_ALLOCATOR to add one.
//
// cpu_allocator() is the allocator of the highest-priority factory (or of the
// one named by the environment variable MINITF_CPU_ALLOCATOR), created on
// first use. minitf registers "DefaultCPUAllocator" (aligned malloc, priority
// 100) and "BFCCPUAllocator" (a BFCAllocator over host memory, priority 200).
//
//   class MyFactory : public AllocatorFactory {
//    public:
//     std::unique_ptr<Allocator> CreateAllocator() override { ... }
//   };
//   REGISTER_MEM_ALLOCATOR("MyAllocator", 300, MyFactory);
#ifndef MINITF_ALLOCATOR_ALLOCATOR_REGISTRY_H_
#define MINITF_ALLOCATOR_ALLOCATOR_REGISTRY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "allocator/allocator.h"
#include "platform/mutex.h"

namespace minitf {

class AllocatorFactory {
 public:
  virtual ~AllocatorFactory() = default;
  virtual std::unique_ptr<Allocator> CreateAllocator() = 0;
};

// Thread-safe. The process has one (Global()); tests may make their own.
class AllocatorFactoryRegistry {
 public:
  AllocatorFactoryRegistry() = default;
  AllocatorFactoryRegistry(const AllocatorFactoryRegistry&) = delete;
  AllocatorFactoryRegistry& operator=(const AllocatorFactoryRegistry&) = delete;

  // The process-wide registry, constructed on first use and never destroyed.
  static AllocatorFactoryRegistry* Global();

  // A second registration of a name, or of a priority already taken, is
  // refused with a logged error (the choice would otherwise be ambiguous).
  void Register(absl::string_view name, int priority, std::unique_ptr<AllocatorFactory> factory);

  // The allocator of the factory named `preferred` if registered, else of the
  // highest-priority one; created by the first call and then always the
  // same, owned by the registry. nullptr when nothing is registered.
  Allocator* GetAllocator(absl::string_view preferred = "");

  // Registered names, highest priority first.
  std::vector<std::string> Names() const;

 private:
  struct Entry {
    std::string name;
    int priority;
    std::unique_ptr<AllocatorFactory> factory;
  };

  mutable Mutex mu_;
  std::vector<Entry> entries_ ABSL_GUARDED_BY(mu_);  // by descending priority
  std::unique_ptr<Allocator> chosen_ ABSL_GUARDED_BY(mu_);
};

namespace allocator_registration {
// The static object behind REGISTER_MEM_ALLOCATOR: registers in Global().
struct AllocatorFactoryRegistration {
  AllocatorFactoryRegistration(absl::string_view name, int priority,
                               std::unique_ptr<AllocatorFactory> factory) {
    AllocatorFactoryRegistry::Global()->Register(name, priority, std::move(factory));
  }
};
}  // namespace allocator_registration

#define REGISTER_MEM_ALLOCATOR(name, priority, factory) \
  REGISTER_MEM_ALLOCATOR_UNIQ_HELPER(__COUNTER__, name, priority, factory)
#define REGISTER_MEM_ALLOCATOR_UNIQ_HELPER(ctr, name, priority, factory) \
  REGISTER_MEM_ALLOCATOR_UNIQ(ctr, name, priority, factory)
#define REGISTER_MEM_ALLOCATOR_UNIQ(ctr, name, priority, factory)                        \
  static ::minitf::allocator_registration::AllocatorFactoryRegistration                  \
      register_mem_allocator_##ctr(name, priority, std::make_unique<factory>())

}  // namespace minitf

#endif  // MINITF_ALLOCATOR_ALLOCATOR_REGISTRY_H_
