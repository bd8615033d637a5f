"""minitf from Python: TensorFlow's v1 API over minitf's runtime.

    import minitf as tf

    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.Variable(tf.random_normal([3, 1]), name="w")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, {x: batch})

Graphs TensorFlow wrote run the same way: ``tf.Session(graph="model.pb")``.
Errors are ``minitf.errors``' classes, named as ``tf.errors``'.
"""

import types as _types

from minitf import datasets, errors
from minitf.dtypes import DType, as_dtype, bool, double, float32, float64, int32, int64, resource
from minitf.framework import (Graph, GraphDef, Operation, Tensor, control_dependencies, device,
                              get_default_graph, name_scope, reset_default_graph)
from minitf.ops import (abs, add, add_n, argmax, cast, constant, divide, equal, exp, fill,
                        gen_ops, gradients, greater, group, identity, less, log, math, matmul, maximum,
                        minimum, multiply, negative, nn, no_op, ones, placeholder, pow,
                        random_normal, rank, raw_ops, reduce_max, reduce_mean, reduce_min,
                        reduce_prod, reduce_sum, reshape, shape, sigmoid, size, sqrt, square,
                        squared_difference, stop_gradient, subtract, tanh, transpose, zeros)
from minitf.control_flow import cond, while_loop
from minitf.coordinator import Coordinator
from minitf.harness import ColocationResult, colocate, run_job
from minitf.session import (ConfigProto, RunMetadata, RunOptions, Session,
                            get_default_session)
from minitf.variables import (AdamOptimizer, GradientDescentOptimizer, MomentumOptimizer,
                              Optimizer, Variable, global_variables,
                              global_variables_initializer, trainable_variables)

train = _types.SimpleNamespace(GradientDescentOptimizer=GradientDescentOptimizer,
                               MomentumOptimizer=MomentumOptimizer, AdamOptimizer=AdamOptimizer,
                               Optimizer=Optimizer)

def disable_eager_execution() -> None:
    """TensorFlow 2's switch to graph mode: minitf is always in graph mode."""


def _compat_v1() -> _types.ModuleType:
    # tf.compat.v1: the same API, for scripts written against it.
    module = _types.ModuleType("minitf.compat.v1", "TensorFlow's v1 API (the whole of minitf).")
    for key, value in globals().items():
        if not key.startswith("_"):
            setattr(module, key, value)
    return module


compat = _types.SimpleNamespace(v1=_compat_v1())
__version__ = "0.1.0"
