"""TensorFlow's v1 Session over minitf's DirectSession (``tf.compat.v1.Session``)."""

from __future__ import annotations

import collections
import contextlib
import json
import os
import threading
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from minitf import _minitf
from minitf import dtypes as _dtypes
from minitf import framework as _framework


class _DefaultSessions(threading.local):
    def __init__(self):
        self.stack: List["Session"] = []


_default_sessions = _DefaultSessions()


def get_default_session() -> Optional["Session"]:
    """The innermost session of a ``with`` block or ``as_default()`` in this thread."""
    return _default_sessions.stack[-1] if _default_sessions.stack else None

_TEXT_SUFFIXES = (".pbtxt", ".txt")


class ConfigProto:
    """The ConfigProto fields minitf implements (``tf.compat.v1.ConfigProto``).

    ``optimize=False`` turns every graph pass off (TensorFlow's L0 with the
    meta-optimizer disabled). ``gpu_config_file``, ``gpu_status_file`` and
    ``pacing_policy`` are the AntMan control plane's (docs/ANTMAN.md).
    """

    FIELDS = ("inter_op_parallelism_threads", "intra_op_parallelism_threads", "device_count",
              "allow_soft_placement", "log_device_placement", "operation_timeout_in_ms",
              "optimize", "gpu_config_file", "gpu_status_file", "pacing_policy")

    def __init__(self, **fields):
        for name in fields:
            if name not in self.FIELDS:
                raise ValueError(f"ConfigProto has no field {name!r} (minitf has {self.FIELDS})")
        self.__dict__.update(fields)

    def as_dict(self) -> Dict[str, Any]:
        return {name: value for name, value in self.__dict__.items() if name in self.FIELDS}


class RunOptions:
    """``tf.compat.v1.RunOptions``: tracing (FULL_TRACE fills RunMetadata) and a deadline."""

    NO_TRACE = 0
    FULL_TRACE = 3  # TensorFlow's value; SOFTWARE_TRACE (1) and HARDWARE_TRACE (2) trace too.

    def __init__(self, trace_level: int = NO_TRACE, timeout_in_ms: int = 0):
        self.trace_level = trace_level
        self.timeout_in_ms = timeout_in_ms


class RunMetadata:
    """What a traced run reports: ``step_stats``, a dict of per-device node stats."""

    def __init__(self):
        self.step_stats: Optional[dict] = None


def _config_dict(config) -> Dict[str, Any]:
    if config is None:
        return {}
    if isinstance(config, dict):
        return dict(config)
    if isinstance(config, ConfigProto):
        return config.as_dict()
    if hasattr(config, "ListFields"):  # A TensorFlow ConfigProto.
        out: Dict[str, Any] = {}
        for field, value in config.ListFields():
            if field.name == "device_count":
                out["device_count"] = dict(value)
            elif field.name in ConfigProto.FIELDS:
                out[field.name] = value
            else:
                raise ValueError(f"ConfigProto field {field.name!r} is not implemented by minitf")
        return out
    raise TypeError(f"config must be a minitf.ConfigProto, a dict or a TensorFlow ConfigProto, "
                    f"not {type(config).__name__}")


def _graph_bytes(graph) -> Tuple[bytes, bool]:
    """The serialized GraphDef and whether it is text (a .pbtxt)."""
    if isinstance(graph, (str, os.PathLike)):
        path = os.fspath(graph)
        with open(path, "rb") as f:
            return f.read(), path.endswith(_TEXT_SUFFIXES)
    if isinstance(graph, (bytes, bytearray, memoryview)):
        return bytes(graph), False
    if hasattr(graph, "as_graph_def"):  # A Graph.
        graph = graph.as_graph_def()
    if hasattr(graph, "SerializeToString"):  # A GraphDef message.
        return graph.SerializeToString(), False
    raise TypeError("graph must be a path to a .pb or .pbtxt file, a serialized GraphDef, "
                    f"a GraphDef or a Graph, not {type(graph).__name__}")


def _name_of(element) -> str:
    if isinstance(element, str):
        return element
    name = getattr(element, "name", None)
    if isinstance(name, str):
        return name
    raise TypeError(f"Fetch argument {element!r} has invalid type {type(element)}, must be a "
                    "string or Tensor.")


