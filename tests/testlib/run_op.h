// One op's CPU kernel run on inputs, for op tests: RunOp names the node
// "node_<op>", and ExpectInvalid checks that a run failed with
// InvalidArgument naming that node and saying `text`.
//
//   auto out = test::RunOp("Slice", {{"T", DT_FLOAT}, {"Index", DT_INT32}}, {x, begin, size});
//   test::ExpectInvalid(out, "Slice", "Expected begin[0] in [0, 3], but got 4");
#ifndef MINITF_TESTS_TESTLIB_RUN_OP_H_
#define MINITF_TESTS_TESTLIB_RUN_OP_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/kernel_runner.h"

namespace minitf::test {

inline absl::StatusOr<std::vector<Tensor>> RunOp(const std::string& op, AttrValueMap attrs,
                                                 const std::vector<Tensor>& inputs) {
  KernelRunner runner(MakeNodeDef("node_" + op, op, std::move(attrs)));
  return runner.Run(inputs);
}

inline void ExpectInvalid(const absl::StatusOr<std::vector<Tensor>>& out, const std::string& op,
                          const std::string& text) {
  ASSERT_FALSE(out.ok()) << op;
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
  EXPECT_THAT(out.status().message(),
              ::testing::AllOf(::testing::HasSubstr("node_" + op), ::testing::HasSubstr(text)));
}

}  // namespace minitf::test

#endif  // MINITF_TESTS_TESTLIB_RUN_OP_H_
