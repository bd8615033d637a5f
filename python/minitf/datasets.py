"""The examples' data, drawn as the C++ examples draw it, so that a model
built in Python trains on the same numbers as its C++ twin.

``rings(examples, classes, seed)`` is bench/models/mlp_model.h's
``MakeRingsBatch``: points of the disc of radius 3 (coordinates uniform in
[-3, 3), from ``std::mt19937(seed)`` through libstdc++'s
``uniform_real_distribution<float>``; points outside the disc are drawn
again), labelled by ring (radius below 1.2, below 2.2, else), modulo
`classes`.
"""

from __future__ import annotations

from typing import Tuple

import numpy as np


class _Mt19937Floats:
    """libstdc++'s uniform_real_distribution<float>(low, high) over
    std::mt19937(seed): one 32-bit draw per value, u / 2^32 in float32
    (below 1), times (high - low), plus low."""

    def __init__(self, seed: int, low: float, high: float):
        self._state = np.random.RandomState(seed)  # MT19937, init_genrand(seed).
        self._low, self._span = np.float32(low), np.float32(high - low)
        self._one_below = np.nextafter(np.float32(1), np.float32(0))
        self._buffer = np.empty(0, np.uint32)
        self._next = 0

    def draw(self) -> np.float32:
        if self._next == len(self._buffer):
            self._buffer = self._state.randint(0, 2**32, size=4096, dtype=np.uint64).astype(
                np.uint32)
            self._next = 0
        u = self._buffer[self._next]
        self._next += 1
        canonical = np.float32(np.float32(u) / np.float32(4294967296.0))
        if canonical >= 1:
            canonical = self._one_below
        return np.float32(canonical * self._span) + self._low


def rings(examples: int, classes: int = 3, seed: int = 1234,
          features: int = 2) -> Tuple[np.ndarray, np.ndarray]:
    """(points [examples, features] float32, labels [examples] int32)."""
    if examples < 1 or classes < 1 or features < 2:
        raise ValueError("rings wants examples >= 1, classes >= 1 and features >= 2")
    draws = _Mt19937Floats(seed, -3.0, 3.0)
    x = np.empty([examples, features], np.float32)
    labels = np.empty([examples], np.int32)
    i = 0
    while i < examples:
        r2 = np.float32(0)
        for j in range(features):
            x[i, j] = draws.draw()
            if j < 2:
                r2 = np.float32(r2 + np.float32(x[i, j] * x[i, j]))
        r = np.sqrt(r2, dtype=np.float32)
        if r >= np.float32(3.0):
            continue
        labels[i] = (0 if r < np.float32(1.2) else 1 if r < np.float32(2.2) else 2) % classes
        i += 1
    return x, labels
