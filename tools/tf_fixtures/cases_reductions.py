"""Reductions over many floats: TensorFlow's answers for Sum, Mean,
BiasAddGrad and UnsortedSegmentSum over up to 10^8 elements, and for the
losses that add up a row or a tensor (Softmax, LogSoftmax, both
cross-entropies, L2Loss), made in the graph (Fill, seeded
RandomUniform), so the fixture stores only the graph and the results. A sum
that adds one float at a time drifts far from these (20,000,000 ones sum to
16777216 in float); TensorFlow's Eigen reductions add in blocks."""

import collections

import numpy as np
import tensorflow as tf

from common import Case, imported_session


def filled(name, dims, value):
    return tf.raw_ops.Fill(dims=tf.constant(dims, dtype=tf.int64, name=name + "/dims"),
                           value=tf.constant(value, dtype=tf.float32, name=name + "/value"),
                           name=name)


def uniform(name, dims, seed, seed2):
    return tf.raw_ops.RandomUniform(shape=tf.constant(dims, dtype=tf.int32, name=name + "/shape"),
                                    dtype=tf.float32, seed=seed, seed2=seed2, name=name)


def axes(name, values):
    return tf.constant(values, dtype=tf.int32, name=name)


# TensorFlow adds floats in blocks, but its column and middle-axis sums (and
# BiasAddGrad, whose threads split the rows) still drift by up to 3e-5 of
# the exact sum here; minitf adds in double. Both must be this close to the
# exact sum, far closer than a float added one at a time (1e-4 to 1e-1).
RTOL = 5e-5


def check_against_exact(results, inputs):
    """TensorFlow's answers are within RTOL of the sums numpy takes in float64
    of the same random values."""
    noise = inputs["noise:0"].astype(np.float64)
    grads = inputs["grads:0"].astype(np.float64)
    exact = {
        "sum_noise:0": noise.sum(),
        "mean_noise:0": noise.mean(),
        "sum_rows:0": inputs["rows:0"].astype(np.float64).sum(1),
        "sum_columns:0": inputs["columns:0"].astype(np.float64).sum(0),
        "mean_middle:0": inputs["middle:0"].astype(np.float64).mean(1),
        "bias_grad_nhwc:0": grads.sum((0, 1, 2)),
        "bias_grad_nchw:0": grads.reshape(1, 2, 3000, 3000).sum((0, 2, 3)),
        "segment_sum:0": np.array([noise[inputs["segment_ids:0"] == k].sum() for k in (0, 1)]),
    }
    for name, want in exact.items():
        got = np.asarray(results[name], dtype=np.float64)
        assert np.allclose(got, want, rtol=RTOL, atol=0), (name, got, want)


