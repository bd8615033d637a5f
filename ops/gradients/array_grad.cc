// The gradients of the array ops: those that move elements route g back
// to where each element came from (TensorFlow's array_grad.py).
#include "absl/strings/str_cat.h"
#include "ops/cc/array_ops.h"
#include "ops/cc/math_ops.h"
#include "ops/gradients/grad_helpers.h"

namespace minitf {
namespace {

using Grads = std::vector<Output>;

absl::Status PassThroughGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  *out = g;
  out->resize(op.num_inputs());
  return s.status();
}
REGISTER_GRADIENT_OP("Identity", PassThroughGrad);
REGISTER_GRADIENT_OP("Snapshot", PassThroughGrad);
REGISTER_GRADIENT_OP("IdentityN", PassThroughGrad);
// A variable's value read through its handle: the gradient reaches the handle.
REGISTER_GRADIENT_OP("ReadVariableOp", PassThroughGrad);

absl::Status PreventGradientGrad(const Scope&, const Operation& op, const Grads&, Grads*) {
  std::string message;
  (void)op.GetAttr("message", &message);
  return absl::InvalidArgumentError(
      absl::StrCat("Gradient explicitly disabled. Reason: ", message));
}
REGISTER_GRADIENT_OP("PreventGradient", PreventGradientGrad);

// Ops that only change the shape: g takes the input's shape back.
absl::Status ReshapeGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  out->push_back(ops::Reshape(s, g[0], ops::Shape(s, op.input(0))));
  out->resize(op.num_inputs());
  return s.status();
}
REGISTER_GRADIENT_OP("Reshape", ReshapeGrad);
REGISTER_GRADIENT_OP("Squeeze", ReshapeGrad);
REGISTER_GRADIENT_OP("ExpandDims", ReshapeGrad);

absl::Status TransposeGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  *out = {ops::Transpose(s, g[0], ops::InvertPermutation(s, op.input(1))), NoGradient()};
  return s.status();
}
REGISTER_GRADIENT_OP("Transpose", TransposeGrad);

// ConcatV2(values..., axis), N >= 2 values: each value's slice of g, at the
// offsets ConcatOffset computes.
absl::Status ConcatGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const int n = op.num_inputs() - 1;
  const Output& axis = op.input(n);
  auto rank = ops::Rank(s, op.input(0));
  auto dim = ops::FloorMod(s, ops::Cast(s, axis, DT_INT32), rank);
  std::vector<Output> shapes;
  for (int i = 0; i < n; ++i) shapes.push_back(ops::Shape(s, op.input(i)));
  std::vector<Output> offsets = ops::ConcatOffset(s, dim, shapes);
  if (offsets.size() != shapes.size()) return s.status();
  for (int i = 0; i < n; ++i) out->push_back(ops::Slice(s, g[0], offsets[i], shapes[i]));
  out->push_back(NoGradient());
  return s.status();
}
REGISTER_GRADIENT_OP("ConcatV2", ConcatGrad);

absl::Status PackGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  int64_t axis = 0;
  if (absl::Status st = op.GetAttr("axis", &axis); !st.ok()) return st;
  *out = ops::Unstack(s, g[0], op.num_inputs(), {.axis = axis});
  return s.status();
}
REGISTER_GRADIENT_OP("Pack", PackGrad);

absl::Status UnpackGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  int64_t axis = 0;
  if (absl::Status st = op.GetAttr("axis", &axis); !st.ok()) return st;
  out->push_back(ops::Stack(s, g, {.axis = axis}));
  return s.status();
}
REGISTER_GRADIENT_OP("Unpack", UnpackGrad);

// Split(axis, value) and SplitV(value, sizes, axis): the pieces' gradients
// joined again.
absl::Status SplitGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  *out = {NoGradient(), ops::Concat(s, g, op.input(0))};
  return s.status();
}
REGISTER_GRADIENT_OP("Split", SplitGrad);

absl::Status SplitVGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  *out = {ops::Concat(s, g, op.input(2)), NoGradient(), NoGradient()};
  return s.status();
}
REGISTER_GRADIENT_OP("SplitV", SplitVGrad);

// Slice(x, begin, size): g padded with zeros back to x's shape.
absl::Status SliceGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output& x = op.input(0);
  auto begin = ops::Cast(s, op.input(1), DT_INT32);
  auto after = ops::Sub(s, ops::Sub(s, ops::Shape(s, x), ops::Shape(s, op.output(0))), begin);
  auto paddings = ops::Concat(
      s, {ops::Reshape(s, begin, {-1, 1}), ops::Reshape(s, after, {-1, 1})}, 1);
  *out = {ops::Pad(s, g[0], paddings), NoGradient(), NoGradient()};
  return s.status();
}
REGISTER_GRADIENT_OP("Slice", SliceGrad);

