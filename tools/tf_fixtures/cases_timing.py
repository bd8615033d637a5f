"""Timing graphs: full-size ResNet-50 v1.5 (NHWC, and NCHW for a GPU's
layout pass) and BERT-base training steps.
Weights come from TensorFlow's random initializers inside the graph (a fixed
graph seed keeps graph.pb identical between runs); no outputs are recorded.
The manifest describes each feed by shape, dtype and distribution."""

import collections
import json
import os
import time

import numpy as np
import tensorflow as tf

import layers
from common import Case, imported_session, numpy_rng

UPDATE_OPS = tf.compat.v1.GraphKeys.UPDATE_OPS
TIMING_DIR_LIMIT = 8 * 1024 * 1024


def he_init():
    return tf.compat.v1.variance_scaling_initializer(scale=2.0, mode="fan_in",
                                                     distribution="truncated_normal")


def conv_bn(x, name, size, filters, stride, relu=True, data_format="NHWC"):
    """Conv (no bias) + batch norm [+ relu].  Strided convs wider than 1x1
    pad explicitly and run VALID, as the reference ResNet does."""
    nchw = data_format == "NCHW"
    with tf.compat.v1.variable_scope(name):
        padding = "SAME"
        if stride > 1:
            padding = "VALID"
            if size > 1:
                before = (size - 1) // 2
                after = size - 1 - before
                spatial = [[before, after], [before, after]]
                x = tf.pad(x, [[0, 0], [0, 0]] + spatial if nchw else
                           [[0, 0]] + spatial + [[0, 0]])
        channels = int(x.shape[1 if nchw else -1])
        x = layers.conv2d(x, "conv", [size, size, channels, filters], he_init(),
                          stride=stride, padding=padding, data_format=data_format)
        x = layers.batch_norm(x, "bn", momentum=0.9, epsilon=1e-5, data_format=data_format)
        return tf.nn.relu(x) if relu else x


def bottleneck(x, name, filters, stride, project, data_format="NHWC"):
    """ResNet v1.5 bottleneck: the stride sits on the 3x3 convolution; the
    first block of a stage projects the shortcut with a strided 1x1 conv."""
    with tf.compat.v1.variable_scope(name):
        shortcut = (conv_bn(x, "shortcut", 1, 4 * filters, stride, relu=False,
                            data_format=data_format) if project else x)
        y = conv_bn(x, "a", 1, filters, 1, data_format=data_format)
        y = conv_bn(y, "b", 3, filters, stride, data_format=data_format)
        y = conv_bn(y, "c", 1, 4 * filters, 1, relu=False, data_format=data_format)
        return tf.nn.relu(y + shortcut)


def resnet50_train(root, data_format="NHWC"):
    batch, classes = 32, 1000
    nchw = data_format == "NCHW"
    image_shape = [batch, 3, 224, 224] if nchw else [batch, 224, 224, 3]
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.set_random_seed(50)
        images = tf.compat.v1.placeholder(tf.float32, image_shape, name="images")
        labels = tf.compat.v1.placeholder(tf.int32, [batch], name="labels")
        with tf.compat.v1.variable_scope("resnet50"):
            x = conv_bn(images, "stem", 7, 64, 2, data_format=data_format)
            x = tf.nn.max_pool2d(x, 3, 2, "SAME", data_format=data_format)
            for stage, (blocks, filters) in enumerate(zip([3, 4, 6, 3], [64, 128, 256, 512])):
                for block in range(blocks):
                    stride = 2 if stage > 0 and block == 0 else 1
                    x = bottleneck(x, "stage%d_block%d" % (stage + 1, block + 1), filters,
                                   stride, project=block == 0, data_format=data_format)
            x = tf.reduce_mean(x, axis=[2, 3] if nchw else [1, 2])
            logits = layers.dense(x, "fc", classes,
                                  tf.compat.v1.random_normal_initializer(stddev=0.01))
        xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        loss = tf.reduce_mean(xent, name="loss")
        with tf.control_dependencies(tf.compat.v1.get_collection(UPDATE_OPS)):
            opt = tf.compat.v1.train.MomentumOptimizer(0.1, momentum=0.9)
            opt.minimize(loss, name="train")
        tf.compat.v1.global_variables_initializer()
    feeds = collections.OrderedDict([
        ("images:0", {"shape": image_shape, "dtype": "float32", "random": "normal"}),
        ("labels:0", {"shape": [batch], "dtype": "int32", "random": "uniform_int",
                      "low": 0, "high": classes}),
    ])
    if nchw:
        return write_timing(root, "resnet50_nchw_train", graph, feeds,
                            "Timing graph: resnet50_train's network and step with every "
                            "image node in NCHW (images [32,3,224,224]; Conv2D, "
                            "FusedBatchNormV3, MaxPool, the padding and the mean in NCHW), as "
                            "a GPU model is often written; what a GPU's layout pass has to "
                            "work on. Variables start from in-graph random initializers; no "
                            "expected outputs.")
    return write_timing(root, "resnet50_train", graph, feeds,
                        "Timing graph: ResNet-50 v1.5 training step (stride on the 3x3 conv "
                        "of each bottleneck, fused batch norm in training mode with moving "
                        "averages in UPDATE_OPS, MomentumOptimizer(0.1, 0.9)), batch 32 of "
                        "224x224x3 images; loss:0 is the mean sparse softmax cross-entropy. "
                        "Variables start from in-graph random initializers; no expected "
                        "outputs.")


