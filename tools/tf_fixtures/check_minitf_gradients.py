"""Runs, in TensorFlow, the gradients_tf graph with the gradients minitf
derived, as minitf's GraphDef writer wrote it, and compares them with the
gradients TensorFlow computed (tests/fixtures/tf/gradients_tf).

    MINITF_GRADIENTS_GRAPH_OUT=/tmp/g.pb build/tests/tf_gradients_fixture_test
    tools/venv-tf/bin/python tools/tf_fixtures/check_minitf_gradients.py /tmp/g.pb
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import common  # noqa: E402

common.graph_mode()

FIXTURE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "tests", "fixtures", "tf", "gradients_tf")


def main(path):
    graph_def = tf.compat.v1.GraphDef()
    with open(path, "rb") as f:
        graph_def.ParseFromString(f.read())
    with open(path + ".json") as f:
        grad_names = json.load(f)
    with open(os.path.join(FIXTURE, "manifest.json")) as f:
        manifest = json.load(f)
    feeds = {name: np.load(os.path.join(FIXTURE, file))
             for name, file in manifest["feeds"].items()}
    with common.imported_session(graph_def) as sess:
        inputs = list(grad_names)
        # minitf writes output 0 as "node"; TensorFlow fetches a tensor as "node:0".
        tensors = [n if ":" in n else n + ":0" for n in (grad_names[x] for x in inputs)]
        values = sess.run(tensors, feed_dict=feeds)
    worst = 0.0
    for x, value in zip(inputs, values):
        expected = np.load(os.path.join(FIXTURE, manifest["gradients"][x]))
        err = np.max(np.abs(value - expected) / (1e-6 + np.abs(expected)))
        worst = max(worst, err)
        print("%-10s %-40s max rel. error %.2e" % (x, grad_names[x], err))
    print("%d nodes read by TensorFlow %s; worst relative error %.2e"
          % (len(graph_def.node), tf.__version__, worst))


if __name__ == "__main__":
    main(sys.argv[1])
