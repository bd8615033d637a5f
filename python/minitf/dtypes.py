"""The tensor types minitf runs, under TensorFlow's names (``tf.float32``, ...)."""

from __future__ import annotations

import numpy as np


class DType:
    """A tensor type (``tf.DType``): its name, enum value and NumPy dtype."""

    def __init__(self, name: str, enum: int, numpy_dtype):
        self._name = name
        self._enum = enum
        self._numpy_dtype = numpy_dtype

    @property
    def name(self) -> str:
        return self._name

    @property
    def as_datatype_enum(self) -> int:
        """The DataType value in a GraphDef (DT_FLOAT is 1)."""
        return self._enum

    @property
    def as_numpy_dtype(self):
        return self._numpy_dtype

    def __eq__(self, other) -> bool:
        try:
            return as_dtype(other)._enum == self._enum
        except TypeError:
            return False

    def __hash__(self) -> int:
        return self._enum

    def __repr__(self) -> str:
        return f"tf.{self._name}"


float32 = DType("float32", 1, np.float32)
float64 = DType("float64", 2, np.float64)
int32 = DType("int32", 3, np.int32)
int64 = DType("int64", 9, np.int64)
bool = DType("bool", 10, np.bool_)  # noqa: A001 (TensorFlow's name)
resource = DType("resource", 20, object)
double = float64

_ALL = (float32, float64, int32, int64, bool, resource)


def as_dtype(value) -> DType:
    """The DType for a DType, a name ("float32"), a DataType enum or a NumPy dtype."""
    if isinstance(value, DType):
        return value
    for dtype in _ALL:
        if isinstance(value, str) and value == dtype.name:
            return dtype
        if isinstance(value, int) and value == dtype.as_datatype_enum:
            return dtype
    try:
        numpy_dtype = np.dtype(value)
    except TypeError:
        numpy_dtype = None
    if numpy_dtype is not None:
        for dtype in _ALL[:-1]:
            if np.dtype(dtype.as_numpy_dtype) == numpy_dtype:
                return dtype
    raise TypeError(f"Cannot convert {value!r} to a minitf DType")
