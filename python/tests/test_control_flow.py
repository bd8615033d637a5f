"""tf.cond and tf.while_loop built from Python, after the scenarios of
TensorFlow's control_flow_ops_py_test.py (cond v1, while v1)."""

from conftest import CPU, need

need()

import numpy as np
import pytest

import minitf as tf


def test_cond_runs_the_taken_branch_only(graph):
    x = tf.placeholder(tf.float32, name="x")
    p = tf.placeholder(tf.bool, name="p")
    counter = tf.Variable(0, name="counter")

    def true_fn():
        with tf.control_dependencies([counter.assign_add(1)]):
            return x * 2.0

    y = tf.cond(p, true_fn, lambda: x - 1.0)
    with tf.Session(graph=graph, config=CPU) as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(y, {x: 3.0, p: True}) == 6.0
        assert sess.run(y, {x: 3.0, p: False}) == 2.0
        assert sess.run(counter) == 1  # The untaken branch's assign did not run.


def test_cond_with_constants_and_several_outputs(graph):
    p = tf.placeholder(tf.bool, name="p")
    a, b = tf.cond(p, lambda: (tf.constant(1), tf.constant([1.0, 2.0])),
                   lambda: (tf.constant(2), tf.constant([3.0, 4.0])))
    with tf.Session(graph=graph, config=CPU) as sess:
        assert sess.run(a, {p: True}) == 1
        np.testing.assert_array_equal(sess.run(b, {p: False}), [3.0, 4.0])


def test_cond_returning_an_outer_tensor(graph):
    x = tf.constant(5.0)
    p = tf.placeholder(tf.bool, name="p")
    y = tf.cond(p, lambda: x, lambda: x + 1.0)
    with tf.Session(graph=graph, config=CPU) as sess:
        assert sess.run(y, {p: True}) == 5.0 and sess.run(y, {p: False}) == 6.0


def test_cond_branches_must_match(graph):
    p = tf.placeholder(tf.bool, name="p")
    with pytest.raises(ValueError, match="true_fn returned 2 tensors, false_fn 1"):
        tf.cond(p, lambda: (tf.constant(1), tf.constant(2)), lambda: tf.constant(3))


def test_gradient_through_cond(graph):
    x = tf.placeholder(tf.float32, name="x")
    p = tf.placeholder(tf.bool, name="p")
    y = tf.cond(p, lambda: tf.square(x), lambda: 3.0 * x)
    dx, = tf.gradients(y, [x])
    with tf.Session(graph=graph, config=CPU) as sess:
        assert sess.run(dx, {x: 4.0, p: True}) == 8.0
        assert sess.run(dx, {x: 4.0, p: False}) == 3.0


def test_while_loop_counts(graph):
    n = tf.placeholder(tf.int32, name="n")
    result = tf.while_loop(lambda i: i < n, lambda i: i + 1, [0])
    with tf.Session(graph=graph, config=CPU) as sess:
        assert sess.run(result, {n: 10})[0] == 10
        assert sess.run(result, {n: -3})[0] == 0


def test_while_loop_with_an_outer_tensor_and_two_variables(graph):
    x = tf.placeholder(tf.float32, name="x")
    i, total = tf.while_loop(lambda i, s: i < 10,
                             lambda i, s: (i + 1, s + tf.cast(i, tf.float32) * x),
                             (tf.constant(0), tf.constant(0.0)))
    with tf.Session(graph=graph, config=CPU) as sess:
        assert sess.run([i, total], {x: 2.0}) == [10, 90.0]


def test_cond_inside_a_while_loop(graph):
    # Collatz steps of 6: 6 3 10 5 16 8 4 2 1 (8 steps).
    def body(n, steps):
        next_n = tf.cond(tf.equal(n % 2, 0), lambda: n // 2, lambda: 3 * n + 1)
        return next_n, steps + 1

    n, steps = tf.while_loop(lambda n, steps: n > 1, body, [tf.constant(6), tf.constant(0)])
    with tf.Session(graph=graph, config=CPU) as sess:
        assert sess.run([n, steps]) == [1, 8]


def test_two_loops_have_frames_of_their_own(graph):
    a = tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0])[0]
    b = tf.while_loop(lambda i: i < 5, lambda i: i + 2, [a])[0]
    with tf.Session(graph=graph, config=CPU) as sess:
        assert sess.run([a, b]) == [3, 5]
