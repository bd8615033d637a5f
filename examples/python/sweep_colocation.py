"""Sweeps a co-location experiment from Python: the opportunistic job of
bench/scenarios/antman_harvest.json at perfControl 25, 50, 75 and 100 (AntMan's
GPU-time share), each run on SimGPU for a few seconds; prints each run's
steps/s and plots the guarantee job's and the opportunistic job's
throughput against the share.

    PYTHONPATH=build/python python3 examples/python/sweep_colocation.py \\
        [--seconds 6] [--out runs/sweep.png]
"""

import argparse
import json
import os

import minitf

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=6)
    parser.add_argument("--shares", type=int, nargs="+", default=[25, 50, 75, 100])
    parser.add_argument("--out", default="runs/sweep.png")
    args = parser.parse_args()
    with open(os.path.join(ROOT, "bench/scenarios/antman_harvest.json")) as f:
        scenario = json.load(f)

    rows = []
    for share in args.shares:
        scenario["name"] = f"sweep_perf{share}"
        scenario["jobs"][1]["perf_control"] = share
        result = minitf.colocate(scenario, seconds=args.seconds)
        rates = dict(zip(result.jobs["name"], result.jobs["steps_per_s"]))
        rows.append((share, rates["guarantee"], rates["opportunistic"]))
        print(f"perfControl {share:3d}: guarantee {rates['guarantee']:.2f} steps/s, "
              f"opportunistic {rates['opportunistic']:.2f} steps/s")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(figsize=(7, 4))
    shares = [r[0] for r in rows]
    axes.plot(shares, [r[1] for r in rows], marker="o", label="guarantee")
    axes.plot(shares, [r[2] for r in rows], marker="o", label="opportunistic")
    axes.set_xlabel("opportunistic job's perfControl")
    axes.set_ylabel("steps/s")
    axes.legend()
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    figure.savefig(args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
