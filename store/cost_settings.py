"""The settings of predicted costs (store.costs): what a puzzle and a client's unfinished work may
be predicted to cost before a batch is refused, and the time limit a prediction sets."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from store.environment import setting

# A CPU-day: above every puzzle a kind accepts as predicted by the kinds' typical figures (the
# largest, an n-Queens count of n=21, some hours), so no cap refuses what the kinds accept unless set.
PUZZLE_CAP_SECONDS = 86400.0
# Ten CPU-days of unfinished work per client: a large batch of costly puzzles, not an unbounded one.
CLIENT_BUDGET_SECONDS = 864000.0


@dataclass(frozen=True)
class Costs:
    """Caps on predicted CPU seconds (Kind.predict), checked when a batch is submitted (docs/API.md)."""

    max_puzzle_cpu_seconds: float = setting(
        PUZZLE_CAP_SECONDS, "a puzzle predicted above this many CPU seconds is refused (422) unless its "
                            "job says accept_cost; 0: no cap", minimum=0)
    client_cpu_budget: float = setting(
        CLIENT_BUDGET_SECONDS, "predicted CPU seconds of one client's unfinished work (its batch's included) "
                               "above which a batch is refused (429); 0: no budget", minimum=0)
    client_cpu_budgets: Mapping[str, float] = setting(
        {}, "CLIENT_CPU_BUDGET of named clients (API_TOKENS' names): 'nightly=5000000,guest=600'")

    def budget_of(self, owner: str) -> float:
        """The client's budget; 0: none."""
        return self.client_cpu_budgets.get(owner, self.client_cpu_budget)
