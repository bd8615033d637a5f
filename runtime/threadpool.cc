#include "runtime/threadpool.h"

#include "platform/logging.h"

namespace minitf {

ThreadPool::Environment::EnvThread* ThreadPool::Environment::CreateThread(
    std::function<void()> f) {
  if (!on_thread_start) return new EnvThread(std::move(f));
  return new EnvThread([start = on_thread_start, f = std::move(f)] {
    start();
    f();
  });
}

ThreadPool::ThreadPool(std::string name, int num_threads, std::function<void()> on_thread_start)
    : name_(std::move(name)) {
  MINITF_CHECK(num_threads >= 1);
  Environment env;
  env.on_thread_start = std::move(on_thread_start);
  pool_ = std::make_unique<Pool>(num_threads, /*allow_spinning=*/true, env);
  device_ = std::make_unique<Eigen::ThreadPoolDevice>(pool_.get(), num_threads);
}

ThreadPool::~ThreadPool() {
  device_.reset();
  pool_.reset();  // Joins the workers after they drain the queue.
}

void ThreadPool::Schedule(std::function<void()> fn) { pool_->Schedule(std::move(fn)); }

void ThreadPool::ParallelFor(int64_t total, int64_t cost_per_unit,
                             const std::function<void(int64_t, int64_t)>& fn) {
  if (total <= 0) return;
  if (total == 1 || NumThreads() == 1) {
    fn(0, total);
    return;
  }
  device_->parallelFor(total,
                       Eigen::TensorOpCost(0, 0, static_cast<double>(cost_per_unit)),
                       [&fn](Eigen::Index begin, Eigen::Index end) { fn(begin, end); });
}

int ThreadPool::NumThreads() const { return pool_->NumThreads(); }
int ThreadPool::CurrentThreadId() const { return pool_->CurrentThreadId(); }

}  // namespace minitf
