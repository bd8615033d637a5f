"""TensorFlow's own training graphs, minitf beside TensorFlow on the CPU.

For each fixture (tests/fixtures/tf/{bert,resnet50}_train: the GraphDef files
TensorFlow wrote, with the feeds their manifest.json describes), runs the
training step in TensorFlow (tf.compat.v1.Session) and in minitf (`minitf run
--device CPU`), each in a process of its own, the one that goes first
alternating over rounds, on the same .npy feeds, and prints the median step
times, their ratio minitf / TensorFlow, both losses after the steps, and each
side's minor page faults per step over the timed steps (getrusage).

`--optimize on` (the default) runs both with their defaults (TensorFlow's
Grappler and graph optimizer, minitf's graph passes); `off` turns both off
(fixture_run.TF_CONFIG, `minitf run --optimize off`); `on,off` measures both
in every round and prints what optimization gains each side's step time.
Run with the Python of tools/venv-tf (bench/tf_compare/run.sh makes it):

  tools/venv-tf/bin/python bench/tf_compare/models.py [--models bert,resnet50]
      [--steps 5] [--warmup 2] [--rounds 2] [--optimize on|off|on,off]
      [--minitf build/bin/minitf]

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

TF_STEP = fixture_run.TF_CONFIG + r'''
import resource, time
init, target, loss, steps, warmup = (args[k] for k in ("init", "target", "loss", "steps", "warmup"))
with tf.compat.v1.Session(graph=graph, config=config) as sess:
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


def RunTensorFlow(manifest, fixture, feeds, optimize, args):
    out = fixture_run.RunTensorFlowScript(
        TF_STEP, os.path.join(compare.FIXTURES, fixture, manifest["graph"]), feeds,
        {"init": manifest["init"], "target": manifest["target"], "loss": "loss:0",
         "steps": args.steps, "warmup": args.warmup, "optimize": optimize},
        sys.executable, args.timeout)
    return json.loads(out.strip().splitlines()[-1])


def RunMinitf(manifest, fixture, feeds, optimize, args):
    out = fixture_run.Run(fixture_run.MinitfCommand(
        args.minitf, os.path.join(compare.FIXTURES, fixture, manifest["graph"]), manifest, feeds,
        ["--steps", str(args.steps), "--warmup", str(args.warmup), "--fetch", "loss:0",
         "--optimize", optimize]), args.timeout)
    steps, loss, faults = STEPS_LINE.search(out), LOSS_LINE.search(out), FAULTS_LINE.search(out)
    if steps is None:
        raise RuntimeError("minitf run printed no 'steps:' line:\n" + out[-400:])
    return {"median_ms": float(steps.group(1)), "loss": float(loss.group(1)) if loss else None,
            "faults_per_step": float(faults.group(1)) if faults else None}


def Median(runs, key):
    values = [r[key] for r in runs if r[key] is not None]
    return statistics.median(values) if values else None


def Main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="bert,resnet50")
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--optimize", default="on", help="on, off, or on,off")
    parser.add_argument("--timeout", type=int, default=900)
    parser.add_argument("--minitf", default=os.path.join(REPO, "build", "bin", "minitf"))
    parser.add_argument("--work", default=os.path.join(REPO, "build", "tf_compare", "models"))
    args = parser.parse_args()
    settings = args.optimize.split(",")
    if not settings or any(o not in ("on", "off") for o in settings):
        parser.error(f"--optimize: {args.optimize!r} is not on, off or on,off")
    os.makedirs(args.work, exist_ok=True)
    failed = False
    rows = []
    for model in args.models.split(","):
        fixture, _ = compare.MODELS[model]
        manifest, feeds, _, _ = compare.MakeFeeds(fixture, args.work)
        runs = {(o, side): [] for o in settings for side in ("tensorflow", "minitf")}
        for r in range(args.rounds):
            sides = ["tensorflow", "minitf"] if r % 2 == 0 else ["minitf", "tensorflow"]
            for optimize in settings if r % 2 == 0 else settings[::-1]:
                for side in sides:
                    try:
                        run = (RunTensorFlow if side == "tensorflow" else RunMinitf)(
                            manifest, fixture, feeds, optimize, args)
                        runs[(optimize, side)].append(run)
                        print(f"{model} round {r} optimize {optimize} {side}: "
                              f"{run['median_ms']:.0f} ms/step, loss {run['loss']}, "
                              f"{run['faults_per_step']} faults/step", flush=True)
                    except (RuntimeError, subprocess.TimeoutExpired) as e:
                        failed = True
                        print(f"{model} optimize {optimize} {side}: {e}", file=sys.stderr,
                              flush=True)
        rows.append((model, runs))
    print(f"\n{'graph':10} {'optimize':>8} {'TensorFlow ms':>14} {'minitf ms':>10} "
          f"{'minitf/TF':>10} {'TF loss':>10} {'minitf loss':>12} {'TF faults':>10} "
          f"{'minitf faults':>14}")
    gains = []
    for model, runs in rows:
        ms = {}
        for optimize in settings:
            tf_runs, mt_runs = runs[(optimize, "tensorflow")], runs[(optimize, "minitf")]
            if not tf_runs or not mt_runs:
                continue
            tf_ms, mt_ms = Median(tf_runs, "median_ms"), Median(mt_runs, "median_ms")
            ms[optimize] = (tf_ms, mt_ms)
            mt_f = Median(mt_runs, "faults_per_step")
            print(f"{model:10} {optimize:>8} {tf_ms:14.0f} {mt_ms:10.0f} {mt_ms / tf_ms:9.2f}x "
                  f"{tf_runs[-1]['loss']:10.5g} {mt_runs[-1]['loss']:12.5g} "
                  f"{Median(tf_runs, 'faults_per_step'):10.0f} "
                  f"{'-' if mt_f is None else f'{mt_f:.0f}':>14}")
        if "on" in ms and "off" in ms:
            (tf_on, mt_on), (tf_off, mt_off) = ms["on"], ms["off"]
            gains.append(f"{model:10} TensorFlow {tf_off:.0f} -> {tf_on:.0f} ms "
                         f"({100 * (1 - tf_on / tf_off):.1f} %), minitf {mt_off:.0f} -> "
                         f"{mt_on:.0f} ms ({100 * (1 - mt_on / mt_off):.1f} %)")
    if gains:
        print("\nstep time, optimization off -> on (the gain):")
        print("\n".join(gains))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(Main())