def resnet50_nchw_train(root):
    return resnet50_train(root, data_format="NCHW")


def bert_train(root):
    batch, seq, hidden, heads, ffn, n_layers, vocab = 8, 128, 768, 12, 3072, 12, 30522
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.set_random_seed(768)
        init = tf.compat.v1.truncated_normal_initializer(stddev=0.02)

        def inits(name, shape):
            return init

        ids = tf.compat.v1.placeholder(tf.int32, [batch, seq], name="input_ids")
        mask = tf.compat.v1.placeholder(tf.int32, [batch, seq], name="input_mask")
        labels = tf.compat.v1.placeholder(tf.int32, [batch], name="labels")
        with tf.compat.v1.variable_scope("bert"):
            with tf.compat.v1.variable_scope("embeddings"):
                words = layers.variable("word_embeddings", [vocab, hidden], init)
                positions = layers.variable("position_embeddings", [512, hidden], init)
                h = tf.gather(words, tf.reshape(ids, [-1]))
                h = tf.reshape(h, [batch, seq, hidden]) + tf.slice(positions, [0, 0],
                                                                   [seq, hidden])
                h = layers.layer_norm(tf.reshape(h, [batch * seq, hidden]), "norm")
            bias = (1.0 - tf.cast(mask, tf.float32)) * -10000.0
            bias = tf.reshape(bias, [batch, 1, 1, seq])
            for i in range(n_layers):
                h = layers.encoder_layer(h, "layer_%d" % i, batch, seq, heads, ffn, inits,
                                         bias, approximate_gelu=True)
            first = tf.reshape(h, [batch, seq, hidden])[:, 0, :]
            pooled = tf.tanh(layers.dense(first, "pooler", hidden, init))
            logits = layers.dense(pooled, "classifier", 2, init)
        xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        loss = tf.reduce_mean(xent, name="loss")
        opt = tf.compat.v1.train.AdamOptimizer(1e-4, epsilon=1e-6)
        opt.minimize(loss, name="train")
        tf.compat.v1.global_variables_initializer()
    feeds = collections.OrderedDict([
        ("input_ids:0", {"shape": [batch, seq], "dtype": "int32", "random": "uniform_int",
                         "low": 0, "high": vocab}),
        ("input_mask:0", {"shape": [batch, seq], "dtype": "int32", "random": "ones"}),
        ("labels:0", {"shape": [batch], "dtype": "int32", "random": "uniform_int",
                      "low": 0, "high": 2}),
    ])
    return write_timing(root, "bert_train", graph, feeds,
                        "Timing graph: BERT-base encoder training step (12 layers, hidden "
                        "768, 12 heads, intermediate 3072, tanh GELU), batch 8, sequence 128; "
                        "word embeddings 30522x768 via GatherV2, position embeddings, "
                        "attention mask from input_mask, [CLS] pooler + 2-way classifier, "
                        "sparse softmax cross-entropy (loss:0), AdamOptimizer(1e-4). "
                        "Variables start from in-graph random initializers; no expected "
                        "outputs.")


def write_timing(root, name, graph, feeds, description):
    case = Case(root, name, description)
    case.size_limit = TIMING_DIR_LIMIT
    case.write_graph(graph.as_graph_def(), text=False)
    case.set(init="init", feeds=feeds, target="train")
    return case


def random_feed(spec, rng):
    """A feed array from a manifest feed object."""
    shape, dtype, kind = spec["shape"], np.dtype(spec["dtype"]), spec["random"]
    if kind == "normal":
        return rng.standard_normal(shape).astype(dtype)
    if kind == "uniform_int":
        return rng.integers(spec["low"], spec["high"], size=shape).astype(dtype)
    if kind == "ones":
        return np.ones(shape, dtype)
    raise ValueError("unknown feed distribution %r" % kind)


def smoke(root, name, steps=2):
    """Runs init and `steps` training steps of a timing case from its files;
    returns [(seconds, loss)] per step."""
    case_dir = os.path.join(root, name)
    with open(os.path.join(case_dir, "manifest.json")) as f:
        manifest = json.load(f)
    graph_def = tf.compat.v1.GraphDef()
    with open(os.path.join(case_dir, manifest["graph"]), "rb") as f:
        graph_def.ParseFromString(f.read())
    rng = numpy_rng(0)
    feeds = {n: random_feed(spec, rng) for n, spec in manifest["feeds"].items()}
    results = []
    with imported_session(graph_def) as sess:
        sess.run(manifest["init"])
        for _ in range(steps):
            start = time.time()
            _, loss = sess.run([manifest["target"], "loss:0"], feed_dict=feeds)
            results.append((time.time() - start, float(loss)))
    return results


CASES = [resnet50_train, bert_train, resnet50_nchw_train]
