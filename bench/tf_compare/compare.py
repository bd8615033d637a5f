"""Prints run.sh's side-by-side table from its Google Benchmark JSON files.

    compare.py RESULTS_DIR [--tf-version 2.21.0]

RESULTS_DIR holds ROUND.GROUP.SIDE.json (SIDE is tf or minitf). Two tables:
wall-clock time per Run (Google Benchmark's real time), and the process's CPU
time per Run, which moves less when other work shares the machine's cores
(both sides run the step on the calling thread, so the two agree on an idle
machine). Every figure is the median over rounds; a per-node figure is, per round, the slope of the
per-Run time between N = 1000 and N = 10000 ((t10000 - t1000) / 9000), so a
step's fixed cost does not count. The ratio is minitf's median over
TensorFlow's, and the range after it is that of the per-round ratios.
"""

import argparse
import collections
import json
import os
import statistics

# (row label, unit, TensorFlow's benchmark, minitf's benchmark, goal).
# A benchmark "slope:NAME" is NAME/10000 minus NAME/1000, per node.
ROWS = [
    ("NoOp chain, through Session", "ns/node",
     "slope:BM_SessionNoOpChain", "slope:BM_SessionNoOpChain", "<= 0.5x"),
    ("NoOp chain, minitf executor alone", "ns/node",
     "slope:BM_SessionNoOpChain", "slope:BM_ExecutorNoOpChain", "<= 0.5x"),
    ("fan-out/fan-in, through Session", "ns/node",
     "slope:BM_SessionFanOutIn", "slope:BM_SessionFanOutIn", "<= 0.5x"),
    ("fan-out/fan-in, minitf executor alone", "ns/node",
     "slope:BM_SessionFanOutIn", "slope:BM_ExecutorFanOutIn", "<= 0.5x"),
    ("Run of one NoOp target", "us/Run",
     "BM_SessionRunNoOp", "BM_SessionRunNoOp", "<= 0.5x"),
    ("feed 2 scalars, Add, fetch: Run", "us/Run",
     "BM_SessionRunAdd", "BM_SessionRunAdd", ""),
    ("feed 2 scalars, Add, fetch: RunCallable", "us/Run",
     "BM_RunCallableAdd", "BM_RunCallableAdd", "<= 0.5x TF's RunCallable"),
    ("Sum of 4e6 floats, every axis", "us/Run",
     "BM_SessionRunSum/0", "BM_SessionRunSum/0", ""),
    ("Sum of 4e6 floats, columns", "us/Run",
     "BM_SessionRunSum/1", "BM_SessionRunSum/1", ""),
    ("Sum of 4e6 floats, rows", "us/Run",
     "BM_SessionRunSum/2", "BM_SessionRunSum/2", ""),
]


def Load(results_dir, clock):
    """Returns {round: {side: {benchmark name: ns per iteration}}} and the contexts.

    clock is "real_time" or "cpu_time".
    """
    times = collections.defaultdict(lambda: collections.defaultdict(dict))
    contexts = {}
    for file_name in sorted(os.listdir(results_dir)):
        if not file_name.endswith(".json"):
            continue
        round_, _, side, _ = file_name.split(".")
        with open(os.path.join(results_dir, file_name)) as f:
            data = json.load(f)
        contexts.setdefault(side, data.get("context", {}))
        for b in data.get("benchmarks", []):
            if b.get("error_occurred"):
                continue
            assert b["time_unit"] == "ns", b
            name = b["name"].removesuffix("/real_time")
            times[int(round_)][side][name] = b[clock]
    return times, contexts


def Value(per_side, benchmark):
    """The figure of one round, in the row's unit (ns/node or us/Run); None if absent."""
    if benchmark.startswith("slope:"):
        name = benchmark[len("slope:"):]
        small, large = per_side.get(name + "/1000"), per_side.get(name + "/10000")
        if small is None or large is None:
            return None
        return (large - small) / 9000.0
    t = per_side.get(benchmark)
    return None if t is None else t / 1000.0


def Main():
    parser = argparse.ArgumentParser()
    parser.add_argument("results_dir")
    parser.add_argument("--tf-version", default="?")
    args = parser.parse_args()
    _, contexts = Load(args.results_dir, "real_time")
    ctx = contexts.get("tf", {})
    with open("/proc/loadavg") as f:
        load_at_end = ", ".join(f.read().split()[:3])
    print(f"\nTensorFlow {args.tf_version} (tensorflow-cpu wheel, C++ API) vs minitf; "
          f"{ctx.get('num_cpus', '?')} CPUs at {ctx.get('mhz_per_cpu', '?')} MHz; load average "
          f"{', '.join(f'{x:.2f}' for x in ctx.get('load_avg', []))} at the start, "
          f"{load_at_end} at the end")
    for clock, title in (("real_time", "Wall-clock time per Run"),
                         ("cpu_time", "CPU time per Run")):
        times, _ = Load(args.results_dir, clock)
        print(f"\n{title}, median of {len(times)} rounds:\n")
        PrintTable(times)


def PrintTable(times):
    rounds = sorted(times)
    print("| benchmark | unit | TensorFlow | minitf | minitf / TF (range over rounds) | goal |")
    print("|---|---|---|---|---|---|")
    for label, unit, tf_name, minitf_name, goal in ROWS:
        tf_values, minitf_values, ratios = [], [], []
        for r in rounds:
            tf = Value(times[r]["tf"], tf_name)
            mt = Value(times[r]["minitf"], minitf_name)
            if tf is not None:
                tf_values.append(tf)
            if mt is not None:
                minitf_values.append(mt)
            if tf is not None and mt is not None and tf > 0:
                ratios.append(mt / tf)
        digits = 1 if unit == "ns/node" else 2
        tf_text = f"{statistics.median(tf_values):.{digits}f}" if tf_values else "n/a"
        if minitf_values:
            mt_text = f"{statistics.median(minitf_values):.{digits}f}"
        else:
            mt_text = "pending (no callables yet)" if "Callable" in minitf_name else "n/a"
        if tf_values and minitf_values:
            ratio = statistics.median(minitf_values) / statistics.median(tf_values)
            ratio_text = f"{ratio:.2f}x ({min(ratios):.2f}-{max(ratios):.2f})"
        else:
            ratio_text = "-"
        print(f"| {label} | {unit} | {tf_text} | {mt_text} | {ratio_text} | {goal} |")


if __name__ == "__main__":
    Main()