class _FetchMapper:
    """Flattens a nested fetch structure into tensor and node names, and
    rebuilds the structure around the results (TensorFlow's _FetchMapper)."""

    def __init__(self, fetches):
        self.tensors: List[str] = []
        self.targets: List[str] = []
        self._rebuild = self._flatten(fetches)

    def _flatten(self, fetch) -> Callable[[List[Any]], Any]:
        if fetch is None:
            raise TypeError(f"Fetch argument None has invalid type {type(None)}")
        if isinstance(fetch, (list, tuple)):
            parts = [self._flatten(f) for f in fetch]
            if hasattr(fetch, "_fields"):  # A namedtuple.
                return lambda results: type(fetch)(*[p(results) for p in parts])
            return lambda results: type(fetch)(p(results) for p in parts)
        if isinstance(fetch, collections.abc.Mapping):
            keys = list(fetch.keys())
            parts = [self._flatten(fetch[k]) for k in keys]

            def rebuild(results):
                pairs = [(k, p(results)) for k, p in zip(keys, parts)]
                if isinstance(fetch, collections.defaultdict):
                    return collections.defaultdict(fetch.default_factory, pairs)
                return type(fetch)(pairs)
            return rebuild
        name = _name_of(fetch)
        if ":" not in name:
            # A node (TensorFlow's Operation): run for its effect; its result is None.
            if name not in self.targets:
                self.targets.append(name)
            return lambda results: None
        if name not in self.tensors:
            self.tensors.append(name)
        index = self.tensors.index(name)
        return lambda results: results[index]

    def build(self, results: List[Any]):
        return self._rebuild(results)


def _as_results(arrays: List[np.ndarray]) -> List[Any]:
    # As TensorFlow's: a scalar tensor's value is a NumPy scalar, not a 0-d array.
    return [a[()] if a.ndim == 0 else a for a in arrays]


def _feed_name(key) -> str:
    name = _name_of(key)
    if ":" not in name:
        raise TypeError(f"Cannot interpret feed_dict key as Tensor: the name {name!r} names an "
                        "operation; feed one of its outputs, as '{name}:0'")
    return name


