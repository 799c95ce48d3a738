"""What every benchmark step measures with: its process's peak memory, and the best time of a few runs."""

from __future__ import annotations

import resource
import time


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timed(fn, repeat: int = 1):
    best, result = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t)
    return best, result
