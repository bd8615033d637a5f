"""Graphs built from Python: scenarios of TensorFlow's ops_test.py,
gradients_test.py and the optimizers' tests (gradient_descent_test.py,
momentum_test.py, adam_test.py), written for minitf."""

from conftest import CPU, need

need()

import numpy as np
import pytest

import minitf as tf


def test_names_are_unique_and_scoped(graph):
    a = tf.constant(1.0, name="c")
    b = tf.constant(2.0, name="c")
    assert (a.name, b.name) == ("c:0", "c_1:0")
    with tf.name_scope("layer"):
        c = tf.add(a, b, name="sum")
        d = tf.add(a, b)
    assert c.name == "layer/sum:0"
    assert d.op.name == "layer/AddV2" and d.op.type == "AddV2"
    assert graph.get_tensor_by_name("layer/sum:0") is c
    assert a.graph is graph and a.dtype == tf.float32


def test_operators_and_constants_follow_tensorflows_types(graph):
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    i = tf.constant([1, 2])
    assert x.dtype == tf.float32 and i.dtype == tf.int32
    y = (x + 1) * 2 - x / 2
    z = x @ x
    with tf.Session(graph=graph, config=CPU) as sess:
        y_val, z_val, neg = sess.run([y, z, -i])
    xv = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    np.testing.assert_allclose(y_val, (xv + 1) * 2 - xv / 2)
    np.testing.assert_allclose(z_val, xv @ xv)
    np.testing.assert_array_equal(neg, [-1, -2])


def test_reductions_over_all_axes_and_one(graph):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    total, rows, kept = tf.reduce_sum(x), tf.reduce_mean(x, axis=1), tf.reduce_max(x, 0, True)
    value = np.arange(6, dtype=np.float32).reshape(2, 3)
    with tf.Session(graph=graph, config=CPU) as sess:
        t, r, k = sess.run([total, rows, kept], {x: value})
    assert t == 15.0
    np.testing.assert_allclose(r, [1.0, 4.0])
    np.testing.assert_allclose(k, [[3.0, 4.0, 5.0]])


def test_session_sees_nodes_added_after_it_was_made(graph):
    a = tf.constant(3.0)
    sess = tf.Session(graph=graph, config=CPU)
    assert sess.run(a) == 3.0
    b = a * a
    assert sess.run(b) == 9.0
    sess.close()


def test_threads_running_a_grown_graph_extend_the_session_once(graph):
    import threading
    a = tf.constant(2.0)
    sess = tf.Session(graph=graph, config=CPU)
    assert sess.run(a) == 2.0
    # Nodes added after the session was made (many, so that taking them in
    # takes a while): the next runs bring them in.
    b = a
    for _ in range(3000):
        b = b + 1.0
    start = threading.Barrier(4)
    results, errors = [], []

    def worker():
        start.wait()
        try:
            for _ in range(5):
                results.append(sess.run(b))
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    sess.close()
    assert errors == [] and results == [3002.0] * 20


def test_gradients(graph):
    x = tf.placeholder(tf.float32, name="x")
    y = 3.0 * tf.square(x)
    unrelated = tf.placeholder(tf.float32, name="u")
    dx, du = tf.gradients(y, [x, unrelated])
    assert du is None
    seeded, = tf.gradients([y], [x], grad_ys=[tf.constant([2.0, 0.5])])
    with tf.Session(graph=graph, config=CPU) as sess:
        np.testing.assert_allclose(sess.run(dx, {x: [1.0, -2.0]}), [6.0, -12.0])
        np.testing.assert_allclose(sess.run(seeded, {x: [1.0, -2.0]}), [12.0, -6.0])


def _quadratic_problem():
    # TensorFlow's optimizer tests: the loss's gradient is grads0 for var0,
    # grads1 for var1.
    var0 = tf.Variable([1.0, 2.0], name="var0")
    var1 = tf.Variable([3.0, 4.0], name="var1")
    loss = tf.reduce_sum(var0 * tf.constant([0.1, 0.1])) + tf.reduce_sum(
        var1 * tf.constant([0.01, 0.01]))
    return var0, var1, loss


