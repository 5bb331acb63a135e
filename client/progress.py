"""The progress bar of `puzzle-queue submit --wait` and `wait`, on standard error.

The bar fills with the jobs' work done as the service weighs it (each job's ``progress``, by
predicted seconds), and the ETA is the service's (``eta_seconds`` and ``eta_range``: the jobs
share the workers, so the last of them to end sets it); a service that sends no eta gets one from
the rate of puzzles finished since the bar started."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TextIO

from client.api import Job

STATUSES = ("solved", "no_solution", "failed", "cancelled", "running", "queued")
FINAL = ("solved", "no_solution", "failed", "cancelled")
WIDTH = 24


def duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


class ProgressBar:
    """Redrawn in place on a terminal; elsewhere (a log file, a test) a line at most every
    ``every`` seconds, and always the last one."""

    def __init__(self, stream: TextIO, every: float = 10.0) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.every = every
        self.start = time.monotonic()
        self.first_done: float | None = None
        self.shown = 0.0

    def line(self, jobs: Sequence[Job]) -> str:
        total = sum(j["total"] for j in jobs)
        counts = {s: sum(j["counts"][s] for j in jobs) for s in STATUSES}
        done = sum(counts[s] for s in FINAL)
        if self.first_done is None:
            self.first_done = done
        elapsed = time.monotonic() - self.start
        rate = (done - self.first_done) / elapsed if elapsed > 0 else 0.0
        fraction = weighted(jobs)
        filled = int(WIDTH * fraction)
        parts = [f"[{'#' * filled}{'.' * (WIDTH - filled)}]", f"{done:,}/{total:,}",
                 f"{100 * fraction:.0f}%", f"{rate:,.0f}/s"]
        if done < total:
            eta = service_eta(jobs)
            if eta is not None:
                seconds, (low, high) = eta
                parts.append(f"ETA {duration(seconds)} ({duration(low)}-{duration(high)})")
            elif rate > 0:
                parts.append(f"ETA {duration((total - done) / rate)}")
        parts.append("  ".join(f"{s} {n:,}" for s, n in counts.items() if n))
        return "  ".join(parts)

    def __call__(self, jobs: Sequence[Job]) -> None:
        final = all(j["status"] in ("completed", "cancelled") for j in jobs)
        now = time.monotonic()
        if not (self.tty or final or now - self.shown >= self.every):  # a log gets a line now and then
            return
        self.shown = now
        text = self.line(jobs)
        if self.tty:
            self.stream.write("\r\x1b[K" + text + ("\n" if final else ""))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def interrupted(self) -> None:
        if self.tty:
            self.stream.write("\n")


def weighted(jobs: Sequence[Job]) -> float:
    """The jobs' work done, 0 to 1: each job's progress weighted by its predicted seconds, or by its
    number of puzzles when a job has none (or the service sends none)."""
    seconds = [j.get("estimated_seconds_total") or 0.0 for j in jobs]
    weights = seconds if all(seconds) else [float(j["total"]) for j in jobs]
    whole = sum(weights)
    return sum(j["progress"] * w for j, w in zip(jobs, weights, strict=True)) / whole if whole else 1.0


def service_eta(jobs: Sequence[Job]) -> tuple[float, tuple[float, float]] | None:
    """The service's eta of the last job to end, with its band; None unless every job has one."""
    if not jobs or any(j.get("eta_seconds") is None or j.get("eta_range") is None for j in jobs):
        return None
    return (max(j["eta_seconds"] for j in jobs),
            (max(j["eta_range"][0] for j in jobs), max(j["eta_range"][1] for j in jobs)))
