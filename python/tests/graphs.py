"""Small GraphDefs in TensorFlow's text format, for the package's tests."""

from __future__ import annotations

import os
import tempfile
from typing import Dict, List, Optional


def _attr(key: str, value: str) -> str:
    return f'attr {{ key: "{key}" value {{ {value} }} }}'


def node(name: str, op: str, inputs: Optional[List[str]] = None,
         attrs: Optional[Dict[str, str]] = None) -> str:
    parts = [f'name: "{name}"', f'op: "{op}"']
    parts += [f'input: "{i}"' for i in inputs or []]
    parts += [_attr(k, v) for k, v in (attrs or {}).items()]
    return "node { " + " ".join(parts) + " }"


def placeholder(name: str, dtype: str = "DT_FLOAT") -> str:
    return node(name, "Placeholder", attrs={"dtype": f"type: {dtype}"})


def const(name: str, value, dtype: str = "DT_FLOAT") -> str:
    field = {"DT_FLOAT": "float_val", "DT_INT32": "int_val", "DT_INT64": "int64_val",
             "DT_DOUBLE": "double_val", "DT_BOOL": "bool_val"}[dtype]
    text = str(value).lower() if dtype == "DT_BOOL" else repr(value)
    tensor = f"tensor {{ dtype: {dtype} tensor_shape {{ }} {field}: {text} }}"
    return node(name, "Const", attrs={"dtype": f"type: {dtype}", "value": tensor})


def binary(name: str, op: str, a: str, b: str, dtype: str = "DT_FLOAT") -> str:
    return node(name, op, [a, b], {"T": f"type: {dtype}"})


def graph(*nodes: str) -> str:
    """A .pbtxt file holding the nodes (removed when the process ends)."""
    fd, path = tempfile.mkstemp(suffix=".pbtxt", prefix="minitf_test_")
    with os.fdopen(fd, "w") as f:
        f.write("\n".join(nodes))
    _FILES.append(path)
    return path


_FILES: List[str] = []


def remove_files() -> None:
    for path in _FILES:
        if os.path.exists(path):
            os.remove(path)
    _FILES.clear()


def add_graph() -> str:
    """z = x + y on float placeholders; w = z * 2."""
    return graph(placeholder("x"), placeholder("y"), binary("z", "AddV2", "x", "y"),
                 const("two", 2.0), binary("w", "Mul", "z", "two"))


def counting_loop() -> str:
    """A while loop (TensorFlow v1's frames) counting an int32 from 0 to the
    placeholder n; its Exit is "loop/Exit:0"."""
    i32 = {"T": "type: DT_INT32"}
    enter = dict(i32, frame_name='s: "loop"', parallel_iterations="i: 10")
    return graph(
        placeholder("n", "DT_INT32"), const("zero", 0, "DT_INT32"), const("one", 1, "DT_INT32"),
        node("loop/Enter", "Enter", ["zero"], dict(enter, is_constant="b: false")),
        node("loop/Enter_n", "Enter", ["n"], dict(enter, is_constant="b: true")),
        node("loop/Enter_one", "Enter", ["one"], dict(enter, is_constant="b: true")),
        node("loop/Merge", "Merge", ["loop/Enter", "loop/NextIteration"], dict(i32, N="i: 2")),
        node("loop/Less", "Less", ["loop/Merge", "loop/Enter_n"], i32),
        node("loop/LoopCond", "LoopCond", ["loop/Less"]),
        node("loop/Switch", "Switch", ["loop/Merge", "loop/LoopCond"], i32),
        node("loop/Identity", "Identity", ["loop/Switch:1"], i32),
        node("loop/add", "AddV2", ["loop/Identity", "loop/Enter_one"], i32),
        node("loop/NextIteration", "NextIteration", ["loop/add"], i32),
        node("loop/Exit", "Exit", ["loop/Switch"], i32))