def test_gradient_descent(graph):
    var0, var1, loss = _quadratic_problem()
    train = tf.train.GradientDescentOptimizer(3.0).minimize(loss)
    with tf.Session(graph=graph, config=CPU) as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(var0), [1.0, 2.0])
        sess.run(train)
        np.testing.assert_allclose(sess.run(var0), [1.0 - 3.0 * 0.1, 2.0 - 3.0 * 0.1], rtol=1e-6)
        np.testing.assert_allclose(sess.run(var1), [3.0 - 3.0 * 0.01, 4.0 - 3.0 * 0.01],
                                   rtol=1e-6)


def test_momentum(graph):
    var0, _, loss = _quadratic_problem()
    train = tf.train.MomentumOptimizer(learning_rate=2.0, momentum=0.9).minimize(loss)
    with tf.Session(graph=graph, config=CPU) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        np.testing.assert_allclose(sess.run(var0), [1.0 - 0.1 * 2.0, 2.0 - 0.1 * 2.0], rtol=1e-6)
        sess.run(train)
        accum = 0.9 * 0.1 + 0.1
        np.testing.assert_allclose(
            sess.run(var0), [1.0 - 0.1 * 2.0 - accum * 2.0, 2.0 - 0.1 * 2.0 - accum * 2.0],
            rtol=1e-6)


def test_adam_matches_the_numpy_reference(graph):
    var0, _, loss = _quadratic_problem()
    train = tf.train.AdamOptimizer(learning_rate=0.001).minimize(loss)
    m = v = np.zeros(2)
    want = np.array([1.0, 2.0])
    with tf.Session(graph=graph, config=CPU) as sess:
        sess.run(tf.global_variables_initializer())
        for t in range(1, 4):
            sess.run(train)
            g = np.array([0.1, 0.1])
            m = 0.9 * m + 0.1 * g
            v = 0.999 * v + 0.001 * g * g
            lr = 0.001 * np.sqrt(1 - 0.999**t) / (1 - 0.9**t)
            want = want - lr * m / (np.sqrt(v) + 1e-8)
            np.testing.assert_allclose(sess.run(var0), want, rtol=1e-5)


