"""``tf.cond`` and ``tf.while_loop`` as TensorFlow 1.x builds them (its
control_flow_ops.py, cond v1 and while v1): Switch and Merge for a cond;
Enter, Merge, LoopCond, Switch, NextIteration and Exit for a loop, in a
frame of its own. A tensor from outside a branch or a loop that the branch
or the loop's functions use comes in through a Switch (a branch) or a
constant Enter (a loop), made once per tensor.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

import numpy as np

from minitf.framework import _REF_OFFSET, Tensor, _apply, get_default_graph


class _Context:
    def __init__(self, graph, parent):
        self.graph = graph
        self.parent = parent
        self.pivot: Optional[Tensor] = None
        self._brought_in: Dict[str, Tensor] = {}

    def bring_in(self, value, like=None):
        """`value` (an op argument) as this context sees it; a value that is
        not a tensor becomes a constant of dtype `like` (when given and the
        value is no NumPy array, whose dtype stays)."""
        if isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) for v in value):
            return type(value)(self.bring_in(v, like) for v in value)
        if not isinstance(value, Tensor):
            from minitf.ops import constant
            typed = like is not None and not isinstance(value, (np.ndarray, np.generic))
            return constant(value, dtype=like if typed else None)
        if self.holds(value) or value._as_output()[2] > _REF_OFFSET:
            # Its own, or a nested branch's or loop's result; or a variable's
            # reference, used where it is (an op using it waits on the pivot
            # when nothing else of the context feeds it).
            return value
        if value.name not in self._brought_in:
            outer = value
            if self.parent is not None and value.op._context is not self.parent:
                outer = self.parent.bring_in(value)
            with self.graph._control_flow_context(self.parent):
                inner = self._enter(outer)
            inner.op._context = self
            self._brought_in[value.name] = inner
        return self._brought_in[value.name]

    def holds(self, value: Tensor) -> bool:
        """Whether `value` was made in this context or one inside it."""
        context = value.op._context
        while context is not None:
            if context is self:
                return True
            context = context.parent
        return False

    def _enter(self, outer: Tensor) -> Tensor:
        raise NotImplementedError


class _CondContext(_Context):
    """One branch of a cond: outer tensors come in through Switch(x, pred)."""

    def __init__(self, graph, parent, pred: Tensor, branch: int):
        super().__init__(graph, parent)
        self.pred = pred
        self.branch = branch  # Switch's output: 0 false, 1 true.

    def _enter(self, outer: Tensor) -> Tensor:
        return _apply("Switch", [outer, self.pred], name="Switch")[self.branch]


class _WhileContext(_Context):
    """A while loop's frame: outer tensors come in through constant Enters."""

    def __init__(self, graph, parent, frame_name: str, parallel_iterations: int):
        super().__init__(graph, parent)
        self.frame_name = frame_name
        self.parallel_iterations = parallel_iterations

    def _enter(self, outer: Tensor) -> Tensor:
        return _apply("Enter", [outer], {"frame_name": self.frame_name, "is_constant": True,
                                         "parallel_iterations": self.parallel_iterations},
                      "Enter")


def _flatten(value) -> List[Any]:
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _flatten(v)]
    return [value]


def _pack_as(structure, flat: List[Tensor]):
    items = iter(flat)

    def pack(s):
        if isinstance(s, (list, tuple)):
            packed = [pack(v) for v in s]
            return type(s)(*packed) if hasattr(s, "_fields") else type(s)(packed)
        return next(items)
    return pack(structure)


def _as_tensor(value) -> Tensor:
    from minitf.ops import constant
    return value if isinstance(value, Tensor) else constant(value)


def cond(pred: Tensor, true_fn: Callable[[], Any], false_fn: Callable[[], Any],
         name: str = "cond"):
    """`true_fn()` if `pred` else `false_fn()` (``tf.compat.v1.cond``): only the
    taken branch runs. Both branches return the same structure of tensors."""
    graph = pred.graph if isinstance(pred, Tensor) else get_default_graph()
    parent = graph._current_context()
    base = graph.unique_name(name).rsplit("/", 1)[-1]
    with graph.name_scope(base):
        switch_f, switch_t = _apply("Switch", [pred, pred], name="Switch")
        branches = []
        for fn, switched, index, label in ((true_fn, switch_t, 1, "switch_t"),
                                           (false_fn, switch_f, 0, "switch_f")):
            context = _CondContext(graph, parent, pred, index)
            context.pivot = _apply("Identity", [switched], name=label)
            context.pivot.op._context = context
            with graph._control_flow_context(context):
                result = fn()
                flat = [context.bring_in(_as_tensor(t)) for t in _flatten(result)]
            branches.append((result, flat))
        (true_result, true_flat), (_, false_flat) = branches
        if len(true_flat) != len(false_flat):
            raise ValueError(f"cond {base}: true_fn returned {len(true_flat)} tensors, "
                             f"false_fn {len(false_flat)}")
        merged = [_apply("Merge", [[f, t]], name="Merge")[0]
                  for f, t in zip(false_flat, true_flat)]
    return _pack_as(true_result, merged)


def while_loop(cond: Callable[..., Tensor], body: Callable[..., Any], loop_vars,
               parallel_iterations: int = 10, name: str = "while"):
    """``while cond(*v): v = body(*v)`` (``tf.compat.v1.while_loop``), over the
    structure `loop_vars`; returns the loop variables' final values."""
    flat_vars = [_as_tensor(v) for v in _flatten(loop_vars)]
    graph = flat_vars[0].graph if flat_vars else get_default_graph()
    parent = graph._current_context()
    base = graph.unique_name(name).rsplit("/", 1)[-1]
    frame = "/".join(graph._name_stack + [base])  # The frame's name: the loop's, unique.
    with graph.name_scope(base):
        context = _WhileContext(graph, parent, frame, parallel_iterations)
        enters = [_apply("Enter", [v], {"frame_name": frame, "is_constant": False,
                                        "parallel_iterations": parallel_iterations}, "Enter")
                  for v in flat_vars]
        for e in enters:
            e.op._context = context
        with graph._control_flow_context(context):
            context.pivot = enters[0]
            merges = [_apply("Merge", [[e, e]], name="Merge")[0] for e in enters]
            context.pivot = merges[0]
            condition = cond(*_pack_as_args(loop_vars, merges))
            loop_cond = _apply("LoopCond", [condition], name="LoopCond")
            switches = [_apply("Switch", [m, loop_cond], name="Switch") for m in merges]
            identities = [_apply("Identity", [s[1]], name="Identity") for s in switches]
            context.pivot = identities[0]
            result = body(*_pack_as_args(loop_vars, identities))
            flat_next = [context.bring_in(_as_tensor(t)) for t in _flatten(result)]
            if len(flat_next) != len(merges):
                raise ValueError(f"while_loop {base}: body returned {len(flat_next)} tensors "
                                 f"for {len(merges)} loop variables")
            nexts = [_apply("NextIteration", [n], name="NextIteration") for n in flat_next]
            for m, n in zip(merges, nexts):
                graph._graph.update_input(m.op.name, 1, n._as_output())
            exits = [_apply("Exit", [s[0]], name="Exit") for s in switches]
        for e in exits:
            e.op._context = parent
    return _pack_as(loop_vars, exits)


def _pack_as_args(loop_vars, flat: List[Tensor]):
    packed = _pack_as(loop_vars, flat)
    return list(packed) if isinstance(loop_vars, (list, tuple)) else [packed]
