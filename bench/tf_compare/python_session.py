"""Python's sess.run against TensorFlow's, side by side: per call, feed two
scalars, add and fetch the sum; or one training step of a fixture's graph
(tests/fixtures/tf/<name>); through
``tf.compat.v1.Session.run`` (TensorFlow 2.21 from tools/venv-tf, its
defaults, CPU) and ``minitf.Session.run`` (this build's package, CPU only),
each side in a process of its own, the one that goes first alternating by
round. Prints the median microseconds per call and the ratio.

    PYTHONPATH=build/python python3 bench/tf_compare/python_session.py \\
        [--fixtures transformer_adam resnet_block_momentum] [--calls 300] [--rounds 3]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

from fixture_run import TF_PREAMBLE

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))

# The timed loop, the same on both sides: `sess`, `fetches`, `feed` given.
TIMED = r'''
import time
for _ in range(args["warmup"]):
    sess.run(fetches, feed)
start = time.perf_counter()
for _ in range(args["calls"]):
    sess.run(fetches, feed)
print(json.dumps({"us": (time.perf_counter() - start) / args["calls"] * 1e6}))
'''

TF_SIDE = TF_PREAMBLE + r'''
config = tf.compat.v1.ConfigProto(device_count={"GPU": 0})
sess = tf.compat.v1.Session(graph=graph, config=config)
sess.run(args["init"])
fetches = [args["target"]]
''' + TIMED

MINITF_SIDE = r'''
import json, sys
import numpy as np
import minitf
graph_path, feeds, args = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
feed = {t: np.load(p) for t, p in feeds.items()}
sess = minitf.Session(graph=graph_path, config={"device_count": {"GPU": 0}})
sess.run(args["init"])
fetches = [args["target"]]
''' + TIMED


# Feed two float scalars, fetch their sum: the per-call cost of sess.run
# itself (bench_tf_peer's BM_SessionRunAdd, from Python).
ADD_TF = r'''
import json, sys, time
import tensorflow as tf
args = json.loads(sys.argv[3])
tf.compat.v1.disable_eager_execution()
x = tf.compat.v1.placeholder(tf.float32, [], name="x")
y = tf.compat.v1.placeholder(tf.float32, [], name="y")
z = x + y
sess = tf.compat.v1.Session(config=tf.compat.v1.ConfigProto(device_count={"GPU": 0}))
fetches, feed = z, {x: 1.0, y: 2.0}
''' + TIMED

ADD_MINITF = r'''
import json, sys, time
import minitf as tf
args = json.loads(sys.argv[3])
x = tf.placeholder(tf.float32, [], name="x")
y = tf.placeholder(tf.float32, [], name="y")
z = x + y
sess = tf.Session(config={"device_count": {"GPU": 0}})
fetches, feed = z, {x: 1.0, y: 2.0}
''' + TIMED


def run_side(python, script, graph, feeds, args, env):
    done = subprocess.run([python, "-c", script, graph, json.dumps(feeds), json.dumps(args)],
                          capture_output=True, text=True, env=env, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip().splitlines()[-1])
    return json.loads(done.stdout.strip().splitlines()[-1])["us"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fixtures", nargs="+",
                        default=["transformer_adam", "resnet_block_momentum", "linear_gd"])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tf-python", default=os.path.join(ROOT, "tools/venv-tf/bin/python"))
    args = parser.parse_args()
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    print("| one call runs | TensorFlow sess.run (µs) | minitf sess.run (µs) | minitf / TF |")
    print("|---|---|---|---|")
    rows = [("feed 2 scalars, Add, fetch", ADD_TF, ADD_MINITF, "", {}, {})]
    for name in args.fixtures:
        directory = os.path.join(ROOT, "tests", "fixtures", "tf", name)
        with open(os.path.join(directory, "manifest.json")) as f:
            manifest = json.load(f)
        feeds = {t: os.path.join(directory, p) for t, p in manifest["feeds"].items()}
        rows.append((f"{name} training step", TF_SIDE, MINITF_SIDE,
                     os.path.join(directory, manifest["graph"]), feeds,
                     {"init": manifest["init"], "target": manifest["target"]}))
    for label_row, tf_script, minitf_script, graph, feeds, extra in rows:
        side_args = dict(extra, calls=args.calls, warmup=args.warmup)
        tf_us, minitf_us = [], []
        for r in range(args.rounds):
            sides = [("tf", args.tf_python, tf_script), ("minitf", sys.executable, minitf_script)]
            for label, python, script in (sides if r % 2 == 0 else sides[::-1]):
                us = run_side(python, script, graph, feeds, side_args, env)
                (tf_us if label == "tf" else minitf_us).append(us)
        t, m = statistics.median(tf_us), statistics.median(minitf_us)
        print(f"| {label_row} | {t:.1f} | {m:.1f} | {m / t:.2f}x |")


if __name__ == "__main__":
    main()
