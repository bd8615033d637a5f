// HandlePool: the library handles (cuDNN's, cuBLAS's) of one device, one per
// concurrent caller. A handle serves one call at a time; a call leases an
// idle one (or a new one when all are leased), points it at its own stream,
// enqueues its work and gives it back. The lock guards only the idle list,
// never a library call, so kernels on different threads and streams enqueue
// library work at the same time (PyTorch's per-thread handle pool; TensorFlow
// serialises every call of a device on one handle).
//
//   HandlePool<cudnnHandle_t> pool(&CreateCudnn, &DestroyCudnn);
//   absl::StatusOr<HandlePool<cudnnHandle_t>::Lease> lease = pool.Acquire();
//   cudnnSetStream(lease->get(), stream);  ... ; // ~Lease gives it back
//
// `Handle` is a trivially copyable value (a pointer). Thread-safe. Every
// lease must end before the pool is destroyed; the pool destroys the
// handles it holds (the caller makes the device current first).
#ifndef MINITF_STREAM_HANDLE_POOL_H_
#define MINITF_STREAM_HANDLE_POOL_H_

#include <functional>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "platform/mutex.h"

namespace minitf::se {

template <typename Handle>
class HandlePool {
 public:
  using Create = std::function<absl::StatusOr<Handle>()>;
  using Destroy = std::function<void(Handle)>;

  // A handle held by one caller until the lease ends. Movable.
  class Lease {
   public:
    Lease(Lease&& other) noexcept
        : pool_(std::exchange(other.pool_, nullptr)), handle_(other.handle_) {}
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    ~Lease() {
      if (pool_ != nullptr) pool_->Release(handle_);
    }
    Handle get() const { return handle_; }

   private:
    friend class HandlePool;
    Lease(HandlePool* pool, Handle handle) : pool_(pool), handle_(handle) {}
    HandlePool* pool_;  // Not owned; null once moved from.
    Handle handle_;
  };

  HandlePool(Create create, Destroy destroy)
      : create_(std::move(create)), destroy_(std::move(destroy)) {}
  ~HandlePool() {
    MutexLock lock(&mu_);
    for (Handle h : idle_) destroy_(h);
  }
  HandlePool(const HandlePool&) = delete;
  HandlePool& operator=(const HandlePool&) = delete;

  // An idle handle, or a new one; the creation's error otherwise.
  absl::StatusOr<Lease> Acquire() {
    {
      MutexLock lock(&mu_);
      if (!idle_.empty()) {
        Handle h = idle_.back();
        idle_.pop_back();
        return Lease(this, h);
      }
    }
    absl::StatusOr<Handle> created = create_();
    if (!created.ok()) return created.status();
    MutexLock lock(&mu_);
    ++created_;
    return Lease(this, *created);
  }

  // Handles created so far (leased or idle).
  int created() const {
    MutexLock lock(&mu_);
    return created_;
  }

 private:
  void Release(Handle h) {
    MutexLock lock(&mu_);
    idle_.push_back(h);
  }

  const Create create_;
  const Destroy destroy_;
  mutable Mutex mu_;
  std::vector<Handle> idle_ ABSL_GUARDED_BY(mu_);
  int created_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace minitf::se

#endif  // MINITF_STREAM_HANDLE_POOL_H_
