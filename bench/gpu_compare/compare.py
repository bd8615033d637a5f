"""Runs minitf and PyTorch on the ResNet-50 and BERT-base training steps, on
the same GPU, with TF32 off and on, and prints one table (docs/BENCHMARKS.md,
"Side by side with PyTorch on a GPU"). run.sh calls it with the environment's
knobs; it can be called directly too:

    compare.py --minitf build/bin/minitf [--models resnet50,bert,resnet50_nchw]
               [--tf32 off,on] [--optimize on|off|nolayout|on,off,...] [--steps 20]
               [--warmup 5]
               [--only minitf|torch] [--work DIR]

minitf's side is `minitf run GRAPH --device GPU --init init --target train
--steps N --warmup W --tf32 on|off --optimize on|off --fetch loss:0` on the
graphs TensorFlow wrote
(tests/fixtures/tf/*_train), fed .npy files made from each fixture's
manifest; PyTorch's side is torch_peer.py. Each (model, TF32) pair runs each
side in a process of its own, the side that goes first alternating, so TF32
off is NVIDIA_TF32_OVERRIDE=0 in that process's environment (and PyTorch's
allow_tf32 flags off). The last loss of each side is printed as it finishes,
a check that both trained. With `--optimize on,off` minitf runs each step
both with its graph passes (the default, as TensorFlow's) and without
(`minitf run --optimize off`), and the table adds the step time without them
and what the passes gain; `nolayout` likewise runs them without the layout
pass (`--layout-optimizer off`), for resnet50_nchw (the same network written
in NCHW, which the layout pass runs in NHWC; PyTorch's side is its ResNet-50).

The figure is the median step time over the N steps after W warm-up steps,
on both sides.

Exit status: 0 when every run gave a figure; 1 when a run failed or the
machine lacks what the benchmark needs (a GPU, PyTorch), said on stderr;
2 for bad arguments.
"""

import argparse
import array
import json
import os
import random
import re
import shutil
import signal
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(REPO, "tests", "fixtures", "tf")
MODELS = {  # name: (fixture, unit of the throughput, PyTorch's model)
    "resnet50": ("resnet50_train", "img/s", "resnet50"),
    "bert": ("bert_train", "seq/s", "bert"),
    # The same network written in NCHW (PyTorch's own layout): what minitf's
    # layout pass gains, with --layout-optimizer on,off.
    "resnet50_nchw": ("resnet50_nchw_train", "img/s", "resnet50"),
}


# --optimize's values: the key of each run's figures in a row.
RUN_KEYS = {"on": "minitf", "off": "minitf_off", "nolayout": "minitf_nolayout"}


class BenchError(Exception):
    """A run that gave no figure; the message says why."""


# --- feeds -------------------------------------------------------------------

NPY_DTYPES = {"float32": ("<f4", "f"), "int32": ("<i4", "i"), "int64": ("<i8", "q")}


def WriteNpy(path, dtype, shape, values):
    """Writes `values` (an array.array) as a C-order .npy file, format 1.0."""
    descr, _ = NPY_DTYPES[dtype]
    shape_text = "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_text}, }}"
    header += " " * (-(len(header) + 11) % 64) + "\n"  # 10 bytes before it; 64-byte aligned
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        if sys.byteorder != "little":
            values.byteswap()
        values.tofile(f)


def MakeFeeds(fixture, work_dir):
    """One .npy per feed of the fixture's manifest; returns [(tensor, path)], batch."""
    with open(os.path.join(FIXTURES, fixture, "manifest.json")) as f:
        manifest = json.load(f)
    rng = random.Random(0)
    feeds = []
    for tensor, spec in manifest["feeds"].items():
        shape, dtype, kind = spec["shape"], spec["dtype"], spec["random"]
        if dtype not in NPY_DTYPES:
            raise BenchError(f"{fixture}: feed {tensor}: dtype {dtype} is not handled here")
        n = 1
        for d in shape:
            n *= d
        if kind == "normal":
            values = (rng.gauss(0.0, 1.0) for _ in range(n))
        elif kind == "uniform_int":
            values = (rng.randrange(int(spec["low"]), int(spec["high"])) for _ in range(n))
        elif kind in ("ones", "zeros"):
            values = [1 if kind == "ones" else 0] * n
        else:
            raise BenchError(f"{fixture}: feed {tensor}: random '{kind}' is not handled here")
        path = os.path.join(work_dir, f"{fixture}.{tensor.replace(':', '_')}.npy")
        WriteNpy(path, dtype, shape, array.array(NPY_DTYPES[dtype][1], values))
        feeds.append((tensor, path))
    batch = next(iter(manifest["feeds"].values()))["shape"][0]
    seq = manifest["feeds"].get("input_ids:0", {}).get("shape", [0, 0])[1]
    return manifest, feeds, batch, seq


