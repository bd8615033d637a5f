"""Co-location experiments from Python: ``minitf.colocate`` and
``minitf.run_job`` run the ``minitf`` command (``minitf colocate``,
``minitf job``; docs/EXPERIMENTS.md) and read what it wrote into pandas
DataFrames.

    result = minitf.colocate("bench/scenarios/antman_harvest.json", seconds=20,
                             baseline=True)
    result.jobs          # one row per job: steps/s, vs solo, peak memory, ...
    result.throughput    # steps/s of each job over time
    result.plot()        # throughput and device memory, with matplotlib

The command is found as ``$MINITF_CLI``, else the build's ``build/bin/minitf``
(where this package was built), else ``minitf`` on the PATH.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from typing import Any, Dict, List, Optional, Sequence, Union

from minitf import errors

_EXIT_JOB_FAILED = 1
_EXIT_BAD_ARGUMENTS = 2


def find_cli() -> str:
    """The path of the ``minitf`` command."""
    candidates = [os.environ.get("MINITF_CLI", "")]
    try:
        from minitf import _build_info
        candidates.append(_build_info.MINITF_CLI)
    except ImportError:
        pass
    candidates.append(shutil.which("minitf") or "")
    for path in candidates:
        if path and os.access(path, os.X_OK):
            return path
    raise errors.NotFoundError(
        None, None, "the minitf command was not found: set MINITF_CLI to build/bin/minitf, or "
        "put it on the PATH")


def _read_csv(path: str):
    import pandas as pd
    return pd.read_csv(path) if os.path.exists(path) else pd.DataFrame()


class ColocationResult:
    """What ``minitf colocate`` measured, from its output directory.

    ``jobs``: one row per job (summary.json's); ``steps``: every step of
    every job, with a ``job`` column; ``throughput``: each job's steps/s per
    second of the run; ``phases``: each phase of the timeline, each job's
    steps/s in it; ``memory``: the device timeline (utilisation, each job's
    device, pool and host bytes); ``actions``: the timeline's or the
    coordinator's changes; ``coordinator``: the coordinator's decisions
    (with ``coordinator=``). ``returncode`` is the command's exit status (0,
    or 1 when a job failed: ``failed`` names them; 130 when interrupted: the
    outputs cover the time run).
    """

    def __init__(self, out_dir: str, returncode: int, output: str):
        import pandas as pd
        self.out_dir = out_dir
        self.returncode = returncode
        self.output = output
        with open(os.path.join(out_dir, "summary.json")) as f:
            self.summary: Dict[str, Any] = json.load(f)
        self.jobs = pd.DataFrame(self.summary.get("jobs", []))
        steps = []
        for job in self.summary.get("jobs", []):
            frame = _read_csv(os.path.join(out_dir, job.get("steps_file", "")))
            frame.insert(0, "job", job["name"])
            steps.append(frame)
        self.steps = pd.concat(steps, ignore_index=True) if steps else pd.DataFrame()
        self.throughput = _read_csv(os.path.join(out_dir, "throughput.csv"))
        self.memory = _read_csv(os.path.join(out_dir, "device_timeline.csv"))
        self.actions = _read_csv(os.path.join(out_dir, "actions.csv"))
        self.coordinator = _read_csv(os.path.join(out_dir, "coordinator.csv"))
        names = [job["name"] for job in self.summary.get("jobs", [])]
        rows = []
        for phase in self.summary.get("phases", []):
            row = {k: phase[k] for k in ("from_s", "to_s", "begun_by") if k in phase}
            for name, rate in zip(names, phase.get("steps_per_s", [])):
                row[f"{name}_steps_per_s"] = rate
            for name, ratio in zip(names, phase.get("vs_solo", [])):
                row[f"{name}_vs_solo"] = ratio
            rows.append(row)
        self.phases = pd.DataFrame(rows)

    @property
    def failed(self) -> List[str]:
        if self.jobs.empty or "failure" not in self.jobs:
            return []
        return list(self.jobs.loc[self.jobs["failure"] != "", "name"])

    def plot(self, path: Optional[str] = None):
        """Each job's throughput and device memory over time; saved to
        `path` when given. Returns the matplotlib Figure."""
        import matplotlib
        if path is not None:
            matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(9, 6))
        for column in self.throughput.columns[1:]:
            top.plot(self.throughput["time_s"], self.throughput[column], label=column)
        top.set_ylabel("steps/s")
        top.legend()
        for column in self.memory.columns:
            if column.endswith("_device_bytes"):
                bottom.plot(self.memory["time_s"], self.memory[column] / 2**20,
                            label=column[: -len("_device_bytes")])
        bottom.set_ylabel("device memory (MiB)")
        bottom.set_xlabel("time (s)")
        bottom.legend()
        fig.suptitle(self.summary.get("scenario", ""))
        if path is not None:
            fig.savefig(path)
        return fig

    def __repr__(self) -> str:
        return f"<ColocationResult {self.summary.get('scenario')} in {self.out_dir}>"


def _scenario_path(scenario: Union[str, os.PathLike, Dict[str, Any]], workdir: str) -> str:
    if isinstance(scenario, dict):
        path = os.path.join(workdir, f"{scenario.get('name', 'scenario')}.json")
        with open(path, "w") as f:
            json.dump(scenario, f)
        return path
    return os.fspath(scenario)


def _error_from_cli(done: subprocess.CompletedProcess) -> errors.OpError:
    """The command's error: its status code where it printed one
    ("minitf colocate: NOT_FOUND: ..."), InvalidArgument for bad arguments."""
    lines = done.stderr.strip().splitlines()
    message = lines[0] if lines else f"the minitf command exited with {done.returncode}"
    code = errors.INVALID_ARGUMENT if done.returncode == _EXIT_BAD_ARGUMENTS else errors.UNKNOWN
    match = re.match(r"minitf \w+: ([A-Z_]+): ", message)
    if match and isinstance(getattr(errors, match.group(1), None), int):
        code = getattr(errors, match.group(1))
    return errors.exception_type_from_error_code(code)(None, None, message)


def _run_cli(args: Sequence[str]) -> subprocess.CompletedProcess:
    # Ctrl-C reaches the command too (one process group): it stops, writes
    # what it measured and exits; this waits for it before raising.
    process = subprocess.Popen([find_cli(), *args], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        out, err = process.communicate()
    except KeyboardInterrupt:
        process.wait()
        raise
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def colocate(scenario: Union[str, os.PathLike, Dict[str, Any]], seconds: Optional[float] = None,
             baseline: bool = False, processes: bool = False,
             coordinator: Optional[str] = None, out: Optional[str] = None,
             options: Sequence[str] = ()) -> ColocationResult:
    """Runs a co-location experiment (``minitf colocate``): `scenario` is a
    scenario file or its dict; `coordinator` "antman" or "tgs" steers the
    jobs in closed loop; `options` are further command-line options
    (``--simgpu``, ``--pacing``, ...). Bad arguments are an
    InvalidArgumentError with the command's message."""
    workdir = tempfile.mkdtemp(prefix="minitf_colocate_")
    args = ["colocate", _scenario_path(scenario, workdir), "--out",
            out or os.path.join(workdir, "out")]
    if seconds is not None:
        args += ["--seconds", str(seconds)]
    if baseline:
        args.append("--baseline")
    if processes:
        args.append("--processes")
    if coordinator:
        args += ["--coordinator", coordinator]
    args += list(options)
    done = _run_cli(args)
    out_dir = args[3]
    if not os.path.exists(os.path.join(out_dir, "summary.json")):
        raise _error_from_cli(done)
    return ColocationResult(out_dir, done.returncode, done.stdout)


