"""minitf.colocate and minitf.run_job: the experiment's figures as DataFrames."""

import os

import pytest

from conftest import need

need("pandas", "matplotlib")

import minitf as tf  # noqa: E402

SCENARIO = {
    "name": "py_pair",
    "device": {"simgpu": "memory=16GiB,mode=timing,gpu=h100"},
    "duration_s": 2,
    "jobs": [
        {"name": "guarantee", "model": "mlp", "batch_size": 32, "role": "guarantee",
         "memory_limit": "2GiB", "perf_control": 100},
        {"name": "opportunistic", "model": "mlp", "batch_size": 32, "role": "opportunistic",
         "memory_limit": "1GiB", "perf_control": 50},
    ],
}


def test_colocate_a_scenario_dict(tmp_path):
    result = tf.colocate(SCENARIO, seconds=1.5, out=str(tmp_path / "run"))
    assert result.returncode == 0 and result.failed == []
    assert list(result.jobs["name"]) == ["guarantee", "opportunistic"]
    assert (result.jobs["steps"] > 0).all()
    # Every step of both jobs, in the steps CSVs' columns.
    assert set(result.steps["job"]) == {"guarantee", "opportunistic"}
    assert len(result.steps) == int(result.jobs["steps"].sum())
    assert {"time_s", "step", "step_ms", "device_bytes", "perf_control"} <= set(result.steps)
    assert list(result.throughput.columns) == ["time_s", "guarantee", "opportunistic"]
    assert "utilisation" in result.memory
    assert {"from_s", "to_s", "guarantee_steps_per_s"} <= set(result.phases)
    # The DataFrames are the CSV files the command wrote for the run.
    import pandas as pd
    out = tmp_path / "run"
    pd.testing.assert_frame_equal(result.throughput, pd.read_csv(out / "throughput.csv"))
    pd.testing.assert_frame_equal(result.memory, pd.read_csv(out / "device_timeline.csv"))
    guarantee = result.steps[result.steps["job"] == "guarantee"].drop(columns="job")
    pd.testing.assert_frame_equal(guarantee.reset_index(drop=True),
                                  pd.read_csv(out / "guarantee.steps.csv"))
    figure = result.plot(str(tmp_path / "plot.png"))
    assert os.path.getsize(tmp_path / "plot.png") > 0
    assert len(figure.axes) == 2


def test_colocate_errors_carry_the_commands_code(tmp_path):
    with pytest.raises(tf.errors.NotFoundError, match="cannot read scenario"):
        tf.colocate(str(tmp_path / "missing.json"), seconds=1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="--seconds"):
        tf.colocate(SCENARIO, seconds=-1)


def test_run_job(tmp_path):
    job = dict(SCENARIO["jobs"][0], duration_s=1)
    config = tmp_path / "guarantee.config.json"
    summary, steps = tf.run_job(job, seconds=0.5, out=str(tmp_path / "out"),
                                config_file=str(config))
    assert summary["steps"] == len(steps) > 0
    assert config.exists()  # Written with the starting limits.


def test_sweep_example_runs_and_plots(tmp_path):
    import subprocess
    import sys
    root = os.environ.get("MINITF_SOURCE_DIR", ".")
    plot = str(tmp_path / "sweep.png")
    result = subprocess.run([sys.executable, "examples/python/sweep_colocation.py", "--seconds",
                             "1.5", "--shares", "25", "100", "--out", plot],
                            capture_output=True, text=True, cwd=root, env=dict(os.environ),
                            timeout=300)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("perfControl  25: guarantee") and lines[-1] == f"wrote {plot}"
    assert os.path.getsize(plot) > 0