# --- the two sides -------------------------------------------------------------

def Environment(tf32):
    env = dict(os.environ)
    if tf32 == "off":
        env["NVIDIA_TF32_OVERRIDE"] = "0"
    else:
        env.pop("NVIDIA_TF32_OVERRIDE", None)
    env.setdefault("MINITF_GPU_PLATFORM", "CUDA")  # never fall back to SimGPU unasked
    return env


def PeerEnvironment(tf32):
    """Environment(tf32) for PyTorch: without LD_LIBRARY_PATH, which holds
    minitf's libraries and the machine's cuDNN and cuBLAS (.gpu/check.sh sets
    it), so PyTorch loads the cuDNN its wheel was built with; another
    version first on the path stops it ("cuDNN version incompatibility")."""
    env = Environment(tf32)
    env.pop("LD_LIBRARY_PATH", None)
    return env


def Run(command, env, timeout):
    try:
        done = subprocess.run(command, env=env, timeout=timeout, capture_output=True, text=True)
    except subprocess.TimeoutExpired:
        raise BenchError(f"timed out after {timeout} s: {' '.join(command)}")
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-5:])
        raise BenchError(f"exit status {done.returncode}: {' '.join(command)}\n{tail}")
    return done.stdout


LOSS = "loss:0"  # both fixtures' loss, fetched once after the steps as a sanity check
STEPS_LINE = re.compile(r"^steps: (\d+) in [0-9.]+ s[^;]*; .*\bmedian ([0-9.]+) ms", re.M)
BUSY_LINE = re.compile(r"^GPU busy per step .*: median ([0-9.]+) ms", re.M)
LOSS_LINE = re.compile(r"^" + re.escape(LOSS) + r" float \[\] = (\S+)$", re.M)


def ParseMinitf(text, expected_steps):
    """{median_ms, busy_ms, loss} from `minitf run`'s summary lines."""
    steps = STEPS_LINE.search(text)
    if steps is None:
        raise BenchError("minitf run printed no 'steps: ...' line:\n" + text[-500:])
    if int(steps.group(1)) != expected_steps:
        raise BenchError(f"minitf run ran {steps.group(1)} steps, not {expected_steps}")
    busy, loss = BUSY_LINE.search(text), LOSS_LINE.search(text)
    return {"median_ms": float(steps.group(2)),
            "busy_ms": float(busy.group(1)) if busy else None,
            "loss": float(loss.group(1)) if loss else None}


def RunMinitf(args, manifest, fixture, feeds, tf32, optimize):
    command = [args.minitf, "run", os.path.join(FIXTURES, fixture, manifest["graph"]),
               "--device", "GPU", "--init", manifest["init"], "--target", manifest["target"],
               "--steps", str(args.steps), "--warmup", str(args.warmup), "--tf32", tf32,
               "--fetch", LOSS]
    # nolayout: the graph passes without the layout pass.
    command += (["--optimize", "on", "--layout-optimizer", "off"] if optimize == "nolayout"
                else ["--optimize", optimize])
    for tensor, path in feeds:
        command += ["--feed", f"{tensor}={path}"]
    return ParseMinitf(Run(command, Environment(tf32), args.timeout), args.steps)


def RunTorch(args, model, batch, seq, tf32):
    command = [sys.executable, os.path.join(HERE, "torch_peer.py"), model, "--batch", str(batch),
               "--seq", str(seq), "--tf32", tf32, "--steps", str(args.steps),
               "--warmup", str(args.warmup)]
    lines = Run(command, PeerEnvironment(tf32), args.timeout).strip().splitlines()
    try:
        return json.loads(lines[-1])
    except (IndexError, ValueError):
        raise BenchError("torch_peer.py printed no JSON line:\n" + "\n".join(lines[-5:]))


