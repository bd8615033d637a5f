#include "tests/testlib/kernel_runner.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "runtime/kernel_registry.h"
#include "runtime/node_def_util.h"
#include "runtime/op_registry.h"
#include "runtime/shape_inference.h"

namespace minitf::test {

NodeDef MakeNodeDef(const std::string& name, const std::string& op, AttrValueMap attrs) {
  NodeDef def;
  def.name = name;
  def.op = op;
  def.attr = std::move(attrs);
  return def;
}

KernelRunner::KernelRunner(NodeDef def, int intra_op_threads)
    : def_(std::move(def)),
      device_(std::make_unique<ThreadPoolDevice>(0, intra_op_threads, cpu_allocator())) {
  const OpDef* op_def = OpRegistry::Global()->LookUp(def_.op);
  if (op_def == nullptr) {
    status_ = absl::NotFoundError(absl::StrCat("op type not registered: '", def_.op, "'"));
    return;
  }
  AddDefaultsToNodeDef(*op_def, &def_);
  status_ = ValidateNodeDefAttrs(def_, *op_def);
  if (!status_.ok()) return;
  auto kernel = CreateOpKernel(DEVICE_CPU, device_.get(), def_);
  if (!kernel.ok()) {
    status_ = kernel.status();
    return;
  }
  kernel_ = *std::move(kernel);
}

KernelRunner::~KernelRunner() = default;

absl::StatusOr<std::vector<Tensor>> KernelRunner::Run(const std::vector<Tensor>& inputs) {
  if (!status_.ok()) return status_;
  if (static_cast<int>(inputs.size()) != kernel_->num_inputs()) {
    return absl::InvalidArgumentError(absl::StrCat("kernel '", def_.name, "' takes ",
                                                   kernel_->num_inputs(), " inputs, got ",
                                                   inputs.size()));
  }
  // Copies: the kernel may forward an input whose buffer only it holds.
  std::vector<Tensor> owned = inputs;
  std::vector<TensorValue> values;
  for (Tensor& t : owned) values.push_back(TensorValue{&t, nullptr});
  return RunWithValues(values);
}

absl::StatusOr<std::vector<Tensor>> KernelRunner::RunWithValues(
    const std::vector<TensorValue>& values) {
  if (!status_.ok()) return status_;
  if (static_cast<int>(values.size()) != kernel_->num_inputs()) {
    return absl::InvalidArgumentError(absl::StrCat("kernel '", def_.name, "' takes ",
                                                   kernel_->num_inputs(), " inputs, got ",
                                                   values.size()));
  }
  CancellationManager cancellation;
  OpKernelContext::Params params;
  params.device = device_.get();
  params.op_kernel = kernel_.get();
  params.inputs = values;
  params.cancellation_manager = &cancellation;
  OpKernelContext ctx(&params);
  if (AsyncOpKernel* async = kernel_->AsAsync()) {
    async->Compute(&ctx);
  } else {
    device_->Compute(kernel_.get(), &ctx);
  }
  if (!ctx.status().ok()) return ctx.status();
  std::vector<Tensor> outputs;
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    OpKernelContext::Output* slot = ctx.mutable_output_slot(i);
    if (!slot->is_set) {
      outputs.emplace_back();
    } else if (slot->ref != nullptr) {
      outputs.push_back(*slot->ref);
    } else {
      outputs.push_back(slot->value);
    }
  }
  return outputs;
}

absl::StatusOr<std::vector<PartialTensorShape>> InferShapes(
    NodeDef def, const std::vector<PartialTensorShape>& input_shapes,
    const std::vector<const Tensor*>& input_tensors) {
  const OpDef* op_def = OpRegistry::Global()->LookUp(def.op);
  if (op_def == nullptr) {
    return absl::NotFoundError(absl::StrCat("op type not registered: '", def.op, "'"));
  }
  AddDefaultsToNodeDef(*op_def, &def);
  if (absl::Status s = ValidateNodeDefAttrs(def, *op_def); !s.ok()) return s;
  DataTypeVector in_types, out_types;
  if (absl::Status s = InOutTypesForNode(def, *op_def, &in_types, &out_types); !s.ok()) {
    return s;
  }
  std::vector<const Tensor*> tensors = input_tensors;
  tensors.resize(input_shapes.size(), nullptr);
  InferenceContext ctx(&def, op_def, input_shapes, tensors, static_cast<int>(out_types.size()));
  if (!op_def->shape_fn) return absl::InternalError("op has no shape function");
  if (absl::Status s = op_def->shape_fn(&ctx); !s.ok()) return s;
  return ctx.outputs();
}

void ExpectTensorEqual(const Tensor& actual, const Tensor& expected) {
  ASSERT_EQ(actual.dtype(), expected.dtype());
  ASSERT_EQ(actual.shape(), expected.shape()) << actual.shape().DebugString() << " vs "
                                              << expected.shape().DebugString();
  MINITF_SWITCH_ALL_TYPES(actual.dtype(), T, FAIL() << "unsupported dtype", {
    auto a = actual.flat<T>();
    auto e = expected.flat<T>();
    for (int64_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a(i), e(i)) << "element " << i << " of " << actual.DebugString();
    }
  });
}

void ExpectTensorNear(const Tensor& actual, const Tensor& expected, double atol, double rtol) {
  ASSERT_EQ(actual.dtype(), expected.dtype());
  ASSERT_EQ(actual.shape(), expected.shape()) << actual.shape().DebugString() << " vs "
                                              << expected.shape().DebugString();
  MINITF_SWITCH_ALL_TYPES(actual.dtype(), T, FAIL() << "unsupported dtype", {
    auto a = actual.flat<T>();
    auto e = expected.flat<T>();
    for (int64_t i = 0; i < a.size(); ++i) {
      const double av = static_cast<double>(a(i)), ev = static_cast<double>(e(i));
      if (std::isnan(ev)) {
        EXPECT_TRUE(std::isnan(av)) << "element " << i;
        continue;
      }
      // An infinity matches only the same infinity (the difference of two
      // equal ones is NaN, which no tolerance admits; an infinite
      // tolerance would admit any value).
      if (std::isinf(av) || std::isinf(ev)) {
        EXPECT_EQ(av, ev) << "element " << i;
        continue;
      }
      EXPECT_LE(std::abs(av - ev), atol + rtol * std::abs(ev))
          << "element " << i << ": " << av << " vs " << ev;
    }
  });
}

}  // namespace minitf::test
