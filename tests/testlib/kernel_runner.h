// KernelRunner: runs one kernel on a private CPU device, without a graph or
// session, for op tests (TensorFlow's OpsTestBase idea).
//
//   KernelRunner runner(NodeDefBuilder("add", "Add").Attr("T", DT_FLOAT).Build());
//   auto out = runner.Run({a, b});   // StatusOr<std::vector<Tensor>>
//
// Also: InferShapes (the op's shape function on given input shapes) and
// tensor comparison helpers.
#ifndef MINITF_TESTS_TESTLIB_KERNEL_RUNNER_H_
#define MINITF_TESTS_TESTLIB_KERNEL_RUNNER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "device/cpu_device.h"
#include "gtest/gtest.h"
#include "runtime/graph_def.h"
#include "runtime/op_kernel.h"
#include "runtime/tensor.h"

namespace minitf::test {

// A NodeDef for a single-kernel test; inputs are filled in by KernelRunner.
NodeDef MakeNodeDef(const std::string& name, const std::string& op, AttrValueMap attrs = {});

class KernelRunner {
 public:
  // Builds the kernel for `def` (attr defaults added; `num_inputs` dummy
  // input names are generated if def.input is empty). Construction errors
  // are returned by Run.
  explicit KernelRunner(NodeDef def, int intra_op_threads = 2);
  ~KernelRunner();

  // Runs once with `inputs` (values, no references).
  absl::StatusOr<std::vector<Tensor>> Run(const std::vector<Tensor>& inputs);
  // Runs once with raw input slots, so reference inputs (a Variable's
  // tensor and its mutex) can be passed. Reference outputs come back as the
  // referenced tensor's current value.
  absl::StatusOr<std::vector<Tensor>> RunWithValues(const std::vector<TensorValue>& inputs);
  // The construction status (e.g. a bad attr).
  const absl::Status& status() const { return status_; }
  OpKernel* kernel() const { return kernel_.get(); }
  Device* device() const { return device_.get(); }

 private:
  NodeDef def_;
  std::unique_ptr<ThreadPoolDevice> device_;
  std::unique_ptr<OpKernel> kernel_;
  absl::Status status_;
};

// Runs `def`'s shape function on `input_shapes` ("?" entries allowed);
// `input_tensors[i]` (may be shorter, or null entries) are constant inputs.
absl::StatusOr<std::vector<PartialTensorShape>> InferShapes(
    NodeDef def, const std::vector<PartialTensorShape>& input_shapes,
    const std::vector<const Tensor*>& input_tensors = {});

// Same dtype, shape and exactly equal elements.
void ExpectTensorEqual(const Tensor& actual, const Tensor& expected);
// Same dtype and shape; floating elements within `atol + rtol * |expected|`.
void ExpectTensorNear(const Tensor& actual, const Tensor& expected, double atol = 1e-5,
                      double rtol = 1e-5);

}  // namespace minitf::test

#endif  // MINITF_TESTS_TESTLIB_KERNEL_RUNNER_H_
