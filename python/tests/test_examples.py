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


def test_train_mlp_prints_the_losses_of_its_cpp_twin():
    from minitf import _build_info
    cpp = os.path.join(os.path.dirname(_build_info.MINITF_CLI), "train_mlp")
    assert os.access(cpp, os.X_OK), f"no C++ train_mlp beside this build's minitf ({cpp})"
    args = ["--steps", "100", "--print_every", "25"]
    python_lines = _run("examples/python/train_mlp.py", *args)
    cpp_run = subprocess.run([cpp] + [f"{a}={b}" for a, b in zip(args[::2], args[1::2])],
                             capture_output=True, text=True, timeout=300)
    assert cpp_run.returncode == 0, cpp_run.stderr
    # The same data, initial weights and updates: the same losses and accuracy.
    assert python_lines == cpp_run.stdout.splitlines()
    losses = [float(line.split()[3]) for line in python_lines if line.startswith("step")]
    assert losses[-1] < losses[0] / 2


def test_rings_are_the_cpp_examples_data():
    from minitf import datasets
    x, labels = datasets.rings(4, 3, seed=1234)
    # std::mt19937(1234) through uniform_real_distribution<float>(-3, 3):
    # -1.85088325 -0.0140180588 0.732652664 1.90703058 (a C++ program's output).
    np.testing.assert_array_equal(x[:2], np.array([[-1.85088325, -0.0140180588],
                                                   [0.732652664, 1.90703058]], np.float32))
    assert list(labels[:2]) == [1, 1]
    assert ((np.sqrt((x ** 2).sum(axis=1)) < 3.0)).all()


def test_run_tf_graph_gives_tensorflows_losses():
    fixture = "tests/fixtures/tf/transformer_adam/"
    lines = _run("examples/python/run_tf_graph.py", fixture + "graph.pb", "--steps", "5",
                 *[f"--feed={n}:0={fixture}{n}.npy" for n in ("x", "y", "mask")])
    losses = [float(line.split()[3]) for line in lines if line.startswith("step")]
    want = np.load(os.path.join(ROOT, fixture, "loss_steps.npy")).ravel()
    np.testing.assert_allclose(losses, want, rtol=1e-5)