# --- what the machine has ----------------------------------------------------------

def Prerequisites(args):
    """Returns what is missing (a list of messages), the GPU's name, what
    PyTorch sees (None when it is not run) and why PyTorch cannot run (None
    when it can: minitf's side still runs without it)."""
    problems, torch_info, peer_problem = [], None, None
    gpu = GpuName()
    if os.environ.get("MINITF_GPU_PLATFORM") == "SimGPU":
        gpu = "SimGPU (minitf's simulated GPU, not a GPU)"
    if gpu is None:
        problems.append("no CUDA device visible (no nvidia-smi, or it lists none): "
                        "bench/gpu_compare needs a GPU")
    if "minitf" in args.sides and not os.access(args.minitf, os.X_OK):
        problems.append(f"no minitf binary at {args.minitf} (set MINITF, or build it)")
    if "torch" in args.sides:
        check = subprocess.run([sys.executable, os.path.join(HERE, "torch_peer.py"), "--check"],
                               capture_output=True, text=True, env=PeerEnvironment("on"))
        if check.returncode == 0:
            torch_info = json.loads(check.stdout.strip().splitlines()[-1])
        else:
            peer_problem = (check.stderr.strip().splitlines()[-1].removeprefix("torch_peer: ")
                            if check.stderr.strip() else "torch_peer.py --check failed")
    return problems, gpu, torch_info, peer_problem


def GpuName():
    """The first GPU nvidia-smi lists ("GPU 0: NVIDIA H100 ..."), or None."""
    if shutil.which("nvidia-smi") is None:
        gpus = "/proc/driver/nvidia/gpus"
        return "an NVIDIA GPU" if os.path.isdir(gpus) and os.listdir(gpus) else None
    listed = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True)
    lines = [l for l in listed.stdout.splitlines() if l.startswith("GPU ")]
    return lines[0].split(" (UUID")[0] if listed.returncode == 0 and lines else None


# --- the table ----------------------------------------------------------------------

def PrintTable(rows, args, gpu, torch_info):
    device = torch_info["device"] if torch_info else gpu
    versions = (f"PyTorch {torch_info['torch']}, cuDNN {torch_info['cudnn']}"
                if torch_info else "PyTorch not run")
    print(f"\nminitf ({args.minitf}) vs PyTorch on {device}; {versions}; fp32, "
          f"median step time over {args.steps} steps after {args.warmup} warm-up\n")
    others = [(key, title) for key, title in (("minitf_off", "passes off"),
                                              ("minitf_nolayout", "layout pass off"))
              if any(RUN_KEYS[o] == key for o in args.optimize_modes)]
    print("| model | batch | TF32 | minitf ms/step | PyTorch ms/step | minitf / PyTorch "
          "| minitf throughput | PyTorch throughput | minitf GPU busy ms/step |"
          + "".join(f" minitf ms/step, {t} | the gain |" for _, t in others))
    print("|---|---|---|---|---|---|---|---|---|" + "---|---|" * len(others))
    for row in rows:
        mt, pt = row.get("minitf"), row.get("torch")
        def Ms(r):
            return f"{r['median_ms']:.1f}" if isinstance(r, dict) else (r or "-")
        def Rate(r):
            if not isinstance(r, dict):
                return "-"
            rate = row["batch"] * 1e3 / r["median_ms"]
            return f"{rate:.{1 if rate < 100 else 0}f} {row['unit']}"
        ratio = (f"{mt['median_ms'] / pt['median_ms']:.2f}x"
                 if isinstance(mt, dict) and isinstance(pt, dict) else "-")
        busy = f"{mt['busy_ms']:.1f}" if isinstance(mt, dict) and mt.get("busy_ms") else "-"
        extra = ""
        for key, _ in others:
            off = row.get(key)
            gain = (f"{(1 - mt['median_ms'] / off['median_ms']) * 100:.1f} %"
                    if isinstance(mt, dict) and isinstance(off, dict) else "-")
            extra += f" {Ms(off)} | {gain} |"
        print(f"| {row['model']} | {row['shape']} | {row['tf32']} | {Ms(mt)} | {Ms(pt)} "
              f"| {ratio} | {Rate(mt)} | {Rate(pt)} | {busy} |{extra}")