def test_a_bad_op_raises_and_the_graph_goes_on(graph):
    a = tf.constant([1.0, 2.0])
    i = tf.constant([1, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="AddV2"):
        tf.add(a, i)
    with pytest.raises(tf.errors.NotFoundError):
        graph.create_op("NoSuchOp", [], {})
    b = a + a
    with tf.Session(graph=graph, config=CPU) as sess:
        np.testing.assert_allclose(sess.run(b), [2.0, 4.0])


def test_raw_ops_and_attrs(graph):
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    product = tf.raw_ops.MatMul(a=a, b=a, transpose_a=True, name="product")
    with pytest.raises(TypeError, match="missing inputs"):
        tf.raw_ops.MatMul(a=a)
    with pytest.raises(TypeError, match="no attrs"):
        tf.raw_ops.MatMul(a=a, b=a, colour=1)
    with tf.Session(graph=graph, config=CPU) as sess:
        av = np.array([[1.0, 2.0], [3.0, 4.0]])
        np.testing.assert_allclose(sess.run(product), av.T @ av)


def test_gen_ops_take_inputs_by_position_and_attrs_by_keyword(graph):
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    product = tf.gen_ops.mat_mul(a, a, transpose_b=True, name="p")
    grad = tf.gen_ops.bias_add_grad(a)
    assert tf.gen_ops.mat_mul.__name__ == "mat_mul" and product.op.name == "p"
    assert hasattr(tf.gen_ops, "fused_batch_norm_v3") and hasattr(tf.gen_ops, "add_v2")
    with pytest.raises(TypeError, match="takes 2 inputs"):
        tf.gen_ops.mat_mul(a, a, a)
    with tf.Session(graph=graph, config=CPU) as sess:
        av = np.array([[1.0, 2.0], [3.0, 4.0]])
        np.testing.assert_allclose(sess.run(product), av @ av.T)
        np.testing.assert_allclose(sess.run(grad), [4.0, 6.0])


def test_bias_add_takes_tensorflows_data_formats(graph):
    value = tf.constant(np.arange(8, dtype=np.float32).reshape(1, 2, 2, 2))
    bias = tf.constant([10.0, 100.0])
    nchw = tf.nn.bias_add(value, bias, data_format="NCHW")
    nc_dots = tf.nn.bias_add(value, bias, data_format="NC...")
    nhwc = tf.nn.bias_add(value, bias, data_format="N...C")
    with pytest.raises(ValueError, match="N...C"):
        tf.nn.bias_add(value, bias, data_format="CHWN")
    with tf.Session(graph=graph, config=CPU) as sess:
        v = np.arange(8, dtype=np.float32).reshape(1, 2, 2, 2)
        np.testing.assert_allclose(sess.run(nchw), v + np.array([10.0, 100.0]).reshape(1, 2, 1, 1))
        np.testing.assert_allclose(sess.run(nc_dots), sess.run(nchw))
        np.testing.assert_allclose(sess.run(nhwc), v + np.array([10.0, 100.0]))


def test_control_dependencies_and_group(graph):
    v = tf.Variable(0, name="counter")
    inc = v.assign_add(1)
    with tf.control_dependencies([inc]):
        after = tf.identity(tf.constant(7))
    step = tf.group(inc, name="step")
    with tf.Session(graph=graph, config=CPU) as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(after) == 7
        assert sess.run(step) is None
        assert sess.run(v) == 2


def test_as_graph_def_runs_in_a_session_of_its_own(graph):
    x = tf.placeholder(tf.float32, name="x")
    tf.multiply(x, 2.0, name="double")
    graph_def = graph.as_graph_def()
    assert 'name: "double"' in str(graph_def)
    with tf.Session(graph=graph_def.SerializeToString(), config=CPU) as sess:
        assert sess.run("double:0", {"x:0": 4.0}) == 8.0


def test_mlp_learns_xor(graph):
    rng = np.random.default_rng(0)
    inputs = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], np.float32)
    labels = np.array([0, 1, 1, 0], np.int32)
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = tf.placeholder(tf.int32, [None], name="y")
    w1 = tf.Variable(rng.standard_normal([2, 8]).astype(np.float32), name="w1")
    b1 = tf.Variable(np.zeros([8], np.float32), name="b1")
    w2 = tf.Variable(rng.standard_normal([8, 2]).astype(np.float32), name="w2")
    b2 = tf.Variable(np.zeros([2], np.float32), name="b2")
    hidden = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w1), b1))
    logits = tf.matmul(hidden, w2) + b2
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1, tf.int32), y), tf.float32))
    with tf.Session(graph=graph, config=CPU) as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(300):
            sess.run(train, {x: inputs, y: labels})
        assert sess.run(accuracy, {x: inputs, y: labels}) == 1.0


def test_a_tf_compat_v1_script_runs_unchanged(graph):
    v1 = tf.compat.v1
    v1.disable_eager_execution()
    x = v1.placeholder(v1.float32, shape=[None, 2], name="x")
    w = v1.Variable([[1.0], [2.0]], name="w")
    loss = v1.reduce_mean(v1.square(v1.matmul(x, w)))
    train = v1.train.GradientDescentOptimizer(0.1).minimize(loss)
    with v1.Session(config=v1.ConfigProto(device_count={"GPU": 0})) as sess:
        sess.run(v1.global_variables_initializer())
        before = sess.run(loss, {x: [[1.0, 1.0]]})
        sess.run(train, {x: [[1.0, 1.0]]})
        assert sess.run(loss, {x: [[1.0, 1.0]]}) < before
