"""minitf from Python: TensorFlow's v1 Session API over minitf's runtime.

    import minitf as tf
    with tf.Session(graph="model.pb") as sess:
        loss = sess.run("loss:0", feed_dict={"x:0": batch})

Errors are ``minitf.errors``' classes, named as ``tf.errors``'.
"""

from minitf import errors
from minitf.dtypes import DType, as_dtype, bool, double, float32, float64, int32, int64, resource
from minitf.session import ConfigProto, RunMetadata, RunOptions, Session

__all__ = [
    "ConfigProto", "DType", "RunMetadata", "RunOptions", "Session", "as_dtype", "bool",
    "double", "errors", "float32", "float64", "int32", "int64", "resource",
]
__version__ = "0.1.0"
