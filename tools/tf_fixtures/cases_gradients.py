"""Gradient fixtures: a forward graph written by TensorFlow before it adds
any gradient, and the gradients tf.gradients computes of its loss with
respect to each placeholder.  minitf derives its own gradients of the same
graph (AddSymbolicGradients) and compares."""

import collections

import numpy as np
import tensorflow as tf

from common import Case, imported_session, normal, numpy_rng


def gradients_tf(root):
    case = Case(root, "gradients_tf",
                "Forward graph only (TensorFlow's gradient ops are not in the file): an MLP "
                "branch (MatMul, BiasAdd, Tanh, broadcasting Mul/AddV2, Relu, ConcatV2 with "
                "Sigmoid, StridedSlice, SparseSoftmaxCrossEntropyWithLogits, Mean), a conv "
                "branch (Conv2D SAME, FusedBatchNormV3 training, Relu, MaxPool, AvgPool, "
                "Reshape, Max), an embedding branch (GatherV2 with a repeated index, "
                "Square, Sum), and elementwise and array ops (BatchMatMulV2 broadcasting, "
                "SquaredDifference, RealDiv, Pow, Sqrt, Log, Exp, Maximum, Minimum, SelectV2, "
                "Pad, Tile, Transpose, Softmax, LogSoftmax, Abs, Sub, Neg).  gradients: "
                "tf.gradients of loss:0 with respect to each placeholder.")
    rng = numpy_rng(401)
    values = collections.OrderedDict([
        ("x", normal(rng, [4, 6], 1.0)),
        ("w1", normal(rng, [6, 8], 0.5)),
        ("b1", normal(rng, [8], 0.1)),
        ("scale", normal(rng, [8], 1.0)),
        ("shift", normal(rng, [1, 8], 0.2)),
        ("w2", normal(rng, [8, 3], 0.5)),
        ("img", normal(rng, [2, 5, 5, 2], 1.0)),
        ("kernel", normal(rng, [3, 3, 2, 3], 0.4)),
        ("gamma", (1.0 + normal(rng, [3], 0.1)).astype(np.float32)),
        ("beta", normal(rng, [3], 0.1)),
        ("emb", normal(rng, [5, 4], 1.0)),
        ("a", normal(rng, [2, 3, 4], 1.0)),
        ("b", normal(rng, [4, 2], 1.0)),
        ("u", normal(rng, [3, 4], 1.0)),
        ("v", normal(rng, [4], 1.0)),
    ])
    labels = np.array([0, 2, 1, 2], np.int32)

    graph = tf.Graph()
    with graph.as_default():
        p = collections.OrderedDict(
            (name, tf.compat.v1.placeholder(tf.float32, value.shape, name=name))
            for name, value in values.items())
        lab = tf.compat.v1.placeholder(tf.int32, [4], name="labels")
        # MLP branch.
        h = tf.tanh(tf.nn.bias_add(tf.matmul(p["x"], p["w1"]), p["b1"]))
        h = tf.nn.relu(h * p["scale"] + p["shift"])
        h = tf.concat([h, tf.sigmoid(h)], axis=1)[:, ::2]
        logits = tf.matmul(h, p["w2"])
        xent = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=lab, logits=logits))
        # Conv branch.
        c = tf.nn.conv2d(p["img"], p["kernel"], strides=1, padding="SAME")
        c, _, _ = tf.compat.v1.nn.fused_batch_norm(c, p["gamma"], p["beta"], is_training=True)
        c = tf.nn.max_pool2d(tf.nn.relu(c), 2, 2, "SAME")
        c = tf.nn.avg_pool2d(c, 2, 1, "SAME")
        conv = tf.reduce_max(tf.reshape(c, [2, -1]), axis=1)
        # Embedding branch.
        rows = tf.gather(p["emb"], [3, 1, 3])
        emb = tf.reduce_sum(tf.square(rows))
        # Elementwise and array ops.
        bm = tf.matmul(p["a"], p["b"])                      # BatchMatMulV2, [2,3,2]
        sq = tf.math.squared_difference(p["u"], p["v"])    # [3,4]
        pos = tf.sqrt(tf.square(p["u"]) + 1.0)
        mix = tf.pow(pos, 1.5) / (1.0 + tf.exp(-p["u"])) + tf.math.log(pos)
        mix = tf.maximum(mix, p["v"]) - tf.minimum(-mix, p["v"] * 0.5)
        mix = tf.where(p["u"] > 0.0, mix, -tf.abs(sq))
        mix = tf.tile(tf.pad(mix, [[1, 0], [0, 2]]), [1, 2])
        mix = tf.nn.softmax(tf.transpose(mix)) + tf.nn.log_softmax(tf.transpose(mix))
        loss = tf.add_n([xent, tf.reduce_mean(conv), 0.1 * emb,
                         tf.reduce_sum(tf.square(bm)) * 0.05, tf.reduce_mean(mix)], name="loss")
        forward = graph.as_graph_def()
    case.write_graph(forward)

    # The gradients, in a graph of their own over the file's nodes.
    feeds = collections.OrderedDict((name + ":0", value) for name, value in values.items())
    feeds["labels:0"] = labels
    with imported_session(forward) as sess:
        g = sess.graph
        xs = [g.get_tensor_by_name(name + ":0") for name in values]
        # Dense tensors: the gather's gradient is IndexedSlices.
        grads = [tf.convert_to_tensor(t) for t in tf.gradients(g.get_tensor_by_name("loss:0"), xs)]
        out = sess.run([g.get_tensor_by_name("loss:0")] + grads, feed_dict=feeds)
    case.save_map("feeds", feeds)
    case.save_map("fetches", collections.OrderedDict([("loss:0", out[0])]))
    case.save_map("gradients", collections.OrderedDict(
        (name + ":0", grad) for name, grad in zip(values, out[1:])), "_grad")
    return case


