"""minitf.Coordinator over hand-written job files (the layout of
session/antman/coordinator.h): a Python policy's configs are written, the
built-in policies work the same way, a policy's errors reach the caller."""

import json
import os
import time

import pytest

from conftest import need

need("pandas")

import minitf as tf  # noqa: E402

GIB = 1 << 30


def _register(directory, job, role, steps, peak):
    home = os.path.join(directory, job)
    os.makedirs(home, mode=0o755, exist_ok=True)
    with open(os.path.join(home, "job.json"), "w") as f:
        json.dump({"role": role, "pid": 0, "pidNamespace": ""}, f)
    with open(os.path.join(home, "status.json"), "w") as f:
        json.dump({"timestampUs": int(time.time() * 1e6), "stepCount": steps,
                   "gpuUsageInfo": {"50:00.0": {"deviceMemUsedMax": peak}}}, f)


def _config(directory, job):
    with open(os.path.join(directory, job, "config.json")) as f:
        config = json.load(f)
    return config["perfControl"], config["gpuConfigInfo"]["GPU:0"]["maxDeviceMem"]


@pytest.fixture
def jobs_dir(tmp_path):
    directory = str(tmp_path)
    os.chmod(directory, 0o755)
    _register(directory, "g", "guarantee", 10, 2 * GIB)
    _register(directory, "o", "opportunistic", 5, GIB)
    return directory


def test_a_python_policy_decides_the_configs(jobs_dir):
    seen = []

    def policy(time_s, jobs):
        seen.append(jobs)
        return {name: {"max_device_mem": 6 * GIB if job["role"] == "guarantee" else 3 * GIB,
                       "perf_control": 100 if job["role"] == "guarantee" else 40}
                for name, job in jobs.items()}

    coordinator = tf.Coordinator(jobs_dir, policy=policy, gpu_memory_bytes=16 * GIB)
    decisions = coordinator.tick()
    assert _config(jobs_dir, "g") == (100, 6 * GIB)
    assert _config(jobs_dir, "o") == (40, 3 * GIB)
    assert set(seen[0]) == {"g", "o"}
    assert seen[0]["g"]["role"] == "guarantee" and seen[0]["g"]["peak_bytes"] == 2 * GIB
    assert seen[0]["o"]["steps"] == 5
    assert {(d["job"], d["setting"]) for d in decisions} >= {("o", "perfControl"),
                                                            ("g", "maxDeviceMem")}
    assert coordinator.tick() == []  # Nothing changed: nothing written.


def test_a_built_in_policy_works_the_same_way(jobs_dir):
    coordinator = tf.Coordinator(jobs_dir, policy="antman", gpu_memory_bytes=16 * GIB)
    coordinator.tick()
    perf, memory = _config(jobs_dir, "o")
    assert perf == 0  # Suspended while the guarantee job's solo rate is measured.
    assert 0 < memory < 16 * GIB
    assert coordinator.solo_rate("g") == 0
    with pytest.raises(tf.errors.InvalidArgumentError, match="antman or tgs"):
        tf.Coordinator(jobs_dir, policy="fifo", gpu_memory_bytes=16 * GIB)
    with pytest.raises(tf.errors.InvalidArgumentError, match="gpu_memory_bytes"):
        tf.Coordinator(jobs_dir, policy="tgs")


def test_a_policys_errors_reach_the_caller(jobs_dir):
    def raising(time_s, jobs):
        raise ZeroDivisionError("policy bug")

    with pytest.raises(ZeroDivisionError, match="policy bug"):
        tf.Coordinator(jobs_dir, policy=raising, gpu_memory_bytes=16 * GIB).tick()
    bad = tf.Coordinator(jobs_dir, policy=lambda t, jobs: {"g": {"perf_control": 300,
                                                                 "max_device_mem": GIB}},
                         gpu_memory_bytes=16 * GIB)
    with pytest.raises(tf.errors.InvalidArgumentError, match="perfControl 300"):
        bad.tick()
    unknown = tf.Coordinator(jobs_dir, policy=lambda t, jobs: {"g": {"colour": 1}},
                             gpu_memory_bytes=16 * GIB)
    with pytest.raises(tf.errors.InvalidArgumentError, match="unknown setting 'colour'"):
        unknown.tick()
    assert not os.path.exists(os.path.join(jobs_dir, "g", "config.json"))


def test_run_returns_the_decisions_as_a_data_frame(jobs_dir):
    coordinator = tf.Coordinator(jobs_dir, policy=lambda t, jobs: {
        "o": {"max_device_mem": GIB, "perf_control": 25}}, gpu_memory_bytes=16 * GIB,
        interval_s=0.05)
    frame = coordinator.run(seconds=0.2)
    assert list(frame.columns) == ["time_s", "job", "setting", "old_value", "new_value", "reason"]
    configured = frame[frame["setting"].isin(["perfControl", "maxDeviceMem"])]
    assert set(configured["job"]) == {"o"}  # The job the policy left out keeps its config.
    assert _config(jobs_dir, "o") == (25, GIB)