def reductions_accuracy(root):
    graph = tf.Graph()
    with graph.as_default():
        ones = filled("ones_2e7", [20000000], 1.0)
        tf.raw_ops.Sum(input=ones, axis=axes("a0", [0]), name="sum_ones_2e7")
        tf.raw_ops.Mean(input=ones, axis=axes("a1", [0]), name="mean_ones_2e7")
        tenth = filled("tenth_1e6", [1000000], 0.1)
        tf.raw_ops.Mean(input=tenth, axis=axes("a2", [0]), name="mean_tenth_1e6")
        # One ResNet-50 input batch of 0.1, reduced over every axis.
        batch = filled("batch", [32, 224, 224, 3], 0.1)
        tf.raw_ops.Mean(input=batch, axis=axes("a3", [0, 1, 2, 3]), name="mean_batch")
        noise = uniform("noise", [10000000], 5, 7)
        tf.raw_ops.Sum(input=noise, axis=axes("a4", [0]), name="sum_noise")
        tf.raw_ops.Mean(input=noise, axis=axes("a5", [0]), name="mean_noise")
        # Rows, columns and a middle axis: each way a reduction folds.
        rows = uniform("rows", [2, 8000000], 3, 4)
        tf.raw_ops.Sum(input=rows, axis=axes("a6", [1]), name="sum_rows")
        columns = uniform("columns", [8000000, 2], 5, 6)
        tf.raw_ops.Sum(input=columns, axis=axes("a7", [0]), name="sum_columns")
        middle = uniform("middle", [2, 4000000, 2], 8, 9)
        tf.raw_ops.Mean(input=middle, axis=axes("a8", [1]), name="mean_middle")
        # BiasAddGrad sums every channel over N*H*W (NHWC and NCHW).
        grads = uniform("grads", [1, 3000, 3000, 2], 10, 11)
        tf.raw_ops.BiasAddGrad(out_backprop=grads, data_format="NHWC", name="bias_grad_nhwc")
        tf.raw_ops.BiasAddGrad(out_backprop=tf.reshape(grads, [1, 2, 3000, 3000]),
                               data_format="NCHW", name="bias_grad_nchw")
        # UnsortedSegmentSum adds 5,000,000 rows into each of two segments.
        segment_ids = tf.math.floormod(tf.range(10000000, name="ids/range"), 2,
                                       name="segment_ids")
        tf.raw_ops.UnsortedSegmentSum(data=noise, segment_ids=segment_ids,
                                      num_segments=tf.constant(2, name="num_segments"),
                                      name="segment_sum")
        # 10^8 ones, alone in the second Run.
        hundred_million = filled("ones_1e8", [100000000], 1.0)
        tf.raw_ops.Sum(input=hundred_million, axis=axes("a9", [0]), name="sum_ones_1e8")
    graph_def = graph.as_graph_def()

    case = Case(root, "reductions_accuracy",
                "Sum, Mean, BiasAddGrad and UnsortedSegmentSum over 10^6 to 10^8 floats "
                "made in the graph (Fill, seeded RandomUniform): rows, columns, a middle "
                "axis, every axis of a ResNet-50 input batch. fetches: the first Run; "
                "fetches2: the "
                "sum of 10^8 ones, alone in a second Run (400 MB).")
    case.write_graph(graph_def)
    fetches = ["sum_ones_2e7:0", "mean_ones_2e7:0", "mean_tenth_1e6:0", "mean_batch:0",
               "sum_noise:0", "mean_noise:0", "sum_rows:0", "sum_columns:0", "mean_middle:0",
               "bias_grad_nhwc:0", "bias_grad_nchw:0", "segment_sum:0"]
    inputs = ["noise:0", "rows:0", "columns:0", "middle:0", "grads:0", "segment_ids:0"]
    with imported_session(graph_def) as sess:
        values = sess.run(fetches + inputs)
        second = sess.run(["sum_ones_1e8:0"])
    first = values[:len(fetches)]
    check_against_exact(dict(zip(fetches, first)), dict(zip(inputs, values[len(fetches):])))
    case.save_map("feeds", {})
    case.save_map("fetches", collections.OrderedDict(zip(fetches, first)))
    case.save_map("feeds2", {}, "2")
    case.save_map("fetches2", collections.OrderedDict(zip(["sum_ones_1e8:0"], second)), "2")
    case.set(rtol=RTOL, atol=0,
             tolerance_note="TensorFlow's float sums are within 3e-5 of the exact sums "
                            "(checked in float64 when written); a float added one at a "
                            "time is off by 1e-4 to 1e-1")
    return case


def check_losses_against_exact(results, logits, weights):
    """TensorFlow's losses are within RTOL of the float64 ones."""
    x = logits.astype(np.float64)
    shifted = x - x.max(1, keepdims=True)
    log_sum = np.log(np.exp(shifted).sum(1))
    classes = x.shape[1]
    exact = {
        "softmax_row_sums:0": np.ones(x.shape[0]),
        "log_softmax_row_sums:0": np.ones(x.shape[0]),
        "sparse_loss:0": log_sum - shifted[np.arange(x.shape[0]), [0, classes - 1]],
        "sparse_backprop_sums:0": np.ones(x.shape[0]),
        "dense_loss:0": log_sum - shifted.mean(1),
        "dense_backprop_sums:0": np.ones(x.shape[0]),
        "l2_loss:0": (weights.astype(np.float64) ** 2).sum() / 2,
    }
    for name, want in exact.items():
        got = np.asarray(results[name], dtype=np.float64)
        assert np.allclose(got, want, rtol=RTOL, atol=0), (name, got, want)