def Main():
    parser = argparse.ArgumentParser(
        description="minitf vs PyTorch: ResNet-50 and BERT-base training steps on one GPU")
    parser.add_argument("--minitf", default=os.path.join(REPO, "build", "bin", "minitf"))
    parser.add_argument("--models", default="resnet50,bert")
    parser.add_argument("--tf32", default="off,on", help="off, on or both (default off,on)")
    parser.add_argument("--optimize", default="on",
                        help="minitf's graph passes: on (default), off, nolayout (on but "
                             "the layout pass), or several (on,off: the table adds what "
                             "they gain)")
    parser.add_argument("--steps", type=int, default=20, help="timed steps (default 20)")
    parser.add_argument("--warmup", type=int, default=5, help="warm-up steps (default 5)")
    parser.add_argument("--only", choices=["minitf", "torch"], help="run one side only")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per run (default 600)")
    parser.add_argument("--work", default=os.path.join(REPO, "build", "gpu_compare"),
                        help="where the feeds and results.json go")
    args = parser.parse_args()
    models = args.models.split(",")
    modes = args.tf32.split(",")
    args.optimize_modes = args.optimize.split(",")
    if (not set(models) <= set(MODELS) or not set(modes) <= {"on", "off"} or
            not set(args.optimize_modes) <= set(RUN_KEYS)):
        parser.error(f"--models wants some of {','.join(MODELS)}; --tf32 some of on,off; "
                     "--optimize some of on,off,nolayout")
    if args.steps < 1 or args.warmup < 0 or args.timeout < 1:
        parser.error("--steps and --timeout want at least 1, --warmup at least 0")
    args.sides = [args.only] if args.only else ["minitf", "torch"]
    # `timeout` (as .gpu/check.sh's) stops it like Ctrl-C: the table holds what ran.
    signal.signal(signal.SIGTERM, signal.default_int_handler)

    problems, gpu, torch_info, peer_problem = Prerequisites(args)
    if problems:
        for p in problems:
            print(f"gpu_compare: {p}", file=sys.stderr)
        return 1
    os.makedirs(args.work, exist_ok=True)

    rows, failed = [], False
    if peer_problem is not None:
        print(f"gpu_compare: PyTorch's side is not run: {peer_problem}", file=sys.stderr)
        args.sides = [side for side in args.sides if side != "torch"]
        failed = True
    try:
        for model in models:
            fixture, unit, peer = MODELS[model]
            manifest, feeds, batch, seq = MakeFeeds(fixture, args.work)
            shape = f"{batch}x{seq}" if model == "bert" else str(batch)
            for i, tf32 in enumerate(modes):
                row = {"model": model, "shape": shape, "batch": batch, "unit": unit, "tf32": tf32}
                rows.append(row)
                sides = args.sides if i % 2 == 0 else args.sides[::-1]
                # minitf's runs (its passes on, then off when asked) and PyTorch's.
                runs = []
                for side in sides:
                    if side == "minitf":
                        runs += [(RUN_KEYS[o], o) for o in args.optimize_modes]
                    else:
                        runs.append(("torch", None))
                for key, optimize in runs:
                    label = key if optimize is None else f"minitf optimize={optimize}"
                    try:
                        if optimize is not None:
                            row[key] = RunMinitf(args, manifest, fixture, feeds, tf32, optimize)
                        else:
                            row[key] = RunTorch(args, peer, batch, seq, tf32)
                        print(f"{model} tf32={tf32} {label}: {row[key]['median_ms']:.1f} ms/step, "
                              f"loss {row[key]['loss']}", flush=True)
                    except BenchError as e:
                        failed = True
                        row[key] = "failed"
                        print(f"gpu_compare: {model} tf32={tf32} {label}: {e}", file=sys.stderr,
                              flush=True)
    except KeyboardInterrupt:
        failed = True
        print("gpu_compare: interrupted; the table holds what ran", file=sys.stderr)
    PrintTable(rows, args, gpu, torch_info)
    with open(os.path.join(args.work, "results.json"), "w") as f:
        json.dump({"torch": torch_info, "steps": args.steps, "warmup": args.warmup,
                   "optimize": args.optimize_modes, "rows": rows}, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(Main())