ops::StridedSliceAttrs StridedSliceMasks(const Operation& op, absl::Status* status) {
  ops::StridedSliceAttrs attrs;
  for (auto [name, field] : {std::pair{"begin_mask", &attrs.begin_mask},
                             std::pair{"end_mask", &attrs.end_mask},
                             std::pair{"ellipsis_mask", &attrs.ellipsis_mask},
                             std::pair{"new_axis_mask", &attrs.new_axis_mask},
                             std::pair{"shrink_axis_mask", &attrs.shrink_axis_mask}}) {
    if (absl::Status st = op.GetAttr(name, field); !st.ok() && status->ok()) *status = st;
  }
  return attrs;
}

absl::Status StridedSliceGradFn(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  absl::Status status;
  ops::StridedSliceAttrs masks = StridedSliceMasks(op, &status);
  if (!status.ok()) return status;
  auto shape = ops::Shape(s, op.input(0), {.out_type = RemoveRefType(op.input(1).type())});
  *out = {ops::StridedSliceGrad(s, shape, op.input(1), op.input(2), op.input(3), g[0], masks),
          NoGradient(), NoGradient(), NoGradient()};
  return s.status();
}
REGISTER_GRADIENT_OP("StridedSlice", StridedSliceGradFn);

// StridedSliceGrad scatters dy into zeros: its gradient slices g again.
absl::Status StridedSliceGradGrad(const Scope& s, const Operation& op, const Grads& g,
                                  Grads* out) {
  absl::Status status;
  ops::StridedSliceAttrs masks = StridedSliceMasks(op, &status);
  if (!status.ok()) return status;
  *out = {NoGradient(), NoGradient(), NoGradient(), NoGradient(),
          ops::StridedSlice(s, g[0], op.input(1), op.input(2), op.input(3), masks)};
  return s.status();
}
REGISTER_GRADIENT_OP("StridedSliceGrad", StridedSliceGradGrad);

// Pad and PadV2: the part of g where x was.
absl::Status PadGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output& x = op.input(0);
  auto before = ops::Slice(s, ops::Cast(s, op.input(1), DT_INT32), {0, 0}, {-1, 1});
  out->push_back(ops::Slice(s, g[0], ops::Reshape(s, before, {-1}), ops::Shape(s, x)));
  out->resize(op.num_inputs());
  return s.status();
}
REGISTER_GRADIENT_OP("Pad", PadGrad);
REGISTER_GRADIENT_OP("PadV2", PadGrad);

// Tile(x, multiples): g viewed as [m0, d0, m1, d1, ...] and summed over the
// copies (the even dimensions).
absl::Status TileGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  const Output& x = op.input(0);
  auto multiples = ops::Cast(s, op.input(1), DT_INT32);
  auto split_shape = ops::Reshape(
      s, ops::Transpose(s, ops::Stack(s, {multiples, ops::Shape(s, x)}), {1, 0}), {-1});
  auto copies = ops::Range(s, 0, ops::Size(s, split_shape), 2);
  *out = {ops::Sum(s, ops::Reshape(s, g[0], split_shape), copies), NoGradient()};
  return s.status();
}
REGISTER_GRADIENT_OP("Tile", TileGrad);

absl::Status BroadcastToGrad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  *out = {grad::ReduceTo(s, g[0], op.input(0)), NoGradient()};
  return s.status();
}
REGISTER_GRADIENT_OP("BroadcastTo", BroadcastToGrad);

// Fill(dims, value): every element came from value.
absl::Status FillGrad(const Scope& s, const Operation&, const Grads& g, Grads* out) {
  *out = {NoGradient(), ops::Sum(s, g[0], ops::Range(s, 0, ops::Rank(s, g[0]), 1))};
  return s.status();
}
REGISTER_GRADIENT_OP("Fill", FillGrad);

