// ThreadPool: a named pool of worker threads over Eigen's ThreadPool. The
// inter-op pool runs executor nodes; the intra-op pool is what kernels split
// their element loops over (through eigen_device()).
//
//   ThreadPool pool("inter_op", 4);
//   pool.Schedule([] { ... });
//   pool.ParallelFor(n, /*cost_per_unit=*/10, [&](int64_t begin, int64_t end) { ... });
//
// Thread-safe. The destructor waits for scheduled work to finish.
#ifndef MINITF_RUNTIME_THREADPOOL_H_
#define MINITF_RUNTIME_THREADPOOL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#ifndef EIGEN_USE_THREADS
#define EIGEN_USE_THREADS
#endif
#include "unsupported/Eigen/CXX11/Tensor"

namespace minitf {

class ThreadPool {
 public:
  // REQUIRES: num_threads >= 1. `on_thread_start`, when set, runs first on
  // each worker thread (a GPU device's pool gives its threads access to
  // device memory this way).
  ThreadPool(std::string name, int num_threads, std::function<void()> on_thread_start = {});
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Schedule(std::function<void()> fn);
  // Splits [0, total) into shards and runs `fn(begin, end)` on them in
  // parallel, blocking until all are done. `cost_per_unit` is an estimate of
  // the cycles one unit takes, which sizes the shards.
  void ParallelFor(int64_t total, int64_t cost_per_unit,
                   const std::function<void(int64_t, int64_t)>& fn);

  int NumThreads() const;
  // The index of the calling thread in this pool, or -1.
  int CurrentThreadId() const;
  const std::string& name() const { return name_; }

  Eigen::ThreadPoolInterface* AsEigenThreadPool() { return pool_.get(); }
  // An Eigen device whose expressions are evaluated on this pool.
  const Eigen::ThreadPoolDevice& eigen_device() const { return *device_; }

 private:
  // Eigen's thread environment, with the start hook.
  struct Environment : Eigen::StlThreadEnvironment {
    std::function<void()> on_thread_start;
    EnvThread* CreateThread(std::function<void()> f);
  };
  using Pool = Eigen::ThreadPoolTempl<Environment>;

  const std::string name_;
  std::unique_ptr<Pool> pool_;
  std::unique_ptr<Eigen::ThreadPoolDevice> device_;
};

}  // namespace minitf

#endif  // MINITF_RUNTIME_THREADPOOL_H_
