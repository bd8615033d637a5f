"""TensorFlow's own training graphs, minitf beside TensorFlow on the CPU.

For each fixture (tests/fixtures/tf/{bert,resnet50}_train: the GraphDef files
TensorFlow wrote, with the feeds their manifest.json describes), runs the
training step in TensorFlow (tf.compat.v1.Session with its defaults, Grappler
on) and in minitf (`minitf run --device CPU`), each in a process of its own,
the one that goes first alternating over rounds, on the same .npy feeds, and
prints the median step times, their ratio minitf / TensorFlow, both losses
after the steps, and each side's minor page faults per step over the timed
steps (getrusage). Run with the Python of tools/venv-tf (bench/tf_compare/run.sh
makes it):

  tools/venv-tf/bin/python bench/tf_compare/models.py [--models bert,resnet50]
      [--steps 5] [--warmup 2] [--rounds 2] [--minitf build/bin/minitf]

The feeds are bench/gpu_compare/compare.py's (its MakeFeeds, seeded), written
under build/tf_compare/models/. Exit status 0 when every run gave a figure.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "bench", "gpu_compare"))
import compare  # noqa: E402  (MakeFeeds, MODELS)
import fixture_run  # noqa: E402  (TF_PREAMBLE, MinitfCommand, Run)

TF_STEP = r'''
import resource, time
init, target, loss, steps, warmup = (args[k] for k in ("init", "target", "loss", "steps", "warmup"))
with tf.compat.v1.Session(graph=graph) as sess:
    sess.run(graph.get_operation_by_name(init))
    train = graph.get_operation_by_name(target)
    for _ in range(warmup):
        sess.run(train, feed)
    times = []
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(steps):
        t = time.perf_counter()
        sess.run(train, feed)
        times.append((time.perf_counter() - t) * 1e3)
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
    value = float(sess.run(loss, feed))
print(json.dumps({"median_ms": sorted(times)[len(times) // 2], "loss": value,
                  "faults_per_step": faults / steps}))
'''

STEPS_LINE = re.compile(r"^steps: \d+ in [0-9.]+ s[^;]*; .*\bmedian ([0-9.]+) ms", re.M)
LOSS_LINE = re.compile(r"^loss:0 float \[\] = (\S+)$", re.M)
FAULTS_LINE = re.compile(r"^minor page faults per step: median ([0-9]+)", re.M)


def RunTensorFlow(manifest, fixture, feeds, args):
    out = fixture_run.RunTensorFlowScript(
        TF_STEP, os.path.join(compare.FIXTURES, fixture, manifest["graph"]), feeds,
        {"init": manifest["init"], "target": manifest["target"], "loss": "loss:0",
         "steps": args.steps, "warmup": args.warmup}, sys.executable, args.timeout)
    return json.loads(out.strip().splitlines()[-1])


def RunMinitf(manifest, fixture, feeds, args):
    out = fixture_run.Run(fixture_run.MinitfCommand(
        args.minitf, os.path.join(compare.FIXTURES, fixture, manifest["graph"]), manifest, feeds,
        ["--steps", str(args.steps), "--warmup", str(args.warmup), "--fetch", "loss:0"]),
        args.timeout)
    steps, loss, faults = STEPS_LINE.search(out), LOSS_LINE.search(out), FAULTS_LINE.search(out)
    if steps is None:
        raise RuntimeError("minitf run printed no 'steps:' line:\n" + out[-400:])
    return {"median_ms": float(steps.group(1)), "loss": float(loss.group(1)) if loss else None,
            "faults_per_step": float(faults.group(1)) if faults else None}


def Main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="bert,resnet50")
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=900)
    parser.add_argument("--minitf", default=os.path.join(REPO, "build", "bin", "minitf"))
    parser.add_argument("--work", default=os.path.join(REPO, "build", "tf_compare", "models"))
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    failed = False
    rows = []
    for model in args.models.split(","):
        fixture, _ = compare.MODELS[model]
        manifest, feeds, _, _ = compare.MakeFeeds(fixture, args.work)
        runs = {"tensorflow": [], "minitf": []}
        for r in range(args.rounds):
            sides = ["tensorflow", "minitf"] if r % 2 == 0 else ["minitf", "tensorflow"]
            for side in sides:
                try:
                    run = (RunTensorFlow if side == "tensorflow" else RunMinitf)(
                        manifest, fixture, feeds, args)
                    runs[side].append(run)
                    print(f"{model} round {r} {side}: {run['median_ms']:.0f} ms/step, "
                          f"loss {run['loss']}, {run['faults_per_step']} faults/step", flush=True)
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    failed = True
                    print(f"{model} {side}: {e}", file=sys.stderr, flush=True)
        rows.append((model, runs))
    print(f"\n{'graph':10} {'TensorFlow ms':>14} {'minitf ms':>10} {'minitf/TF':>10} "
          f"{'TF loss':>10} {'minitf loss':>12} {'TF faults':>10} {'minitf faults':>14}")
    for model, runs in rows:
        if not runs["tensorflow"] or not runs["minitf"]:
            continue
        tf_ms = statistics.median(r["median_ms"] for r in runs["tensorflow"])
        mt_ms = statistics.median(r["median_ms"] for r in runs["minitf"])
        tf_f = statistics.median(r["faults_per_step"] for r in runs["tensorflow"])
        mt_faults = [r["faults_per_step"] for r in runs["minitf"] if r["faults_per_step"] is not None]
        mt_f = f"{statistics.median(mt_faults):.0f}" if mt_faults else "-"
        print(f"{model:10} {tf_ms:14.0f} {mt_ms:10.0f} {mt_ms / tf_ms:9.2f}x "
              f"{runs['tensorflow'][-1]['loss']:10.5g} {runs['minitf'][-1]['loss']:12.5g} "
              f"{tf_f:10.0f} {mt_f:>14}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(Main())
