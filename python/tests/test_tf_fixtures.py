"""TensorFlow-written graphs (tests/fixtures/tf/) through Python give
TensorFlow's numbers: each fixture's feeds, its training steps' values and
its final fetches, to the fixture's tolerances."""

from conftest import need

need()

import json
import os

import numpy as np
import pytest

import minitf as tf

FIXTURES = os.path.join(os.environ.get("MINITF_SOURCE_DIR", "."), "tests", "fixtures", "tf")
# The fixtures with values to compare (the large training graphs have none).
NAMES = ["linear_gd", "transformer_adam", "resnet_block_momentum", "resource_vars", "cnn_frozen",
         "mlp_frozen", "cond_v1", "while_loop_v1", "losses_accuracy", "reductions_accuracy"]


def _load(directory, files):
    return {name: np.load(os.path.join(directory, f)) for name, f in files.items()}


@pytest.mark.parametrize("name", NAMES)
def test_fixture_gives_tensorflows_values(name):
    directory = os.path.join(FIXTURES, name)
    with open(os.path.join(directory, "manifest.json")) as f:
        manifest = json.load(f)
    rtol, atol = manifest.get("rtol", 1e-5), manifest.get("atol", 1e-6)
    feeds = _load(directory, manifest["feeds"])
    with tf.Session(graph=os.path.join(directory, manifest["graph"])) as sess:
        if "init" in manifest:
            assert sess.run(manifest["init"]) is None
        if "steps" in manifest:
            want = _load(directory, manifest["step_values"])
            got = {n: [] for n in manifest["step_fetches"]}
            for _ in range(manifest["steps"]):
                values, _ = sess.run([manifest["step_fetches"], manifest["target"]], feeds)
                for n, v in zip(manifest["step_fetches"], values):
                    got[n].append(v)
            for n in got:
                np.testing.assert_allclose(np.array(got[n]).reshape(want[n].shape), want[n],
                                           rtol=rtol, atol=atol, err_msg=f"{name} {n}")
        rounds = [("feeds", "fetches")]
        if "feeds2" in manifest:
            rounds.append(("feeds2", "fetches2"))
        for feeds_key, fetches_key in rounds:
            round_feeds = _load(directory, manifest[feeds_key])
            want = _load(directory, manifest[fetches_key])
            got = sess.run({n: n for n in want}, round_feeds)
            for n in want:
                np.testing.assert_allclose(got[n], want[n], rtol=rtol, atol=atol,
                                           err_msg=f"{name} {n}")
