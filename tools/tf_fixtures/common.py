"""Shared pieces of the fixture writer: graph-mode setup, the case directory
(graph files, .npy arrays, manifest.json) and the runs that record
TensorFlow's outputs."""

import collections
import json
import os
import re
import shutil

import numpy as np
import tensorflow as tf
from google.protobuf import text_format

# A graph whose .pb and .pbtxt together stay under this size gets both files.
TEXT_GRAPH_LIMIT = 200 * 1024
# Every numeric case directory must stay under this size.
CASE_DIR_LIMIT = 300 * 1024

ALLOWED_DTYPES = ("float32", "float64", "int32", "int64", "bool")

# Order of the keys in manifest.json.
MANIFEST_KEYS = (
    "description", "graph", "init", "feeds", "target", "steps",
    "step_fetches", "step_values", "fetches", "feeds2", "fetches2", "gradients", "gradients2",
    "rtol", "atol", "tolerance_note", "ops",
)


def graph_mode():
    """TF1 graph semantics for everything the generator builds."""
    tf.get_logger().setLevel("ERROR")
    tf.compat.v1.disable_eager_execution()
    tf.compat.v1.disable_control_flow_v2()
    tf.compat.v1.disable_resource_variables()


def session_config():
    # One thread per pool: reductions run in a fixed order, so re-running the
    # generator reproduces the same numbers.
    return tf.compat.v1.ConfigProto(intra_op_parallelism_threads=1,
                                    inter_op_parallelism_threads=1)


def numpy_rng(seed):
    return np.random.default_rng(seed)


def normal(rng, shape, scale, dtype=np.float32):
    return (rng.standard_normal(shape) * scale).astype(dtype)


def const_init(array):
    """An initializer that puts `array` into the graph as a Const node."""
    return tf.compat.v1.constant_initializer(array)


def file_stem(tensor_name):
    """'dense/probs:0' -> 'dense_probs'; output n > 0 keeps its index."""
    op, _, index = tensor_name.partition(":")
    stem = re.sub(r"[^A-Za-z0-9_]+", "_", op).strip("_")
    if index and index != "0":
        stem += "_" + index
    return stem


def op_types(graph_def):
    if graph_def.library.function:
        names = [f.signature.name for f in graph_def.library.function]
        raise RuntimeError("graph has a function library: %s" % names)
    return sorted({node.op for node in graph_def.node})


def dir_size(path):
    return sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path))


class Case:
    """One directory tests/fixtures/tf/<name>/ and its manifest."""

    def __init__(self, root, name, description):
        self.name = name
        self.dir = os.path.join(root, name)
        if os.path.isdir(self.dir):
            shutil.rmtree(self.dir)
        os.makedirs(self.dir)
        self.manifest = {"description": description, "graph": "graph.pb"}
        self.ops = []
        self.size_limit = CASE_DIR_LIMIT

    def write_graph(self, graph_def, text=None):
        """Writes graph.pb, and graph.pbtxt too when both files together stay
        under TEXT_GRAPH_LIMIT (or when `text` says so)."""
        self.ops = op_types(graph_def)
        tf.io.write_graph(graph_def, self.dir, "graph.pb", as_text=False)
        if text is None:
            text_size = len(text_format.MessageToString(graph_def).encode())
            binary_size = os.path.getsize(os.path.join(self.dir, "graph.pb"))
            text = binary_size + text_size < TEXT_GRAPH_LIMIT
        if text:
            tf.io.write_graph(graph_def, self.dir, "graph.pbtxt", as_text=True)
        self.manifest["ops"] = self.ops

    def save(self, stem, value):
        value = np.asarray(value)
        if value.dtype.name not in ALLOWED_DTYPES:
            raise TypeError("%s: dtype %s is not allowed" % (stem, value.dtype))
        # asarray, not ascontiguousarray, which would turn a scalar into shape [1].
        value = np.asarray(value, dtype=value.dtype.newbyteorder("<"), order="C")
        fname = stem + ".npy"
        np.save(os.path.join(self.dir, fname), value, allow_pickle=False)
        return fname

    def save_map(self, key, values, suffix=""):
        """Saves {tensor name: array} and records {tensor name: file} under
        manifest[key]."""
        files = collections.OrderedDict()
        for name, value in values.items():
            files[name] = self.save(file_stem(name) + suffix, value)
        self.manifest[key] = files

    def set(self, **fields):
        self.manifest.update(fields)

    def finish(self):
        if "fetches" in self.manifest:
            self.manifest.setdefault("rtol", 1e-5)
            self.manifest.setdefault("atol", 1e-6)
        unknown = set(self.manifest) - set(MANIFEST_KEYS)
        if unknown:
            raise KeyError("unknown manifest keys %s" % sorted(unknown))
        ordered = collections.OrderedDict(
            (k, self.manifest[k]) for k in MANIFEST_KEYS if k in self.manifest)
        with open(os.path.join(self.dir, "manifest.json"), "w") as f:
            json.dump(ordered, f, indent=2)
            f.write("\n")
        size = dir_size(self.dir)
        if size > self.size_limit:
            raise RuntimeError("%s is %d bytes, over %d" % (self.dir, size, self.size_limit))
        return size


def imported_session(graph_def):
    """A session over a fresh graph holding exactly `graph_def`, so that the
    recorded outputs are those of the file as written."""
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.import_graph_def(graph_def, name="")
    return tf.compat.v1.Session(graph=graph, config=session_config())


def record_inference(case, graph_def, feeds, fetches, suffix=""):
    """Runs `fetches` once with `feeds` and saves both.  suffix "" fills
    feeds/fetches, suffix "2" fills feeds2/fetches2."""
    with imported_session(graph_def) as sess:
        values = sess.run(list(fetches), feed_dict=dict(feeds))
    case.save_map("feeds" + suffix, feeds, suffix)
    case.save_map("fetches" + suffix, collections.OrderedDict(zip(fetches, values)), suffix)
    return values


def run_training(graph_def, init, target, steps, feeds, step_fetches, fetches):
    """Runs `init`, then `target` `steps` times fetching `step_fetches` in the
    same run, then `fetches` once.  Returns ([steps, ...] per step fetch,
    [final fetch values])."""
    per_step = [[] for _ in step_fetches]
    with imported_session(graph_def) as sess:
        sess.run(init)
        for _ in range(steps):
            out = sess.run([target] + list(step_fetches), feed_dict=dict(feeds))
            for values, value in zip(per_step, out[1:]):
                values.append(value)
        final = sess.run(list(fetches), feed_dict=dict(feeds))
    return [np.stack(v) for v in per_step], final


def record_training(case, graph_def, init, target, steps, feeds, step_fetches, fetches):
    """run_training, saving feeds, per-step values and fetches into `case`."""
    per_step, final = run_training(graph_def, init, target, steps, feeds,
                                   step_fetches, fetches)
    case.set(init=init)
    case.save_map("feeds", feeds)
    case.set(target=target, steps=steps, step_fetches=list(step_fetches))
    case.save_map("step_values", collections.OrderedDict(zip(step_fetches, per_step)), "_steps")
    case.save_map("fetches", collections.OrderedDict(zip(fetches, final)))
    return per_step, final