def losses_accuracy(root):
    """Rows of 4,000,000 logits: each loss adds 4e6 exponentials, about
    2.5e6 in all, where a float added one at a time is off by 1e-3."""
    classes = 4000000
    graph = tf.Graph()
    with graph.as_default():
        logits = uniform("logits", [2, classes], 12, 13)
        one = tf.constant(1.0, name="one")
        along_rows = axes("a_rows", [1])
        softmax = tf.raw_ops.Softmax(logits=logits, name="softmax")
        tf.raw_ops.Sum(input=softmax, axis=along_rows, name="softmax_row_sums")
        log_softmax = tf.raw_ops.LogSoftmax(logits=logits, name="log_softmax")
        tf.raw_ops.Sum(input=tf.exp(log_softmax, name="exp_log_softmax"), axis=along_rows,
                       name="log_softmax_row_sums")
        # A backprop row sums to 0 (softmax minus labels summing to 1): 1 is
        # added so that the relative tolerance applies.
        labels = tf.constant([0, classes - 1], dtype=tf.int64, name="labels")
        sparse = tf.raw_ops.SparseSoftmaxCrossEntropyWithLogits(features=logits, labels=labels,
                                                               name="sparse")
        tf.identity(sparse[0], name="sparse_loss")
        tf.raw_ops.AddV2(x=tf.raw_ops.Sum(input=sparse[1], axis=along_rows,
                                          name="sparse_backprop_raw_sums"),
                         y=one, name="sparse_backprop_sums")
        uniform_labels = filled("uniform_labels", [2, classes], 1.0 / classes)
        dense = tf.raw_ops.SoftmaxCrossEntropyWithLogits(features=logits, labels=uniform_labels,
                                                         name="dense")
        tf.identity(dense[0], name="dense_loss")
        tf.raw_ops.AddV2(x=tf.raw_ops.Sum(input=dense[1], axis=along_rows,
                                          name="dense_backprop_raw_sums"),
                         y=one, name="dense_backprop_sums")
        weights = uniform("weights", [10000000], 14, 15)
        tf.raw_ops.L2Loss(t=weights, name="l2_loss")
    graph_def = graph.as_graph_def()

    case = Case(root, "losses_accuracy",
                "Softmax, LogSoftmax, SparseSoftmaxCrossEntropyWithLogits and "
                "SoftmaxCrossEntropyWithLogits over rows of 4,000,000 seeded logits (a row's "
                "softmax, or its backprop plus 1, summed), and L2Loss of 10^7 values.")
    case.write_graph(graph_def)
    fetches = ["softmax_row_sums:0", "log_softmax_row_sums:0", "sparse_loss:0",
               "sparse_backprop_sums:0", "dense_loss:0", "dense_backprop_sums:0", "l2_loss:0"]
    with imported_session(graph_def) as sess:
        values = sess.run(fetches + ["logits:0", "weights:0"])
    results = dict(zip(fetches, values[:len(fetches)]))
    check_losses_against_exact(results, values[-2], values[-1])
    case.save_map("feeds", {})
    case.save_map("fetches", collections.OrderedDict(zip(fetches, values[:len(fetches)])))
    case.set(rtol=RTOL, atol=0,
             tolerance_note="TensorFlow's losses are within 5e-5 of the float64 ones (checked "
                            "when written); a float added one at a time is off by about 1e-3")
    return case


CASES = [reductions_accuracy, losses_accuracy]
