"""The progress bar of `puzzle-queue submit --wait` and `wait`, on standard error."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TextIO

from client.api import Job

STATUSES = ("solved", "no_solution", "failed", "cancelled", "running", "queued")
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
        done = sum(j["progress"] * j["total"] for j in jobs)
        counts = {s: sum(j["counts"][s] for j in jobs) for s in STATUSES}
        if self.first_done is None:
            self.first_done = done
        elapsed = time.monotonic() - self.start
        rate = (done - self.first_done) / elapsed if elapsed > 0 else 0.0
        filled = int(WIDTH * done / total) if total else WIDTH
        parts = [f"[{'#' * filled}{'.' * (WIDTH - filled)}]", f"{int(done):,}/{total:,}",
                 f"{100 * done / total if total else 100:.0f}%", f"{rate:,.0f}/s"]
        if rate > 0 and done < total:
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
