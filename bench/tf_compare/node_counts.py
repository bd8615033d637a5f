"""How many nodes one training step executes, TensorFlow beside minitf.

For each fixture (tests/fixtures/tf/<name>: the GraphDef TensorFlow wrote and
its manifest), runs one step of the training target and counts the nodes of
the graph that runs, by op type:

  - TensorFlow 2.21 (tf.compat.v1.Session, RunOptions.output_partition_graphs),
    with Grappler on (its default) and with every optimization off;
  - minitf (`minitf run --steps 1`, TF_DUMP_GRAPH_PREFIX), with its graph
    optimization on (the default) and off (`--optimize off`).

The transfer and argument nodes (_Send, _Recv, _HostSend, _HostRecv, _Arg,
_Retval) are not counted on either side. Prints the totals and, with
--ops N, the N op types whose counts differ most. Run with the Python of
tools/venv-tf (bench/tf_compare/run.sh makes it):

  tools/venv-tf/bin/python bench/tf_compare/node_counts.py
      [--fixtures bert_train,resnet50_train,transformer_adam] [--ops 12]
"""

import argparse
import collections
import glob
import json
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "bench", "gpu_compare"))
import compare  # noqa: E402  (MakeFeeds, FIXTURES)
import fixture_run  # noqa: E402  (TF_PREAMBLE, MinitfCommand, Run)

UNCOUNTED = {"_Send", "_Recv", "_HostSend", "_HostRecv", "_Arg", "_Retval"}

TF_COUNT = fixture_run.TF_CONFIG + r'''
import collections
init, target = args["init"], args["target"]
with tf.compat.v1.Session(graph=graph, config=config) as sess:
    sess.run(graph.get_operation_by_name(init))
    meta = tf.compat.v1.RunMetadata()
    sess.run(graph.get_operation_by_name(target), feed,
             options=tf.compat.v1.RunOptions(output_partition_graphs=True), run_metadata=meta)
counts = collections.Counter(n.op for p in meta.partition_graphs for n in p.node)
print(json.dumps(counts))
'''


def Feeds(fixture, work):
    with open(os.path.join(compare.FIXTURES, fixture, "manifest.json")) as f:
        manifest = json.load(f)
    specs = manifest["feeds"]
    if all(isinstance(v, str) for v in specs.values()):  # Recorded .npy files.
        return manifest, [(t, os.path.join(compare.FIXTURES, fixture, p)) for t, p in specs.items()]
    manifest, feeds, _, _ = compare.MakeFeeds(fixture, work)
    return manifest, feeds


def TensorFlowCounts(fixture, manifest, feeds, optimize):
    out = fixture_run.RunTensorFlowScript(
        TF_COUNT, os.path.join(compare.FIXTURES, fixture, manifest["graph"]), feeds,
        {"init": manifest["init"], "target": manifest["target"], "optimize": optimize},
        sys.executable)
    return collections.Counter(json.loads(out.strip().splitlines()[-1]))


def MinitfCounts(fixture, manifest, feeds, optimize, minitf):
    with tempfile.TemporaryDirectory() as dump:
        fixture_run.Run(fixture_run.MinitfCommand(
            minitf, os.path.join(compare.FIXTURES, fixture, manifest["graph"]), manifest, feeds,
            ["--steps", "1", "--warmup", "0", "--optimize", optimize]),
            env={"TF_DUMP_GRAPH_PREFIX": dump})
        # The training step's graph: the last one optimized (the init graph is first).
        dumps = glob.glob(os.path.join(dump, "after_optimization_*.pbtxt"))
        last = max(dumps, key=lambda p: int(re.search(r"_(\d+)\.pbtxt$", p).group(1)))
        with open(last) as f:
            return collections.Counter(re.findall(r'^  op: "([^"]+)"$', f.read(), re.M))


def Total(counts):
    return sum(n for op, n in counts.items() if op not in UNCOUNTED)


def Main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fixtures", default="bert_train,resnet50_train,transformer_adam")
    parser.add_argument("--ops", type=int, default=0)
    parser.add_argument("--minitf", default=os.path.join(REPO, "build", "bin", "minitf"))
    parser.add_argument("--work", default=os.path.join(REPO, "build", "tf_compare", "models"))
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    print(f"{'graph':18} {'TF off':>7} {'TF on':>7} {'minitf off':>11} {'minitf on':>10} "
          f"{'minitf on / TF on':>18}")
    details = []
    for fixture in args.fixtures.split(","):
        manifest, feeds = Feeds(fixture, args.work)
        tf_off = TensorFlowCounts(fixture, manifest, feeds, "off")
        tf_on = TensorFlowCounts(fixture, manifest, feeds, "on")
        mt_off = MinitfCounts(fixture, manifest, feeds, "off", args.minitf)
        mt_on = MinitfCounts(fixture, manifest, feeds, "on", args.minitf)
        print(f"{fixture:18} {Total(tf_off):7} {Total(tf_on):7} {Total(mt_off):11} "
              f"{Total(mt_on):10} {Total(mt_on) / Total(tf_on):17.2f}x", flush=True)
        details.append((fixture, tf_on, mt_on))
    for fixture, tf_on, mt_on in details if args.ops else []:
        ops = sorted((set(tf_on) | set(mt_on)) - UNCOUNTED,
                     key=lambda op: -abs(tf_on[op] - mt_on[op]))[:args.ops]
        print(f"\n{fixture}: op, TF on, minitf on")
        for op in ops:
            print(f"  {op:28} {tf_on[op]:6} {mt_on[op]:6}")


if __name__ == "__main__":
    Main()
