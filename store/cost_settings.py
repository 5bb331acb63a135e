"""The settings of predicted costs (store.costs): what a puzzle and a client's unfinished work may
be predicted to cost before a batch is refused, and the time limit a prediction sets."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from store.environment import setting

# A CPU-day: above every puzzle's prediction that a kind accepts (the largest, an n-Queens count
# of n=21, about ten hours), so no cap refuses what the kinds accept unless set.
PUZZLE_CAP_SECONDS = 86400.0
# Ten CPU-days of unfinished work per client: a large batch of costly puzzles, not an unbounded one.
CLIENT_BUDGET_SECONDS = 864000.0
# A puzzle stops at ten times the high end of its prediction (seconds x factor), but no sooner than
# ten seconds: a prediction off by less is no reason to fail.
PREDICTION_FACTOR = 10.0
PREDICTION_FLOOR_SECONDS = 10.0
# A CPU-minute per level of the dear lane: ten levels tell apart up to ten minutes of a client's work.
DEAR_SHARE_SECONDS = 60.0


@dataclass(frozen=True)
class Costs:
    """Predicted CPU seconds (Kind.predict): caps checked at submission, and the time limit they give."""

    max_puzzle_cpu_seconds: float = setting(
        PUZZLE_CAP_SECONDS, "a puzzle predicted above this many CPU seconds is refused (422) unless its "
                            "job says accept_cost; 0: no cap", minimum=0)
    client_cpu_budget: float = setting(
        CLIENT_BUDGET_SECONDS, "CPU seconds of one client's unfinished work (its batch's, or its retry's, "
                               "included; each unfinished puzzle at the larger of its prediction and the "
                               "CPU seconds measured of it) above which a batch or a retry is refused "
                               "(429); 0: no budget", minimum=0)
    client_cpu_budgets: Mapping[str, float] = setting(
        {}, "CLIENT_CPU_BUDGET of named clients (API_TOKENS' names): 'nightly=5000000,guest=600'")
    prediction_time_factor: float = setting(
        PREDICTION_FACTOR, "a puzzle's time limit in CPU seconds is this many times the high end of "
                           "its prediction (a part's: of its share of its puzzle's), within "
                           "PREDICTION_TIME_FLOOR and PUZZLE_TIME_LIMIT; 0: PUZZLE_TIME_LIMIT for every "
                           "puzzle and part", minimum=0)
    prediction_time_floor: float = setting(
        PREDICTION_FLOOR_SECONDS, "the least time limit a prediction gives a puzzle", minimum=0.001)
    dear_share_seconds: float = setting(
        DEAR_SHARE_SECONDS, "in the dear lane a task (of a new job, a retry or the reaper) waits one broker "
                            "priority level more per this many predicted CPU seconds of its client's work "
                            "ahead of it; 0: levels by task count, as in the cheap lane", minimum=0)

    def time_limit(self, high: float, most: float) -> float:
        """The time limit of a puzzle predicted at ``high`` seconds at most, within ``most``
        (PUZZLE_TIME_LIMIT) and never below the floor (unless ``most`` is)."""
        if self.prediction_time_factor <= 0:
            return most
        return min(most, max(self.prediction_time_floor, self.prediction_time_factor * high))

    def limit_of(self, seconds: float, factor: float, most: float) -> tuple[float, float | None]:
        """The time limit of a solve predicted at ``seconds`` within ``factor``, with those seconds,
        when it is below ``most`` (PUZZLE_TIME_LIMIT, or the cheap lane's cap); else ``most`` and
        None: the prediction set no limit."""
        own = self.time_limit(seconds * factor, most)
        return (own, seconds) if own < most else (most, None)

    def budget_of(self, owner: str) -> float:
        """The client's budget; 0: none."""
        return self.client_cpu_budgets.get(owner, self.client_cpu_budget)
