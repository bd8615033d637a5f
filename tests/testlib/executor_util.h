// Building an Executor straight from a Scope, for executor tests: the
// fetches become _Retval nodes 0..n-1 of the call frame.
//
//   auto executor = test::NewExecutorForFetches(root, {sum}, &device);
//   FunctionCallFrame frame({}, 1);
//   args.call_frame = &frame;
//   (*executor)->Run(args);
#ifndef MINITF_TESTS_TESTLIB_EXECUTOR_UTIL_H_
#define MINITF_TESTS_TESTLIB_EXECUTOR_UTIL_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "ops/cc/scope.h"
#include "runtime/device_base.h"
#include "runtime/executor.h"

namespace minitf::test {

// An executor on `device` (not owned; must outlive it) for `root`'s graph
// with a _Retval per fetch, in order.
absl::StatusOr<std::unique_ptr<Executor>> NewExecutorForFetches(const Scope& root,
                                                                const std::vector<Output>& fetches,
                                                                DeviceBase* device);

}  // namespace minitf::test

#endif  // MINITF_TESTS_TESTLIB_EXECUTOR_UTIL_H_
