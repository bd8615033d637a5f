"""minitf.Session against the scenarios of TensorFlow's session_test.py."""

from conftest import need

need()

import collections
import threading

import numpy as np
import pytest

import graphs
import minitf as tf


@pytest.fixture
def add_session():
    with tf.Session(graph=graphs.add_graph()) as sess:
        yield sess


FEED = {"x:0": np.array([1.0, 2.0], np.float32), "y:0": np.array([10.0, 20.0], np.float32)}


def test_fetch_single_tensor(add_session):
    out = add_session.run("z:0", FEED)
    assert isinstance(out, np.ndarray)
    np.testing.assert_array_equal(out, [11.0, 22.0])
    assert out.dtype == np.float32


def test_fetch_list_tuple_namedtuple(add_session):
    z, w = add_session.run(["z:0", "w:0"], FEED)
    np.testing.assert_array_equal(w, [22.0, 44.0])
    out = add_session.run(("z:0", "w:0"), FEED)
    assert isinstance(out, tuple) and len(out) == 2
    Pair = collections.namedtuple("Pair", ["a", "b"])
    pair = add_session.run(Pair("w:0", "z:0"), FEED)
    assert isinstance(pair, Pair)
    np.testing.assert_array_equal(pair.a, [22.0, 44.0])
    np.testing.assert_array_equal(pair.b, [11.0, 22.0])


def test_fetch_dict_and_ordered_dict(add_session):
    out = add_session.run({"sum": "z:0", "twice": "w:0"}, FEED)
    assert set(out) == {"sum", "twice"}
    np.testing.assert_array_equal(out["twice"], [22.0, 44.0])
    ordered = collections.OrderedDict([("b", "w:0"), ("a", "z:0")])
    out = add_session.run(ordered, FEED)
    assert isinstance(out, collections.OrderedDict)
    assert list(out) == ["b", "a"]
    default = collections.defaultdict(list, {"z": "z:0"})
    out = add_session.run(default, FEED)
    assert isinstance(out, collections.defaultdict) and out.default_factory is list


def test_fetch_nested_and_empty(add_session):
    out = add_session.run({"a": ["z:0", ("w:0", {"c": "z:0"})], "e": [], "t": (), "d": {}}, FEED)
    np.testing.assert_array_equal(out["a"][1][1]["c"], [11.0, 22.0])
    assert out["e"] == [] and out["t"] == () and out["d"] == {}
    assert add_session.run([], FEED) == []


def test_fetch_same_tensor_twice(add_session):
    a, b = add_session.run(["z:0", "z:0"], FEED)
    np.testing.assert_array_equal(a, b)


def test_fetch_node_name_runs_it_and_gives_none(add_session):
    assert add_session.run("w", FEED) is None
    out = add_session.run(["w", "z:0"], FEED)
    assert out[0] is None
    np.testing.assert_array_equal(out[1], [11.0, 22.0])


def test_fetch_none_is_a_type_error(add_session):
    with pytest.raises(TypeError, match="Fetch argument None"):
        add_session.run(None)
    with pytest.raises(TypeError, match="Fetch argument None"):
        add_session.run(["z:0", None], FEED)


def test_fetch_object_with_a_name(add_session):
    class FakeTensor:
        name = "z:0"

    np.testing.assert_array_equal(add_session.run(FakeTensor(), FEED), [11.0, 22.0])


def test_scalar_fetch_is_a_numpy_scalar(add_session):
    out = add_session.run("w:0", {"x:0": 1.0, "y:0": 2.0})
    assert isinstance(out, np.float32)
    assert out == 6.0


def test_feed_is_converted_to_the_placeholder_dtype(add_session):
    # Python floats and ints, lists and float64 arrays, as TensorFlow converts them.
    out = add_session.run("z:0", {"x:0": [1, 2], "y:0": np.array([0.5, 0.25])})
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [1.5, 2.25])


def test_feed_and_fetch_each_dtype():
    for dtype, np_dtype, value in [("DT_FLOAT", np.float32, [1.5, -2.0]),
                                   ("DT_DOUBLE", np.float64, [1e-300, 3.0]),
                                   ("DT_INT32", np.int32, [2**31 - 1, -7]),
                                   ("DT_INT64", np.int64, [2**62, -1]),
                                   ("DT_BOOL", np.bool_, [True, False])]:
        path = graphs.graph(graphs.placeholder("p", dtype),
                            graphs.node("id", "Identity", ["p"], {"T": f"type: {dtype}"}))
        with tf.Session(graph=path) as sess:
            fed = np.array(value, np_dtype)
            out = sess.run("id:0", {"p:0": fed})
            assert out.dtype == np_dtype, dtype
            np.testing.assert_array_equal(out, fed)


def test_fetched_array_outlives_the_session():
    sess = tf.Session(graph=graphs.add_graph())
    out = sess.run("z:0", FEED)
    sess.close()
    del sess
    np.testing.assert_array_equal(out, [11.0, 22.0])


def test_feed_key_naming_an_operation_is_a_type_error(add_session):
    with pytest.raises(TypeError, match="Cannot interpret feed_dict key"):
        add_session.run("z:0", {"x": 1.0, "y:0": 1.0})


def test_missing_feed_is_invalid_argument(add_session):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        add_session.run("z:0", {"x:0": 1.0})
    assert info.value.error_code == tf.errors.INVALID_ARGUMENT