// GatherV2(params, indices, axis) with batch_dims b: params is
// [batch..., outer..., N, inner...] (b batch dimensions, then those before
// the axis) and g is [batch..., outer..., K..., inner...]. Viewed as
// [batch * outer * K, inner], g is summed (UnsortedSegmentSum) into the
// rows of params viewed as [batch * outer * N, inner], each index offset by
// its (batch, outer) position times N. The result is dense (TensorFlow's is
// IndexedSlices).
absl::Status GatherV2Grad(const Scope& s, const Operation& op, const Grads& g, Grads* out) {
  int64_t batch_dims = 0;
  if (absl::Status st = op.GetAttr("batch_dims", &batch_dims); !st.ok()) return st;
  if (batch_dims < 0) {
    return absl::UnimplementedError(absl::StrCat(
        "the gradient of GatherV2 with a negative batch_dims (", batch_dims, ")"));
  }
  const Output& params = op.input(0);
  const Output& indices = op.input(1);
  const int b = static_cast<int>(batch_dims);
  auto shape = ops::Shape(s, params);
  auto axis = ops::FloorMod(s, ops::Cast(s, op.input(2), DT_INT32), ops::Rank(s, params));
  auto product = [&](const Output& dims) { return ops::Prod(s, dims, {0}); };
  auto batch = product(ops::Slice(s, shape, {0}, {b}));
  auto outer = product(ops::Slice(s, shape, {b}, ops::Reshape(s, ops::Sub(s, axis, b), {1})));
  auto rows = ops::GatherV2(s, shape, axis, 0);
  auto inner = product(ops::Slice(s, shape, ops::Reshape(s, ops::Add(s, axis, 1), {1}), {-1}));
  auto per_batch = ops::FloorDiv(s, ops::Size(s, indices), batch);
  auto blocks = ops::Mul(s, batch, outer);
  // Each (batch, outer) block's first row in the [batch * outer * N] view.
  auto offsets = ops::Reshape(s, ops::Mul(s, ops::Range(s, 0, blocks, 1), rows),
                              ops::Stack(s, {batch, outer, ops::Const(s, 1)}));
  auto ids = ops::Add(s, ops::Reshape(s, indices, ops::Stack(s, {batch, ops::Const(s, 1), per_batch})),
                      ops::Cast(s, offsets, RemoveRefType(indices.type())));
  auto values = ops::Reshape(s, g[0], ops::Stack(s, {ops::Const(s, -1), inner}));
  auto summed = ops::UnsortedSegmentSum(s, values, ops::Reshape(s, ids, {-1}),
                                        ops::Mul(s, blocks, rows));
  *out = {ops::Reshape(s, summed, shape), NoGradient(), NoGradient()};
  return s.status();
}
REGISTER_GRADIENT_OP("GatherV2", GatherV2Grad);

// UnsortedSegmentSum(data, ids, n): each row of data gets its segment's
// gradient; rows with a negative id (dropped by the op) get zeros.
absl::Status UnsortedSegmentSumGrad(const Scope& s, const Operation& op, const Grads& g,
                                    Grads* out) {
  const Output& ids = op.input(1);
  auto gathered = ops::GatherV2(s, g[0], ops::Maximum(s, ids, 0), 0);
  // ids' shape followed by ones up to gathered's rank, to broadcast the mask.
  auto ones = ops::Fill(s, ops::Reshape(s, ops::Sub(s, ops::Rank(s, gathered), ops::Rank(s, ids)),
                                        {1}),
                        1);
  auto mask_shape = ops::Concat(s, {ops::Shape(s, ids), ones}, 0);
  auto kept = ops::Reshape(s, ops::GreaterEqual(s, ids, 0), mask_shape);
  *out = {ops::SelectV2(s, kept, gathered, ops::ZerosLike(s, gathered)), NoGradient(),
          NoGradient()};
  return s.status();
}
REGISTER_GRADIENT_OP("UnsortedSegmentSum", UnsortedSegmentSumGrad);

// Integer results (shapes, indices), constants, and ops TensorFlow marks
// not differentiable.
REGISTER_NO_GRADIENT_OP("Const");
REGISTER_NO_GRADIENT_OP("NoOp");
REGISTER_NO_GRADIENT_OP("Placeholder");
REGISTER_NO_GRADIENT_OP("StopGradient");
REGISTER_NO_GRADIENT_OP("Shape");
REGISTER_NO_GRADIENT_OP("ShapeN");
REGISTER_NO_GRADIENT_OP("Size");
REGISTER_NO_GRADIENT_OP("Rank");
REGISTER_NO_GRADIENT_OP("ZerosLike");
REGISTER_NO_GRADIENT_OP("OnesLike");
REGISTER_NO_GRADIENT_OP("BroadcastGradientArgs");
REGISTER_NO_GRADIENT_OP("InvertPermutation");
REGISTER_NO_GRADIENT_OP("ConcatOffset");
REGISTER_NO_GRADIENT_OP("OneHot");
REGISTER_NO_GRADIENT_OP("Range");
REGISTER_NO_GRADIENT_OP("Unique");
REGISTER_NO_GRADIENT_OP("RandomUniform");
REGISTER_NO_GRADIENT_OP("RandomStandardNormal");
REGISTER_NO_GRADIENT_OP("TruncatedNormal");
REGISTER_NO_GRADIENT_OP("RandomUniformInt");
REGISTER_NO_GRADIENT_OP("Variable");
REGISTER_NO_GRADIENT_OP("VariableV2");
REGISTER_NO_GRADIENT_OP("VarHandleOp");
REGISTER_NO_GRADIENT_OP("VarIsInitializedOp");

}  // namespace
}  // namespace minitf
