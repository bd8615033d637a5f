"""Variables and optimizers as TensorFlow 1.x's (``tf.Variable``,
``tf.compat.v1.train.*Optimizer``), over minitf's C++ variables and
optimizers (ops/cc/variables.h, ops/cc/optimizers.h)."""

from __future__ import annotations

from typing import Optional

import numpy as np

from minitf import dtypes as _dtypes
from minitf.framework import (Operation, Tensor, _apply, convert_to_array, get_default_graph)


class Variable(Tensor):
    """A ref variable (``tf.compat.v1.Variable``): a Tensor reading its
    value, with ``initializer`` (its Assign) and ``assign``."""

    def __init__(self, initial_value, trainable: bool = True, name: Optional[str] = None,
                 dtype=None):
        if isinstance(initial_value, Tensor):
            graph, value, shape = initial_value.graph, initial_value._as_output(), None
            base = initial_value.dtype
        else:
            graph = get_default_graph()
            array = convert_to_array(initial_value) if dtype is None else np.asarray(
                initial_value, _dtypes.as_dtype(dtype).as_numpy_dtype)
            value, shape, base = array, list(array.shape), _dtypes.as_dtype(array.dtype)
        node = graph.unique_name(name or "Variable")
        output = graph._graph.new_variable(node, shape, base.as_datatype_enum, value, trainable)
        wrapped = graph._wrap_output(output)
        wrapped.op.type = "VariableV2"
        super().__init__(wrapped.op, 0, base)
        wrapped.op.outputs[0] = self
        self.initializer = graph.get_operation_by_name_or_wrap(node + "/Assign")
        self.trainable = trainable
        self._output = output  # With the reference type Assign and the optimizers need.

    def _as_output(self):
        return self._output

    def assign(self, value, name: Optional[str] = None) -> Tensor:
        return _apply("Assign", [self, value], None, name)

    def assign_add(self, value, name: Optional[str] = None) -> Tensor:
        return _apply("AssignAdd", [self, value], None, name)

    def read_value(self) -> Tensor:
        return _apply("Identity", [self], None, self.op.name + "/read")


def global_variables_initializer(name: str = "init") -> Operation:
    graph = get_default_graph()
    node = graph._graph.global_variables_initializer(graph.unique_name(name))
    return graph.get_operation_by_name_or_wrap(node)


def global_variables():
    graph = get_default_graph()
    return [graph._wrap_output(o) for o in graph._graph.variables(False)]


def trainable_variables():
    graph = get_default_graph()
    return [graph._wrap_output(o) for o in graph._graph.variables(True)]


class Optimizer:
    """The optimizers of ``tf.compat.v1.train``: ``minimize(loss, var_list=None)``."""

    _kind = ""

    def __init__(self, **params):
        self._params = params

    def minimize(self, loss: Tensor, var_list=None, name: Optional[str] = None) -> Operation:
        graph = loss.graph
        variables = var_list if var_list is not None else []
        node = graph._graph.minimize(self._kind, self._params, loss._as_output(),
                                     [v._as_output() for v in variables],
                                     name or self._kind)
        return graph.get_operation_by_name_or_wrap(node)


class GradientDescentOptimizer(Optimizer):
    _kind = "GradientDescent"

    def __init__(self, learning_rate: float, use_locking: bool = False):
        super().__init__(learning_rate=learning_rate, use_locking=use_locking)


class MomentumOptimizer(Optimizer):
    _kind = "Momentum"

    def __init__(self, learning_rate: float, momentum: float, use_locking: bool = False,
                 use_nesterov: bool = False):
        super().__init__(learning_rate=learning_rate, momentum=momentum,
                         use_locking=use_locking, use_nesterov=use_nesterov)


class AdamOptimizer(Optimizer):
    _kind = "Adam"

    def __init__(self, learning_rate: float = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8):
        super().__init__(learning_rate=learning_rate, beta1=beta1, beta2=beta2, epsilon=epsilon)
