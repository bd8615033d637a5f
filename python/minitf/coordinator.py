"""AntMan's local coordinator from Python (``minitf coordinator``'s,
session/antman/coordinator.h), with its built-in policies or one written
in Python:

    def policy(time_s, jobs):
        # jobs: name -> {"role", "steps", "steps_per_s", "peak_bytes",
        #                "max_device_mem", "perf_control"}
        return {name: {"max_device_mem": 4 << 30,
                       "perf_control": 100 if job["role"] == "guarantee" else 50}
                for name, job in jobs.items()}

    coordinator = minitf.Coordinator("/var/run/antman", policy=policy,
                                     gpu_memory_bytes=80 << 30)
    decisions = coordinator.run(seconds=600)   # a DataFrame of what it did

The coordinator reads and checks the jobs' files, measures their step
rates and writes their configs as ``minitf coordinator`` does (docs/ANTMAN.md,
docs/DEPLOY.md); a Python policy decides every job's config each round (a
job it leaves out keeps its config).
"""

from __future__ import annotations

import time
from typing import Any, Callable, Dict, List, Optional, Union

from minitf import _minitf

Policy = Union[str, Callable[[float, Dict[str, Dict[str, Any]]], Dict[str, Dict[str, int]]]]


class Coordinator:
    """Steers the jobs of `directory` through their config files."""

    def __init__(self, directory: str, policy: Policy = "antman", gpu_memory_bytes: int = 0,
                 target: float = 0.97, interval_s: float = 1.0, window_s: float = 3.0,
                 calibrate_s: float = 3.0, recalibrate_s: float = 60.0, stale_s: float = 10.0):
        self.directory = directory
        self.interval_s = interval_s
        self._coordinator = _minitf.Coordinator(directory, policy, gpu_memory_bytes, target,
                                                window_s, calibrate_s, recalibrate_s, stale_s)

    def tick(self) -> List[Dict[str, Any]]:
        """One round; the decisions it made (time_s, job, setting, old_value,
        new_value, reason). A Python policy's exception is raised here."""
        return self._coordinator.tick()

    def solo_rate(self, job: str) -> float:
        """The solo step rate measured for a guarantee job (0: not yet)."""
        return self._coordinator.solo_rate(job)

    def run(self, seconds: Optional[float] = None):
        """Rounds every interval_s for `seconds` (until Ctrl-C when None);
        returns every decision as a pandas DataFrame (what it did up to an
        interruption too)."""
        import pandas as pd
        decisions: List[Dict[str, Any]] = []
        end = None if seconds is None else time.monotonic() + seconds
        try:
            while end is None or time.monotonic() < end:
                decisions.extend(self.tick())
                time.sleep(self.interval_s)
        except KeyboardInterrupt:
            if seconds is not None:
                raise
        return pd.DataFrame(decisions, columns=["time_s", "job", "setting", "old_value",
                                                "new_value", "reason"])
