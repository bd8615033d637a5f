"""The Python examples (examples/python/) run and do what they say."""

from conftest import need

need()

import os
import subprocess
import sys

import numpy as np

ROOT = os.environ.get("MINITF_SOURCE_DIR", ".")


def _run(*args):
    result = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=300,
                            env=dict(os.environ), cwd=ROOT)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_train_mlp_learns_the_rings():
    lines = _run("examples/python/train_mlp.py", "--steps", "300")
    accuracy = float(lines[-1].split()[1])
    assert accuracy >= 0.95, lines


def test_run_tf_graph_gives_tensorflows_losses():
    fixture = "tests/fixtures/tf/transformer_adam/"
    lines = _run("examples/python/run_tf_graph.py", fixture + "graph.pb", "--steps", "5",
                 *[f"--feed={n}:0={fixture}{n}.npy" for n in ("x", "y", "mask")])
    losses = [float(line.split()[3]) for line in lines if line.startswith("step")]
    want = np.load(os.path.join(ROOT, fixture, "loss_steps.npy")).ravel()
    np.testing.assert_allclose(losses, want, rtol=1e-5)
