"""Random ops with fixed seeds: TensorFlow's numbers for RandomUniform,
RandomStandardNormal, TruncatedNormal and RandomUniformInt in float, double,
int32 and int64, with int32 and int64 shapes, over two Runs of one session
(the second continues each op's stream)."""

import collections

import numpy as np
import tensorflow as tf

from common import Case, imported_session

# (name, op, dtype, shape, shape dtype, seed, seed2, (minval, maxval) or None)
OPS = [
    ("uniform_f32", "RandomUniform", tf.float32, [3, 7], tf.int32, 7, 11, None),
    ("uniform_f64", "RandomUniform", tf.float64, [5], tf.int64, 123456789012, 42, None),
    ("normal_f32", "RandomStandardNormal", tf.float32, [5, 7], tf.int32, 1, 0, None),
    ("normal_f64", "RandomStandardNormal", tf.float64, [3, 3], tf.int32, 0, 5, None),
    ("truncated_f32", "TruncatedNormal", tf.float32, [6, 5], tf.int64, 87654321, 3, None),
    ("truncated_f64", "TruncatedNormal", tf.float64, [7], tf.int32, 9, 9, None),
    ("int_i32", "RandomUniformInt", tf.int32, [9], tf.int32, 4, 2, (-5, 100)),
    ("int_i64", "RandomUniformInt", tf.int64, [5], tf.int32, 6, 1, (-(1 << 40), (1 << 40) + 3)),
]


def random_ops(root):
    graph = tf.Graph()
    with graph.as_default():
        for name, op, dtype, shape, shape_dtype, seed, seed2, bounds in OPS:
            shape_t = tf.constant(shape, dtype=shape_dtype, name=name + "/shape")
            if bounds is None:
                getattr(tf.raw_ops, op)(shape=shape_t, dtype=dtype, seed=seed, seed2=seed2,
                                        name=name)
            else:
                lo = tf.constant(bounds[0], dtype=dtype, name=name + "/minval")
                hi = tf.constant(bounds[1], dtype=dtype, name=name + "/maxval")
                tf.raw_ops.RandomUniformInt(shape=shape_t, minval=lo, maxval=hi, seed=seed,
                                            seed2=seed2, name=name)
    graph_def = graph.as_graph_def()

    case = Case(root, "random_ops",
                "RandomUniform, RandomStandardNormal, TruncatedNormal and RandomUniformInt "
                "with fixed seed/seed2 attrs (float, double, int32, int64; int32 and int64 "
                "shapes; sizes that end in a partial group); fetches: the first Run, "
                "fetches2: the second Run of the same session, which continues each "
                "op's Philox stream.")
    case.write_graph(graph_def)
    fetches = [name + ":0" for name, *_ in OPS]
    with imported_session(graph_def) as sess:
        first = sess.run(fetches)
        second = sess.run(fetches)
    case.save_map("feeds", {})
    case.save_map("fetches", collections.OrderedDict(zip(fetches, first)))
    case.save_map("feeds2", {}, "2")
    case.save_map("fetches2", collections.OrderedDict(zip(fetches, second)), "2")
    # Box-Muller goes through logf/sincosf (log/sincos for double): the same
    # libm gives the same bits; allow an ulp or two for another one.
    case.set(rtol=1e-6, atol=1e-7,
             tolerance_note="uniform and integer values are exact; normals allow a few "
                            "ulps of libm difference")
    return case


CASES = [random_ops]
