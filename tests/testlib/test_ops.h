// Ops that exist only for tests (registered by the testlib):
//
//   _TestFail(input: T)                      fails with attr `message`
//   _TestAsyncIdentity(input: T) -> T        async; completes on a runner thread
//                                            after attr `delay_ms`
//   _TestBlockUntilCancelled(input: T) -> T  async; finishes only when the step
//                                            is cancelled, with Cancelled
//   _TestSpinUntilCancelled(input: T) -> T   synchronous and expensive; holds
//                                            its thread until the step is
//                                            cancelled (gives up after 10 s)
//   _TestIncrement(x: int32) -> int32        x + 1, cheap (runs inline)
//   _TestExpensiveIncrement(x: int32) -> int32  x + 1, expensive (inter-op pool)
//   _TestCountRuns -> int32                  counts its executions (stateful;
//                                            read with TestCountRunsValue())
#ifndef MINITF_TESTS_TESTLIB_TEST_OPS_H_
#define MINITF_TESTS_TESTLIB_TEST_OPS_H_

#include <cstdint>

namespace minitf::test {

// Total executions of every _TestCountRuns kernel in the process.
int64_t TestCountRunsValue();

}  // namespace minitf::test

#endif  // MINITF_TESTS_TESTLIB_TEST_OPS_H_
