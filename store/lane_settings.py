"""The lanes' settings: how work is cut into tasks, which queue each task takes, and the cheap
lane's cap (a group of store.settings.Settings)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from store.environment import setting


@dataclass(frozen=True)
class Lanes:
    """How work is cut into tasks and which queue each task takes (store.publish)."""

    task_queue: str = setting("puzzles", "the cheap lane's queue")
    dear_queue: str = setting("", "the dear lane's queue; unset: TASK_QUEUE + '.dear'")
    callback_queue: str = setting("", "the queue of callback deliveries, taken by workers that solve "
                                      "nothing; unset: TASK_QUEUE + '.callbacks'")
    dear_seconds: float = setting(1.0, "a task predicted (Kind.predict) at more than this many seconds "
                                       "goes to the dear lane, and a task of cheap puzzles holds at most "
                                       "this much work", minimum=0)
    dear_nice: int = setting(10, "niceness a worker of the dear lane adds to itself (0: none)", minimum=0)
    fair_share: int = setting(1, "a job's tasks take each broker priority level this many at a time",
                              minimum=1)
    chunk_max: int = setting(1000, "most puzzles in one task", minimum=1)
    chunk_seconds: float = setting(0.05, "least estimated seconds of work in one task", minimum=0)
    chunk_spread: int = setting(16, "a batch with more work than CHUNK_SECONDS spreads over at least this "
                                    "many tasks", minimum=1)
    optimistic_seconds: float = setting(0.1, "a puzzle estimated above this is solved alone, watched for "
                                             "its time limit and a cancel (its progress shown), never in a "
                                             "kind's solve_batch run; in a stored chunk it leaves for a "
                                             "puzzle row of its own", minimum=0)
    cheap_lane_seconds: float = setting(5.0, "a puzzle running longer than this in the cheap lane is moved "
                                             "to the dear lane, its attempt not counted (a stored chunk's "
                                             "call: its entries leave for rows); 0: no cap", minimum=0)

    def __post_init__(self) -> None:
        if not self.dear_queue:
            object.__setattr__(self, "dear_queue", f"{self.task_queue}.dear")
        if not self.callback_queue:
            object.__setattr__(self, "callback_queue", f"{self.task_queue}.callbacks")

    @property
    def queues(self) -> tuple[str, str]:
        """The solving lanes' queues, cheap then dear."""
        return self.task_queue, self.dear_queue

    def solves(self, consumed: Iterable[str]) -> bool:
        """Whether a worker taking tasks from ``consumed`` takes any of a solving lane's."""
        return bool(set(self.queues) & set(consumed))

    def is_dear(self, cost: float) -> bool:
        """Whether a task of this many estimated seconds goes to the dear lane."""
        return cost > self.dear_seconds

    def cheap_cap(self, limit: float) -> float | None:
        """The seconds a puzzle may run in the cheap lane, when that is less than its time limit."""
        cap = self.cheap_lane_seconds
        return cap if 0 < cap < limit else None