def test_unknown_fetch_is_not_found(add_session):
    with pytest.raises(tf.errors.NotFoundError, match="nope"):
        add_session.run("nope:0", FEED)


def test_incompatible_feed_shapes_are_invalid_argument(add_session):
    with pytest.raises(tf.errors.InvalidArgumentError):
        add_session.run("z:0", {"x:0": np.ones([2], np.float32), "y:0": np.ones([3], np.float32)})


def test_unconvertible_feed_names_the_feed(add_session):
    # A placeholder's value is converted to its dtype, in Python.
    with pytest.raises(ValueError, match="feed 'x:0'.*float32"):
        add_session.run("z:0", {"x:0": np.array(["a"]), "y:0": 1.0})
    # Any other tensor may be fed too; a dtype minitf has no type for is an
    # InvalidArgumentError naming the feed.
    with pytest.raises(tf.errors.InvalidArgumentError, match="feed 'z:0'.*<U1"):
        add_session.run("w:0", {"z:0": np.array(["a"])})


def test_use_after_close():
    sess = tf.Session(graph=graphs.add_graph())
    sess.close()
    with pytest.raises(RuntimeError, match="closed Session"):
        sess.run("z:0", FEED)
    sess.close()  # A second close does nothing.


def test_with_block_closes():
    with tf.Session(graph=graphs.add_graph()) as sess:
        sess.run("z:0", FEED)
    with pytest.raises(RuntimeError):
        sess.run("z:0", FEED)


def test_graph_from_serialized_bytes_and_objects():
    path = "tests/fixtures/tf/linear_gd/graph.pb"
    import os
    path = os.path.join(os.environ.get("MINITF_SOURCE_DIR", "."), path)
    with open(path, "rb") as f:
        data = f.read()

    class FakeGraphDef:
        def SerializeToString(self):
            return data

    for graph in (data, FakeGraphDef()):
        with tf.Session(graph=graph) as sess:
            assert sess.run("init") is None


def test_bad_graph_is_invalid_argument():
    with pytest.raises(tf.errors.OpError):
        tf.Session(graph=b"\xff\xfe not a graph")
    with pytest.raises(TypeError):
        tf.Session(graph=12)


def test_config_fields():
    config = tf.ConfigProto(inter_op_parallelism_threads=2, intra_op_parallelism_threads=1,
                            device_count={"GPU": 0}, optimize=False)
    with tf.Session(graph=graphs.add_graph(), config=config) as sess:
        assert [d.device_type for d in sess.list_devices()] == ["CPU"]
        np.testing.assert_array_equal(sess.run("z:0", FEED), [11.0, 22.0])
    with pytest.raises(ValueError, match="no field"):
        tf.ConfigProto(gpu_options=1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="unknown field 'colour'"):
        tf.Session(graph=graphs.add_graph(), config={"colour": "blue"})


def test_per_step_trace(add_session):
    metadata = tf.RunMetadata()
    add_session.run("w:0", FEED, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                    run_metadata=metadata)
    nodes = [n["node_name"] for d in metadata.step_stats["dev_stats"] for n in d["node_stats"]]
    assert "z" in nodes and "w" in nodes
    untraced = tf.RunMetadata()
    add_session.run("w:0", FEED, run_metadata=untraced)
    assert untraced.step_stats is None


def test_run_timeout_is_deadline_exceeded():
    with tf.Session(graph=graphs.counting_loop()) as sess:
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess.run("loop/Exit:0", {"n:0": 2**31 - 1},
                     options=tf.RunOptions(timeout_in_ms=100))
        # The session still runs.
        assert sess.run("loop/Exit:0", {"n:0": 5}) == 5
    config = tf.ConfigProto(operation_timeout_in_ms=100)
    with tf.Session(graph=graphs.counting_loop(), config=config) as sess:
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess.run("loop/Exit:0", {"n:0": 2**31 - 1})


def test_make_callable(add_session):
    call = add_session.make_callable(["z:0", {"w": "w:0"}], feed_list=["x:0", "y:0"])
    for i in range(3):
        z, out = call(np.float32(i), [1.0])
        np.testing.assert_array_equal(z, [i + 1.0])
        np.testing.assert_array_equal(out["w"], [2 * (i + 1.0)])
    with pytest.raises(TypeError, match="takes 2 feed values"):
        call(1.0)
    node_only = add_session.make_callable("w", feed_list=["x:0", "y:0"])
    assert node_only(1.0, 2.0) is None


def test_concurrent_runs_from_threads(add_session):
    errors = []

    def worker(k):
        try:
            for i in range(200):
                out = add_session.run("w:0", {"x:0": float(k), "y:0": float(i)})
                if out != 2.0 * (k + i):
                    errors.append((k, i, out))
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_close_cancels_runs_in_other_threads():
    sess = tf.Session(graph=graphs.counting_loop())
    outcome = []

    def worker():
        try:
            sess.run("loop/Exit:0", {"n:0": 2**31 - 1})
            outcome.append("finished")
        except tf.errors.CancelledError:
            outcome.append("cancelled")

    thread = threading.Thread(target=worker)
    thread.start()
    import time
    time.sleep(0.2)
    sess.close()
    thread.join(timeout=30)
    assert not thread.is_alive()
    assert outcome == ["cancelled"]
