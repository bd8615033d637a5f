"""What models.py and node_counts.py share: running a fixture's graph.

A fixture is tests/fixtures/tf/<name>: a GraphDef TensorFlow wrote and its
manifest.json (graph file, init and training targets, feeds). TensorFlow's
side runs as a script in a process of its own (TF_PREAMBLE, then the
caller's lines); minitf's through `minitf run` (MinitfCommand).
"""

import json
import os
import subprocess

# The head of a TensorFlow-side script: argv[1:4] are the graph file, the
# feeds (JSON of tensor -> .npy path) and the caller's JSON arguments; it
# imports the graph into `graph`, loads the feeds into `feed` and the
# arguments into `args`.
TF_PREAMBLE = r'''
import json, sys
import numpy as np
import tensorflow as tf
graph_path, feeds, args = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
tf.compat.v1.disable_eager_execution()
g = tf.compat.v1.GraphDef()
g.ParseFromString(open(graph_path, "rb").read())
graph = tf.Graph()
with graph.as_default():
    tf.compat.v1.import_graph_def(g, name="")
feed = {graph.get_tensor_by_name(t): np.load(p) for t, p in feeds.items()}
'''

# Builds `config`, the session's ConfigProto, from args["optimize"]: "on" is
# TensorFlow's defaults (Grappler and the graph optimizer on); "off" turns
# off Grappler (the meta-optimizer) and the graph optimizer's constant
# folding, CSE and inlining (opt_level L0), as `minitf run --optimize off`.
TF_CONFIG = r'''
config = tf.compat.v1.ConfigProto()
if args.get("optimize", "on") == "off":
    config.graph_options.rewrite_options.disable_meta_optimizer = True
    opts = config.graph_options.optimizer_options
    opts.opt_level = tf.compat.v1.OptimizerOptions.L0
    opts.do_constant_folding = False
    opts.do_common_subexpression_elimination = False
    opts.do_function_inlining = False
'''


def RunTensorFlowScript(body, graph_path, feeds, args, python, timeout=None):
    """Runs TF_PREAMBLE + body; returns its stdout. RuntimeError on failure."""
    return Run([python, "-c", TF_PREAMBLE + body, graph_path, json.dumps(dict(feeds)),
                json.dumps(args)], timeout)


def MinitfCommand(minitf, graph_path, manifest, feeds, extra):
    """`minitf run` of the fixture's training target on the CPU, with its feeds."""
    command = [minitf, "run", graph_path, "--device", "CPU", "--init", manifest["init"],
               "--target", manifest["target"]] + list(extra)
    for tensor, path in feeds:
        command += ["--feed", f"{tensor}={path}"]
    return command


def Run(command, timeout=None, env=None):
    """Runs `command`; its stdout. RuntimeError with its last lines on failure."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", **(env or {})))
    if done.returncode != 0:
        raise RuntimeError(f"exit {done.returncode}: {' '.join(command[:3])} ...\n"
                           + "\n".join((done.stderr or done.stdout).strip().splitlines()[-5:]))
    return done.stdout