class Session:
    """A session over one graph (``tf.compat.v1.Session``).

    ``graph`` is a path to a .pb or .pbtxt file, a serialized GraphDef, or a
    GraphDef or Graph object (TensorFlow's too: anything with
    ``SerializeToString`` or ``as_graph_def``). Fetches and feeds name
    tensors as TensorFlow does ("node:0"); a fetch without an output index
    names a node, which runs and gives None.
    """

    def __init__(self, target: str = "", graph=None, config=None):
        if target:
            raise ValueError("minitf runs in process: target must be ''")
        # A Python Graph (the default one when none is given) is followed:
        # the nodes added to it after the session was made join the
        # session's graph at the next run.
        if graph is None:
            graph = _framework.get_default_graph()
        self._graph = graph if isinstance(graph, _framework.Graph) else None
        if self._graph is not None:
            self._nodes_seen = self._graph._graph.num_nodes()
            data, is_text = self._graph._graph.serialize_from(0), False
        else:
            data, is_text = _graph_bytes(graph)
        self._config = config
        self._session = _minitf.Session(data, is_text, _config_dict(config))
        self._closed = False
        self._sync_lock = threading.Lock()
        self._default_contexts: List[Any] = []

    @property
    def graph(self):
        """The Python Graph the session runs, or None for a graph from a file or bytes."""
        return self._graph

    def __enter__(self) -> "Session":
        context = self.as_default()
        context.__enter__()
        self._default_contexts.append(context)
        return self

    def __exit__(self, *exc_info) -> None:
        if self._default_contexts:
            self._default_contexts.pop().__exit__(*exc_info)
        self.close()

    @contextlib.contextmanager
    def as_default(self):
        """Makes this the session Tensor.eval() uses, in this thread."""
        _default_sessions.stack.append(self)
        try:
            yield self
        finally:
            _default_sessions.stack.remove(self)

    def _sync_graph(self) -> None:
        if self._graph is None:
            return
        # Runs from several threads extend the session once (extend releases
        # the GIL while the session takes the nodes).
        with self._sync_lock:
            count = self._graph._graph.num_nodes()
            if count > self._nodes_seen:
                self._session.extend(self._graph._graph.serialize_from(self._nodes_seen))
                self._nodes_seen = count

    def __del__(self):
        # A session left open is closed when it goes; errors there go nowhere.
        try:
            self.close()
        except Exception:  # noqa: BLE001
            pass

    def close(self) -> None:
        """Cancels the running steps and frees the session's executors."""
        if getattr(self, "_closed", True):
            return
        self._closed = True
        self._session.close()

    def set_gpu_config(self, max_device_mem: Optional[int] = None,
                       perf_control: Optional[int] = None, device: str = "GPU:0") -> None:
        """Changes the session's GPU memory limit (bytes) and perfControl
        (0..100) between steps, through its AntMan config file (the
        ``gpu_config_file`` of its config); None keeps a setting. The
        session applies it before a step that follows."""
        self._check_open()
        self._session.set_gpu_config(max_device_mem, perf_control, device)

    def gpu_status(self) -> Optional[dict]:
        """The session's AntMan statistics file (``gpu_status_file``) as a
        dict, or None before it is written (docs/ANTMAN.md has its keys)."""
        path = _config_dict(self._config).get("gpu_status_file")
        if not path:
            raise ValueError("the session has no GPU status file: make it with config "
                             "gpu_status_file=PATH")
        try:
            with open(path) as f:
                return json.load(f)
        except FileNotFoundError:
            return None

    def list_devices(self) -> List["_DeviceAttributes"]:
        return [_DeviceAttributes(name) for name in self._session.list_devices()]

    def _feeds(self, feed_dict) -> List[Tuple[str, np.ndarray]]:
        feeds = []
        for key, value in (feed_dict or {}).items():
            name = _feed_name(key)
            feeds.append((name, self._as_feed_array(name, value, self._feed_dtype(name))))
        return feeds

    def _feed_dtype(self, name: str) -> Optional[_dtypes.DType]:
        """The dtype a feed of `name` is converted to: its placeholder's (as
        TensorFlow converts it), None for any other tensor."""
        enum = self._session.placeholder_dtype(name)
        return None if enum < 0 else _dtypes.as_dtype(enum)

    @staticmethod
    def _as_feed_array(name: str, value, dtype: Optional[_dtypes.DType]) -> np.ndarray:
        if dtype is None:
            return np.asarray(value)
        try:
            return np.asarray(value, dtype=dtype.as_numpy_dtype)
        except (TypeError, ValueError) as e:
            raise ValueError(f"feed '{name}': cannot convert the value to {dtype.name}: "
                             f"{e}") from e

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        self._sync_graph()

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs one step; returns the fetches' values in the fetches' structure."""
        self._check_open()
        mapper = _FetchMapper(fetches)
        trace = bool(options is not None and getattr(options, "trace_level", 0))
        timeout = int(getattr(options, "timeout_in_ms", 0) or 0) if options is not None else 0
        arrays, stats = self._session.run(self._feeds(feed_dict), mapper.tensors, mapper.targets,
                                          timeout, trace)
        if run_metadata is not None and stats is not None:
            run_metadata.step_stats = stats
        return mapper.build(_as_results(arrays))

    def make_callable(self, fetches, feed_list=None, accept_options=False):
        """A function of the feeds' values (in ``feed_list``'s order) that
        runs the fetches, bound once (``Session.make_callable``)."""
        self._check_open()
        if accept_options:
            raise NotImplementedError("minitf's callables take no per-call RunOptions")
        mapper = _FetchMapper(fetches)
        names = [_feed_name(key) for key in (feed_list or [])]
        handle = self._session.make_callable(names, mapper.tensors, mapper.targets)
        dtypes = [self._feed_dtype(n) for n in names]  # Looked up once, not per call.
        session = self

        def call(*values):
            if len(values) != len(names):
                raise TypeError(f"the callable takes {len(names)} feed values, "
                                f"{len(values)} given")
            arrays = [session._as_feed_array(n, v, d) for n, v, d in zip(names, values, dtypes)]
            session._check_open()
            return mapper.build(_as_results(session._session.run_callable(handle, arrays)))

        return call


class _DeviceAttributes:
    """A device of the session: its full name and type."""

    def __init__(self, name: str):
        self.name = name
        self.device_type = name.rsplit("/device:", 1)[-1].split(":")[0]

    def __repr__(self) -> str:
        return f"_DeviceAttributes({self.name}, {self.device_type})"
