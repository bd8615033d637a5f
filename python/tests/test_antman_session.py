"""A session under AntMan's control plane from Python (docs/ANTMAN.md): its
config and statistics files as config fields, its memory limit and
perfControl changed between steps (on SimGPU)."""

from conftest import need

need()

import time

import numpy as np
import pytest

import minitf as tf


def test_memory_limit_and_perf_control_change_between_steps(graph, tmp_path):
    config_file, status_file = str(tmp_path / "job.config.json"), str(tmp_path / "job.status.json")
    x = tf.placeholder(tf.float32, [None, 64], name="x")
    w = tf.Variable(np.ones([64, 64], np.float32), name="w")
    y = tf.reduce_sum(tf.matmul(x, w))
    feed = {x: np.ones([32, 64], np.float32)}
    with tf.Session(graph=graph, config={"gpu_config_file": config_file,
                                         "gpu_status_file": status_file}) as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(y, feed) == 32 * 64 * 64
        first = next(iter(sess.gpu_status()["gpuUsageInfo"].values()))
        assert first["device"] == "GPU:0" and first["perfControl"] == 100
        sess.set_gpu_config(max_device_mem=512 << 20, perf_control=50)
        sess.set_gpu_config(perf_control=60)  # The limit stays as written.
        deadline, info = time.monotonic() + 30, first
        while time.monotonic() < deadline:
            sess.run(y, feed)
            info = next(iter(sess.gpu_status()["gpuUsageInfo"].values()))
            if info["perfControl"] == 60 and info["deviceMemLimit"] == 512 << 20:
                break
        assert (info["perfControl"], info["deviceMemLimit"]) == (60, 512 << 20)
        with pytest.raises(tf.errors.InvalidArgumentError, match="perf_control wants 0..100"):
            sess.set_gpu_config(perf_control=101)
        with pytest.raises(tf.errors.InvalidArgumentError, match="positive number of bytes"):
            sess.set_gpu_config(max_device_mem=0)
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.set_gpu_config(max_device_mem=1 << 30, device="CPU:0")


def test_without_a_config_file_the_settings_are_refused(graph):
    tf.constant(1.0)
    with tf.Session(graph=graph) as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="no GPU config file"):
            sess.set_gpu_config(perf_control=50)
        with pytest.raises(ValueError, match="no GPU status file"):
            sess.gpu_status()
