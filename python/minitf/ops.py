"""Op functions under TensorFlow's v1 names (``tf.matmul``, ``tf.nn.relu``,
...), and every registered op as a function of ``minitf.raw_ops`` (as
``tf.raw_ops``: keyword arguments named as the op definition's inputs and
attrs, plus ``name``).
"""

from __future__ import annotations

import keyword
import types
from typing import Optional

import numpy as np

from minitf import _minitf
from minitf import dtypes as _dtypes
from minitf.framework import Operation, Tensor, _apply, convert_to_array, get_default_graph


def _make_raw_op(op_name, inputs, attrs):
    input_names = [n for n, _ in inputs]
    attr_names = {a for a, _, _ in attrs}

    def raw_op(name: Optional[str] = None, **kwargs):
        missing = [n for n in input_names if n not in kwargs]
        if missing:
            raise TypeError(f"raw_ops.{op_name} missing inputs {missing}")
        args = [kwargs.pop(n) for n in input_names]
        unknown = set(kwargs) - attr_names
        if unknown:
            raise TypeError(f"raw_ops.{op_name} has no attrs {sorted(unknown)}")
        return _apply(op_name, args, kwargs, name)

    raw_op.__name__ = op_name
    raw_op.__doc__ = (f"Adds a {op_name} node. Inputs: {', '.join(input_names) or 'none'}; "
                      f"attrs: {', '.join(sorted(attr_names)) or 'none'}.")
    return raw_op


def _snake_case(op_name: str) -> str:
    """TensorFlow's gen_*_ops names: "MatMul" -> "mat_mul", "BiasAddGrad" -> "bias_add_grad"."""
    out = []
    for i, c in enumerate(op_name):
        if c.isupper() and i > 0 and (op_name[i - 1].islower() or (
                i + 1 < len(op_name) and op_name[i + 1].islower() and op_name[i - 1] != "_")):
            out.append("_")
        out.append(c.lower())
    return "".join(out)


def _make_gen_op(op_name, inputs, attrs):
    raw = _make_raw_op(op_name, inputs, attrs)
    input_names = [n for n, _ in inputs]

    def gen_op(*args, name: Optional[str] = None, **kwargs):
        if len(args) > len(input_names):
            raise TypeError(f"{op_name} takes {len(input_names)} inputs, {len(args)} given")
        kwargs.update(zip(input_names, args))
        return raw(name=name, **kwargs)

    gen_op.__name__ = _snake_case(op_name)
    gen_op.__doc__ = (f"Adds a {op_name} node: {_snake_case(op_name)}"
                      f"({', '.join(input_names)}, *attrs, name=None).")
    return gen_op


raw_ops = types.ModuleType("minitf.raw_ops", "Every registered op, by its op name.")
gen_ops = types.ModuleType("minitf.gen_ops", "Every registered op as TensorFlow's gen_*_ops "
                           "name it: inputs positional, attrs as keyword arguments.")
for _name, _inputs, _attrs, _num_outputs, _stateful in _minitf.op_defs():
    if _name.isidentifier() and not keyword.iskeyword(_name):
        setattr(raw_ops, _name, _make_raw_op(_name, _inputs, _attrs))
        if not _name.startswith("_"):
            setattr(gen_ops, _snake_case(_name), _make_gen_op(_name, _inputs, _attrs))


# Graph inputs and constants.
def placeholder(dtype, shape=None, name: Optional[str] = None) -> Tensor:
    attrs = {"dtype": _dtypes.as_dtype(dtype)}
    if shape is not None:
        attrs["shape"] = list(shape)
    return _apply("Placeholder", [], attrs, name or "Placeholder")


def constant(value, dtype=None, name: Optional[str] = None) -> Tensor:
    array = convert_to_array(value) if dtype is None else np.asarray(
        value, dtype=_dtypes.as_dtype(dtype).as_numpy_dtype)
    return _apply("Const", [], {"dtype": _dtypes.as_dtype(array.dtype), "value": array},
                  name or "Const")


def _unary(op_type):
    def fn(x, name: Optional[str] = None):
        return _apply(op_type, [x], None, name)
    fn.__name__ = op_type
    return fn


def _binary(op_type):
    def fn(x, y, name: Optional[str] = None):
        return _apply(op_type, [x, y], None, name)
    fn.__name__ = op_type
    return fn


add = _binary("AddV2")
subtract = _binary("Sub")
multiply = _binary("Mul")
divide = _binary("RealDiv")
maximum = _binary("Maximum")
minimum = _binary("Minimum")
equal = _binary("Equal")
less = _binary("Less")
greater = _binary("Greater")
pow = _binary("Pow")  # noqa: A001 (TensorFlow's name)
squared_difference = _binary("SquaredDifference")
square = _unary("Square")
sqrt = _unary("Sqrt")
exp = _unary("Exp")
log = _unary("Log")
tanh = _unary("Tanh")
sigmoid = _unary("Sigmoid")
negative = _unary("Neg")
abs = _unary("Abs")  # noqa: A001
identity = _unary("Identity")
stop_gradient = _unary("StopGradient")
shape = _unary("Shape")
rank = _unary("Rank")
size = _unary("Size")


def add_n(inputs, name: Optional[str] = None):
    return _apply("AddN", [list(inputs)], None, name)


def matmul(a, b, transpose_a=False, transpose_b=False, name: Optional[str] = None):
    return _apply("MatMul", [a, b], {"transpose_a": transpose_a, "transpose_b": transpose_b},
                  name)


