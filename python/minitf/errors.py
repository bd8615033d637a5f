"""Errors as TensorFlow's Python API raises them (``tf.errors``).

Every failing minitf call raises a subclass of :class:`OpError` chosen by its
status code, as ``tf.errors`` does: ``InvalidArgumentError`` for
INVALID_ARGUMENT, ``ResourceExhaustedError`` for RESOURCE_EXHAUSTED, and so
on. The error carries the code, the message and, where the message names one,
the node at fault.
"""

from __future__ import annotations

import re
from typing import Optional

# The codes of absl::Status, which are TensorFlow's error codes.
OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """A failed minitf operation (``tf.errors.OpError``)."""

    def __init__(self, node_def, op, message: str, error_code: int):
        super().__init__(message)
        self._node_def = node_def
        self._op = op
        self._message = message
        self._error_code = error_code

    @property
    def message(self) -> str:
        """The error message."""
        return self._message

    @property
    def error_code(self) -> int:
        """The status code (``minitf.errors.INVALID_ARGUMENT``, ...)."""
        return self._error_code

    @property
    def op(self):
        """TensorFlow gives the failing Operation here; minitf gives None."""
        return self._op

    @property
    def node_def(self):
        """The name of the node at fault, when the message names one; else None."""
        return self._node_def

    def __str__(self) -> str:
        return self._message


def _error_class(name: str, code: int, doc: str):
    def __init__(self, node_def, op, message, *args):
        OpError.__init__(self, node_def, op, message, code)

    return type(name, (OpError,), {"__init__": __init__, "__doc__": doc})


CancelledError = _error_class("CancelledError", CANCELLED, "The step was cancelled.")
UnknownError = _error_class("UnknownError", UNKNOWN, "An unknown error.")
InvalidArgumentError = _error_class(
    "InvalidArgumentError", INVALID_ARGUMENT, "An argument (a feed, a fetch, an attr) is wrong.")
DeadlineExceededError = _error_class(
    "DeadlineExceededError", DEADLINE_EXCEEDED, "The step ran past its deadline.")
NotFoundError = _error_class("NotFoundError", NOT_FOUND, "A node, file or resource is missing.")
AlreadyExistsError = _error_class("AlreadyExistsError", ALREADY_EXISTS, "It exists already.")
PermissionDeniedError = _error_class(
    "PermissionDeniedError", PERMISSION_DENIED, "Permission denied.")
ResourceExhaustedError = _error_class(
    "ResourceExhaustedError", RESOURCE_EXHAUSTED, "Out of memory, or another resource.")
FailedPreconditionError = _error_class(
    "FailedPreconditionError", FAILED_PRECONDITION,
    "The state does not allow it (an uninitialized variable).")
AbortedError = _error_class("AbortedError", ABORTED, "The operation was aborted.")
OutOfRangeError = _error_class("OutOfRangeError", OUT_OF_RANGE, "Past the end of a range.")
UnimplementedError = _error_class("UnimplementedError", UNIMPLEMENTED, "Not implemented.")
InternalError = _error_class("InternalError", INTERNAL, "An internal error.")
UnavailableError = _error_class("UnavailableError", UNAVAILABLE, "Unavailable.")
DataLossError = _error_class("DataLossError", DATA_LOSS, "Data was lost or corrupted.")
UnauthenticatedError = _error_class(
    "UnauthenticatedError", UNAUTHENTICATED, "Not authenticated.")

_CLASS_BY_CODE = {
    CANCELLED: CancelledError,
    UNKNOWN: UnknownError,
    INVALID_ARGUMENT: InvalidArgumentError,
    DEADLINE_EXCEEDED: DeadlineExceededError,
    NOT_FOUND: NotFoundError,
    ALREADY_EXISTS: AlreadyExistsError,
    PERMISSION_DENIED: PermissionDeniedError,
    RESOURCE_EXHAUSTED: ResourceExhaustedError,
    FAILED_PRECONDITION: FailedPreconditionError,
    ABORTED: AbortedError,
    OUT_OF_RANGE: OutOfRangeError,
    UNIMPLEMENTED: UnimplementedError,
    INTERNAL: InternalError,
    UNAVAILABLE: UnavailableError,
    DATA_LOSS: DataLossError,
    UNAUTHENTICATED: UnauthenticatedError,
}

# How minitf's messages name a node: "Node 'name'" (the executor), "node
# 'name'" or "node name" (placement, graph building).
_NODE_PATTERN = re.compile(r"[Nn]ode '([^']+)'")


def exception_type_from_error_code(error_code: int) -> type:
    """The OpError subclass for a code (``tf.errors.exception_type_from_error_code``)."""
    return _CLASS_BY_CODE.get(error_code, UnknownError)


def error_code_from_exception_type(cls: type) -> int:
    """The code of an OpError subclass."""
    for code, error_class in _CLASS_BY_CODE.items():
        if error_class is cls:
            return code
    return UNKNOWN


def _from_status(code: int, message: str) -> OpError:
    """The exception for a failed status (called by the native module)."""
    match = _NODE_PATTERN.search(message)
    node: Optional[str] = match.group(1) if match else None
    return exception_type_from_error_code(code)(node, None, message)