def gradients_cond_tf(root):
    case = Case(root, "gradients_cond_tf",
                "Forward graph only: a tf.compat.v1.cond (Switch, Merge, pivots) on a fed "
                "bool, whose true branch uses x, w and v (MatMul, Tanh, Mul) and whose false "
                "branch uses x and w only (StridedSlice, Square, Sigmoid, Sub); loss adds "
                "Mean(x) outside the cond.  gradients: tf.gradients of loss:0 with respect to "
                "x, w, v with the true branch taken (feeds), gradients2 with the false one "
                "(feeds2; v's gradient is zeros).")
    rng = numpy_rng(402)
    values = collections.OrderedDict([
        ("x", normal(rng, [3, 4], 1.0)),
        ("w", normal(rng, [4, 2], 0.5)),
        ("v", normal(rng, [2], 1.0)),
    ])
    graph = tf.Graph()
    with graph.as_default():
        p = collections.OrderedDict(
            (name, tf.compat.v1.placeholder(tf.float32, value.shape, name=name))
            for name, value in values.items())
        pred = tf.compat.v1.placeholder(tf.bool, [], name="pred")

        def true_fn():
            return tf.tanh(tf.matmul(p["x"], p["w"])) * p["v"]

        def false_fn():
            return tf.square(p["x"][:, :2]) - tf.sigmoid(tf.matmul(p["x"], p["w"]))

        out = tf.compat.v1.cond(pred, true_fn, false_fn)
        tf.add(tf.reduce_sum(out * 1.5), tf.reduce_mean(p["x"]), name="loss")
        forward = graph.as_graph_def()
    case.write_graph(forward)

    for suffix, taken in (("", True), ("2", False)):
        feeds = collections.OrderedDict((name + ":0", value) for name, value in values.items())
        feeds["pred:0"] = np.array(taken)
        with imported_session(forward) as sess:
            g = sess.graph
            loss = g.get_tensor_by_name("loss:0")
            grads = tf.gradients(loss, [g.get_tensor_by_name(n + ":0") for n in values])
            out = sess.run([loss] + grads, feed_dict=feeds)
        case.save_map("feeds" + suffix, feeds, suffix)
        case.save_map("fetches" + suffix, collections.OrderedDict([("loss:0", out[0])]), suffix)
        case.save_map("gradients" + suffix, collections.OrderedDict(
            (name + ":0", grad) for name, grad in zip(values, out[1:])), "_grad" + suffix)
    return case


CASES = [gradients_tf, gradients_cond_tf]