def cast(x, dtype, name: Optional[str] = None):
    return _apply("Cast", [x], {"DstT": _dtypes.as_dtype(dtype)}, name)


def reshape(tensor, shape, name: Optional[str] = None):
    return _apply("Reshape", [tensor, shape], None, name)


def transpose(a, perm, name: Optional[str] = None):
    return _apply("Transpose", [a, perm], None, name)


def fill(dims, value, name: Optional[str] = None):
    return _apply("Fill", [dims, value], None, name)


def zeros(shape, dtype=_dtypes.float32, name: Optional[str] = None):
    return fill(list(shape), np.zeros([], _dtypes.as_dtype(dtype).as_numpy_dtype), name or "zeros")


def ones(shape, dtype=_dtypes.float32, name: Optional[str] = None):
    return fill(list(shape), np.ones([], _dtypes.as_dtype(dtype).as_numpy_dtype), name or "ones")


def _axes(input_tensor, axis):
    if axis is None:  # Every axis: range(rank), computed in the graph.
        return _apply("Range", [np.int32(0), rank(input_tensor), np.int32(1)], None,
                      "reduction_indices")
    return np.asarray(axis, np.int32)


def _reduction(op_type):
    def fn(input_tensor, axis=None, keepdims=False, name: Optional[str] = None):
        return _apply(op_type, [input_tensor, _axes(input_tensor, axis)],
                      {"keep_dims": bool(keepdims)}, name)
    fn.__name__ = op_type
    return fn


reduce_sum = _reduction("Sum")
reduce_mean = _reduction("Mean")
reduce_max = _reduction("Max")
reduce_min = _reduction("Min")
reduce_prod = _reduction("Prod")


def argmax(input, axis=None, output_type=_dtypes.int64, name: Optional[str] = None):  # noqa: A002
    return _apply("ArgMax", [input, np.int32(0 if axis is None else axis)],
                  {"output_type": _dtypes.as_dtype(output_type)}, name)


def random_normal(shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, seed=None,
                  name: Optional[str] = None):
    attrs = {"dtype": _dtypes.as_dtype(dtype), "seed": seed or 0, "seed2": 0}
    sample = _apply("RandomStandardNormal", [np.asarray(list(shape), np.int32)], attrs,
                    (name or "random_normal") + "/RandomStandardNormal")
    return sample * stddev + mean


def no_op(name: Optional[str] = None) -> Operation:
    return _apply("NoOp", [], None, name)


def group(*inputs, name: Optional[str] = None) -> Operation:
    """A NoOp that runs after every input (``tf.group``)."""
    graph = get_default_graph()
    with graph.control_dependencies(list(inputs)):
        return no_op(name or "group_deps")


def gradients(ys, xs, grad_ys=None, name: str = "gradients"):
    """The symbolic gradients of sum(ys) with respect to each of xs; None where
    no y depends on an x (``tf.gradients``)."""
    ys = list(ys) if isinstance(ys, (list, tuple)) else [ys]
    single = not isinstance(xs, (list, tuple))
    xs = [xs] if single else list(xs)
    graph = ys[0].graph
    grad_ys = [] if grad_ys is None else list(grad_ys)
    outputs = graph._graph.gradients([y._as_output() for y in ys], [x._as_output() for x in xs],
                                     [g._as_output() for g in grad_ys])
    return [None if o is None else graph._wrap_output(o) for o in outputs]


class _Namespace(types.SimpleNamespace):
    pass


def _softmax_cross_entropy_with_logits_v2(labels, logits, name: Optional[str] = None):
    return _apply("SoftmaxCrossEntropyWithLogits", [logits, labels], None, name)[0]


def _sparse_softmax_cross_entropy_with_logits(labels=None, logits=None,
                                              name: Optional[str] = None):
    return _apply("SparseSoftmaxCrossEntropyWithLogits", [logits, labels], None, name)[0]


def _bias_add(value, bias, data_format: Optional[str] = None, name: Optional[str] = None):
    """tf.nn.bias_add: data_format "N...C" (NHWC, the default) or "NC..." (NCHW)."""
    attrs = None
    if data_format is not None:
        if data_format.startswith("NC"):
            attrs = {"data_format": "NCHW"}
        elif data_format.startswith("N") and data_format.endswith("C"):
            attrs = {"data_format": "NHWC"}
        else:
            raise ValueError(
                f"data_format must be of the form `N...C` or `NC...`, got {data_format!r}")
    return _apply("BiasAdd", [value, bias], attrs, name)


nn = _Namespace(
    relu=_unary("Relu"), relu6=_unary("Relu6"), elu=_unary("Elu"), sigmoid=sigmoid, tanh=tanh,
    softmax=_unary("Softmax"), log_softmax=_unary("LogSoftmax"), bias_add=_bias_add,
    softmax_cross_entropy_with_logits_v2=_softmax_cross_entropy_with_logits_v2,
    softmax_cross_entropy_with_logits=_softmax_cross_entropy_with_logits_v2,
    sparse_softmax_cross_entropy_with_logits=_sparse_softmax_cross_entropy_with_logits,
)
math = _Namespace(add=add, subtract=subtract, multiply=multiply, divide=divide, square=square,
                  sqrt=sqrt, exp=exp, log=log, tanh=tanh, sigmoid=sigmoid, abs=abs,
                  reduce_sum=reduce_sum, reduce_mean=reduce_mean, argmax=argmax, equal=equal,
                  maximum=maximum, minimum=minimum)
