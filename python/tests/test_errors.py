"""minitf.errors against TensorFlow's errors_test.py: a class per code, the
code of each class, the node named by the message."""

from conftest import need

need()

import pytest

import graphs
import minitf as tf
from minitf import errors


def test_every_code_has_its_class():
    names = {
        errors.CANCELLED: "CancelledError", errors.UNKNOWN: "UnknownError",
        errors.INVALID_ARGUMENT: "InvalidArgumentError",
        errors.DEADLINE_EXCEEDED: "DeadlineExceededError", errors.NOT_FOUND: "NotFoundError",
        errors.ALREADY_EXISTS: "AlreadyExistsError",
        errors.PERMISSION_DENIED: "PermissionDeniedError",
        errors.RESOURCE_EXHAUSTED: "ResourceExhaustedError",
        errors.FAILED_PRECONDITION: "FailedPreconditionError", errors.ABORTED: "AbortedError",
        errors.OUT_OF_RANGE: "OutOfRangeError", errors.UNIMPLEMENTED: "UnimplementedError",
        errors.INTERNAL: "InternalError", errors.UNAVAILABLE: "UnavailableError",
        errors.DATA_LOSS: "DataLossError", errors.UNAUTHENTICATED: "UnauthenticatedError",
    }
    for code, name in names.items():
        cls = errors.exception_type_from_error_code(code)
        assert cls.__name__ == name
        assert issubclass(cls, errors.OpError)
        assert errors.error_code_from_exception_type(cls) == code
        error = cls(None, None, "message")
        assert error.error_code == code and error.message == "message" and str(error) == "message"
    # An unknown code is UnknownError.
    assert errors.exception_type_from_error_code(1234) is errors.UnknownError


def test_a_failed_run_names_the_node():
    # A float placeholder fed to an int32 op's input: the executor names the node.
    path = graphs.graph(graphs.placeholder("n", "DT_INT32"),
                        graphs.node("bad", "Reshape", ["n", "n"],
                                    {"T": "type: DT_INT32", "Tshape": "type: DT_INT32"}))
    with tf.Session(graph=path) as sess:
        with pytest.raises(errors.InvalidArgumentError) as info:
            sess.run("bad:0", {"n:0": [5, 6]})
    assert info.value.node_def == "bad", str(info.value)
    assert "bad" in str(info.value)


def test_uninitialized_variable_is_failed_precondition():
    import os
    path = os.path.join(os.environ.get("MINITF_SOURCE_DIR", "."), "tests", "fixtures", "tf",
                        "linear_gd", "graph.pb")
    with tf.Session(graph=path) as sess:
        with pytest.raises(errors.FailedPreconditionError, match="uninitialized"):
            sess.run("w/read:0")
