"""Graphs built from Python, as TensorFlow 1.x builds them (``tf.Graph``,
``tf.Tensor``, ``tf.Operation``), over minitf's C++ graph builder.

Every op function adds a node to the default graph (``get_default_graph()``,
or the graph of a ``with graph.as_default():`` block) and returns its
outputs as Tensors; a Session given the graph runs it, and sees the nodes
added after it was made.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from minitf import _minitf
from minitf import dtypes as _dtypes


class GraphDef:
    """A serialized GraphDef: what ``Graph.as_graph_def()`` gives; TensorFlow's
    ``tf.compat.v1.GraphDef().ParseFromString(g.SerializeToString())`` reads it."""

    def __init__(self, data: bytes, text: str):
        self._data = data
        self._text = text

    def SerializeToString(self) -> bytes:  # noqa: N802 (protobuf's name)
        return self._data

    def __str__(self) -> str:
        return self._text


class Operation:
    """A node of a Graph."""

    def __init__(self, graph: "Graph", name: str, op_type: str, outputs: List["Tensor"]):
        self.graph = graph
        self.name = name
        self.type = op_type
        self.outputs = outputs
        # The cond branch or while loop it was made in (control_flow.py); None outside.
        self._context = graph._current_context()

    def __repr__(self) -> str:
        return f"<minitf.Operation '{self.name}' type={self.type}>"


class Tensor:
    """One output of an Operation: ``name`` is "node:index"."""

    def __init__(self, op: Operation, value_index: int, dtype: _dtypes.DType):
        self.op = op
        self.value_index = value_index
        self.dtype = dtype

    @property
    def name(self) -> str:
        return f"{self.op.name}:{self.value_index}"

    @property
    def graph(self) -> "Graph":
        return self.op.graph

    def _as_output(self):
        return (self.op.name, self.value_index, self.dtype.as_datatype_enum)

    def eval(self, feed_dict=None, session=None):
        """The tensor's value in `session` (or the default session)."""
        from minitf.session import get_default_session
        session = session or get_default_session()
        if session is None:
            raise ValueError("Cannot evaluate tensor using `eval()`: no default session is "
                             "registered. Use `with sess.as_default()` or pass session=")
        return session.run(self, feed_dict)

    def __repr__(self) -> str:
        return f"<minitf.Tensor '{self.name}' dtype={self.dtype.name}>"

    # Operators, as TensorFlow's Tensor overloads them.
    def __add__(self, other):
        return _apply("AddV2", [self, other])

    def __radd__(self, other):
        return _apply("AddV2", [other, self])

    def __sub__(self, other):
        return _apply("Sub", [self, other])

    def __rsub__(self, other):
        return _apply("Sub", [other, self])

    def __mul__(self, other):
        return _apply("Mul", [self, other])

    def __rmul__(self, other):
        return _apply("Mul", [other, self])

    def __truediv__(self, other):
        return _apply("RealDiv", [self, other])

    def __rtruediv__(self, other):
        return _apply("RealDiv", [other, self])

    def __matmul__(self, other):
        return _apply("MatMul", [self, other])

    def __neg__(self):
        return _apply("Neg", [self])

    def __floordiv__(self, other):
        return _apply("FloorDiv", [self, other])

    def __mod__(self, other):
        return _apply("FloorMod", [self, other])

    def __pow__(self, other):
        return _apply("Pow", [self, other])

    def __lt__(self, other):
        return _apply("Less", [self, other])

    def __gt__(self, other):
        return _apply("Greater", [self, other])

    __hash__ = object.__hash__


class Graph:
    """A dataflow graph under construction (``tf.Graph``)."""

    def __init__(self):
        self._graph = _minitf.Graph()
        self._ops: Dict[str, Operation] = {}
        self._name_stack: List[str] = []
        self._control_stack: List[List[str]] = []
        self._device_stack: List[str] = []
        self._context_stack: List[Any] = []

    def _current_context(self):
        return self._context_stack[-1] if self._context_stack else None

    @contextlib.contextmanager
    def _control_flow_context(self, context):
        """Ops made in the block belong to `context` (a cond branch, a while
        loop; None: outside every one)."""
        self._context_stack.append(context)
        try:
            yield context
        finally:
            self._context_stack.pop()

    # The default graph and scopes.
    @contextlib.contextmanager
    def as_default(self):
        _default_graphs.stack.append(self)
        try:
            yield self
        finally:
            _default_graphs.stack.pop()

    @contextlib.contextmanager
    def name_scope(self, name: str):
        self._name_stack.append(name)
        try:
            yield "/".join(self._name_stack) + "/"
        finally:
            self._name_stack.pop()

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs):
        names = [_op_of(c).name for c in (control_inputs or [])]
        self._control_stack.append(names)
        try:
            yield
        finally:
            self._control_stack.pop()

    @contextlib.contextmanager
    def device(self, device_name: str):
        self._device_stack.append(device_name)
        try:
            yield
        finally:
            self._device_stack.pop()

    def unique_name(self, name: str) -> str:
        full = "/".join(self._name_stack + [name])
        return self._graph.unique_name(full)

    # Nodes.
    def create_op(self, op_type: str, args: Sequence[Any], attrs: Dict[str, Any],
                  name: Optional[str] = None) -> Operation:
        node_name = self.unique_name(name or op_type)
        controls = [n for names in self._control_stack for n in names]
        device = self._device_stack[-1] if self._device_stack else ""
        context = self._current_context()
        if context is not None:
            # Tensors from outside a cond branch or a loop come in through
            # a Switch or an Enter, values become constants made inside (of
            # the type of the op's first tensor argument, as TensorFlow
            # converts them); an op with no tensor input (a constant) waits
            # on the context's pivot, so it runs in the branch or the loop.
            like = next((a.dtype for a in _flat(args) if isinstance(a, Tensor)), None)
            args = [context.bring_in(a, like) for a in args]
            if not any(isinstance(a, Tensor) and context.holds(a) for a in _flat(args)):
                controls.append(context.pivot.op.name)
        converted = [_as_arg(a, self) for a in args]
        outputs = self._graph.add_op(op_type, node_name, converted, _as_attrs(attrs), controls,
                                     device)
        op = Operation(self, node_name, op_type, [])
        op.outputs = [Tensor(op, i, _dtypes.as_dtype(_base_enum(t))) for _, i, t in outputs]
        self._ops[node_name] = op
        return op

    def get_operation_by_name(self, name: str) -> Operation:
        if name not in self._ops:
            raise KeyError(f"The name '{name}' refers to an Operation not in the graph.")
        return self._ops[name]

    def get_tensor_by_name(self, name: str) -> Tensor:
        op_name, _, index = name.partition(":")
        return self.get_operation_by_name(op_name).outputs[int(index or 0)]

    def get_operation_by_name_or_wrap(self, name: str) -> Operation:
        """The Operation named `name`, made for a node the C++ builder added."""
        if name not in self._ops:
            self._ops[name] = Operation(self, name, "", [])
        return self._ops[name]

    def get_operations(self) -> List[Operation]:
        return list(self._ops.values())

    def as_graph_def(self) -> GraphDef:
        return GraphDef(self._graph.serialize_from(0), self._graph.text())

    def _wrap_output(self, output) -> Tensor:
        node, index, dtype = output
        op = self._ops.get(node)
        if op is None:  # A node the C++ builder made (gradients, optimizers).
            op = Operation(self, node, "", [])
            self._ops[node] = op
        while len(op.outputs) <= index:
            op.outputs.append(None)
        if op.outputs[index] is None:
            op.outputs[index] = Tensor(op, index, _dtypes.as_dtype(_base_enum(dtype)))
        return op.outputs[index]