def run_job(job: Union[str, os.PathLike, Dict[str, Any]], seconds: Optional[float] = None,
            out: Optional[str] = None, config_file: Optional[str] = None,
            status_file: Optional[str] = None, options: Sequence[str] = ()):
    """Runs one training job (``minitf job``), following AntMan's config file
    between steps; returns (its summary dict, its steps DataFrame)."""
    workdir = tempfile.mkdtemp(prefix="minitf_job_")
    path = _scenario_path(job, workdir)
    name = job.get("name", "job") if isinstance(job, dict) else None
    out_dir = out or os.path.join(workdir, "out")
    args = ["job", path, "--out", out_dir]
    if seconds is not None:
        args += ["--seconds", str(seconds)]
    if config_file:
        args += ["--config-file", config_file]
    if status_file:
        args += ["--status-file", status_file]
    args += list(options)
    done = _run_cli(args)
    summaries = [f for f in os.listdir(out_dir) if f.endswith(".summary.json")] \
        if os.path.isdir(out_dir) else []
    if not summaries:
        raise _error_from_cli(done)
    summary_file = f"{name}.summary.json" if name and f"{name}.summary.json" in summaries \
        else summaries[0]
    with open(os.path.join(out_dir, summary_file)) as f:
        summary = json.load(f)
    steps = _read_csv(os.path.join(out_dir, summary_file.replace(".summary.json", ".steps.csv")))
    return summary, steps