_REF_OFFSET = 100  # DataType's reference types are the base type + 100.


def _base_enum(enum: int) -> int:
    return enum - _REF_OFFSET if enum > _REF_OFFSET else enum


class _DefaultGraphs(threading.local):
    def __init__(self):
        self.stack: List[Graph] = []


_default_graphs = _DefaultGraphs()
_global_default_graph = Graph()


def get_default_graph() -> Graph:
    """The graph op functions add to (``tf.compat.v1.get_default_graph``)."""
    return _default_graphs.stack[-1] if _default_graphs.stack else _global_default_graph


def reset_default_graph() -> None:
    """A new, empty global default graph (``tf.compat.v1.reset_default_graph``)."""
    global _global_default_graph
    if _default_graphs.stack:
        raise AssertionError("Do not use reset_default_graph() inside a graph's as_default()")
    _global_default_graph = Graph()


def name_scope(name: str):
    return get_default_graph().name_scope(name)


def control_dependencies(control_inputs):
    return get_default_graph().control_dependencies(control_inputs)


def device(device_name: str):
    return get_default_graph().device(device_name)


def _op_of(value) -> Operation:
    if isinstance(value, Operation):
        return value
    if isinstance(value, Tensor):
        return value.op
    raise TypeError(f"Can not convert {value!r} into an Operation")


def convert_to_array(value) -> np.ndarray:
    """A Python value as TensorFlow's convert_to_tensor types it: floats are
    float32, ints int32 (int64 when they do not fit), arrays keep their dtype."""
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        return np.asarray(value)
    array = np.asarray(value)
    if array.dtype == np.float64:
        return array.astype(np.float32)
    if array.dtype == np.int64 and array.size and (
            array.max() <= np.iinfo(np.int32).max and array.min() >= np.iinfo(np.int32).min):
        return array.astype(np.int32)
    if array.dtype == np.int64 and not array.size:
        return array.astype(np.int32)
    return array


def _as_arg(value, graph: Graph):
    if isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) for v in value):
        return [_as_input(v, graph) for v in value]
    return _as_input(value, graph)


def _as_input(value, graph: Graph):
    if isinstance(value, Tensor):
        if value.graph is not graph:
            raise ValueError(f"Tensor {value.name} must be from the same graph as the op")
        return value._as_output()
    if isinstance(value, Operation):
        raise TypeError(f"Can not convert an Operation ({value.name}) into a Tensor")
    return convert_to_array(value)


def _as_attrs(attrs: Dict[str, Any]) -> Dict[str, Any]:
    out = {}
    for key, value in attrs.items():
        if value is None:
            continue
        if isinstance(value, _dtypes.DType):
            value = value.as_datatype_enum
        elif isinstance(value, (list, tuple)) and value and isinstance(value[0], _dtypes.DType):
            value = [v.as_datatype_enum for v in value]
        out[key] = value
    return out


def _apply(op_type: str, args: Sequence[Any], attrs: Optional[Dict[str, Any]] = None,
           name: Optional[str] = None):
    """Adds a node to the default graph (or to the graph of its Tensor inputs);
    returns its one output, a list of them, or the Operation when it has none."""
    graph = next((a.graph for a in _flat(args) if isinstance(a, Tensor)), None)
    graph = graph or get_default_graph()
    op = graph.create_op(op_type, args, attrs or {}, name)
    if not op.outputs:
        return op
    return op.outputs[0] if len(op.outputs) == 1 else op.outputs


def _flat(args):
    for a in args:
        if isinstance(a, (list, tuple)):
            yield from a
        else:
            yield a
