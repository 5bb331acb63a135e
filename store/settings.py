"""Settings: one frozen, typed object, read from the environment once at start.

Each field has a default and an environment variable, its name in capitals (``Lanes.chunk_max`` <-
``CHUNK_MAX``); a bad value stops the start naming it. docs/configuration.md is made from these.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from types import MappingProxyType
from typing import Any, get_type_hints

from store.cost_settings import Costs
from store.environment import SettingError, checked, parse, setting, with_files
from store.lane_settings import Lanes
from store.webhook_settings import Webhooks

ROOT = Path(__file__).resolve().parents[1]
VAR = ROOT / "var"
LOG_FORMATS = ("text", "json")
POOLING_MODES = ("", "transaction")


@dataclass(frozen=True)
class Connections:
    """Where the database and the broker are."""

    database_url: str = setting(f"sqlite:///{VAR / 'puzzle-queue.db'}",
                                "SQLAlchemy URL of the database: PostgreSQL, or a SQLite file (the default)")
    direct_database_url: str = setting(
        "", "SQLAlchemy URL of the same database reached directly, never through a pooler in transaction "
            "mode: the sessions that must stay one (the API's LISTEN for job notices, migrations); "
            "unset: DATABASE_URL")
    database_pooling: str = setting(
        "", "'transaction' when DATABASE_URL goes through a pooler in transaction mode (PgBouncer): no "
            "prepared statements, session settings made per transaction; unset: a direct connection")
    redis_url: str | None = setting(None, "Redis URL of the broker; unset: the filesystem broker "
                                          "under BROKER_DIR")
    broker_dir: str = setting(str(VAR / "broker"), "folder of the filesystem broker (without REDIS_URL)")
    broker_poll_interval: float = setting(0.01, "seconds between the filesystem broker's looks for messages",
                                          minimum=0.001)
    visibility_timeout: float | None = setting(
        None, "seconds before Redis hands an unacknowledged task to another worker; unset: twice the "
              "longest a task can run (PUZZLE_TIME_LIMIT x CHUNK_MAX + HARD_TIME_GRACE)", minimum=1)

    def __post_init__(self) -> None:
        if self.database_pooling not in POOLING_MODES:
            raise SettingError(f"DATABASE_POOLING is {self.database_pooling!r}; it is unset or "
                               f"{', '.join(m for m in POOLING_MODES if m)}")

    @property
    def direct_url(self) -> str:
        """DIRECT_DATABASE_URL, or DATABASE_URL when unset (derived on use: an override follows)."""
        return self.direct_database_url or self.database_url

    @property
    def transaction_pooled(self) -> bool:
        """Whether DATABASE_URL's connections are shared between transactions by a pooler."""
        return self.database_pooling == "transaction"


@dataclass(frozen=True)
class Limits:
    """What one request, one batch and one client may hold."""

    max_body_bytes: int = setting(8 * 1024 * 1024, "largest request body", minimum=1)
    max_json_depth: int = setting(64, "deepest nesting of arrays and objects in a body", minimum=1)
    max_batch: int = setting(20_000, "most puzzles in one batch", minimum=1)
    max_generate: int = setting(10_000, "most puzzles one generate item may make (its count)", minimum=1)
    max_puzzle_bytes: Mapping[str, int] = setting(
        {"default": 20000}, "largest JSON size of one puzzle, per kind: 'default=20000,sudoku=5000'")
    option_limits: Mapping[str, float] = setting(
        {}, "service caps below a kind's own option maxima: "
            "'nqueens.probes=1000000,sudoku.max_solutions=100'")
    max_pending_puzzles: int = setting(1_000_000, "unfinished puzzles one client may have before a POST is "
                                                  "answered 429", minimum=1)

    def __post_init__(self) -> None:
        if "default" not in self.max_puzzle_bytes:
            object.__setattr__(self, "max_puzzle_bytes",
                               MappingProxyType({"default": 20000, **self.max_puzzle_bytes}))


@dataclass(frozen=True)
class TimeBudget:
    """The time a puzzle may take, and everything derived from it: the hard limit's grace, the
    lease of a claim, a task's own limits and how often a running solve looks for a stop."""

    puzzle_time_limit: float = setting(120.0, "seconds one puzzle (or one part of a split puzzle) may run; "
                                              "also the price of a puzzle of options its kind does not "
                                              "model until such puzzles are measured", minimum=0.001)
    hard_time_grace: float = setting(15.0, "seconds past a limit before the process is killed", minimum=0)
    stop_poll_seconds: float = setting(0.5, "how often a watched solve looks whether it was cancelled (and"
                                       " records its search's share done, every 2 s at most)", minimum=0.01)

    def lease(self) -> timedelta:
        """How long a claim holds without news: renewed at each write, so the reaper takes over
        only from a worker gone silent (dead, or stuck past the limit)."""
        return timedelta(seconds=self.puzzle_time_limit + 2 * self.hard_time_grace)

    def task_limits(self, n_puzzles: int) -> tuple[float, float]:
        """Celery's (soft, hard) seconds for a task of n puzzles: a backstop behind the limit each
        puzzle gets on its own (worker.limits)."""
        soft = self.puzzle_time_limit * n_puzzles + 1.0
        return soft, soft + self.hard_time_grace


@dataclass(frozen=True)
class Recovery:
    """Attempts, and how lost work is found again (worker.reaper, worker.heartbeat)."""

    max_attempts: int = setting(3, "claims of one puzzle before it fails", minimum=1)
    db_wait_seconds: float = setting(30.0, "a task that loses the database tries again in its process this "
                                           "long before Celery's retry takes over", minimum=0)
    queued_stale_seconds: float = setting(900.0, "a queued puzzle whose task has not started after this long "
                                                 "is published again", minimum=1)
    reap_interval: float = setting(3.0, "seconds between the reaper's runs", minimum=0.01)
    heartbeat_seconds: float = setting(2.0, "how often each worker process renews its heartbeat row",
                                       minimum=0.01)
    worker_silent_seconds: float = setting(15.0, "a worker silent this long is dead; its work is published "
                                                 "again", minimum=0.01)
    lost_task_seconds: float = setting(5.0, "with the broker's queues empty, queued work published longer "
                                            "ago than this is published again",
                                       minimum=0)


@dataclass(frozen=True)
class Splitting:
    """Which puzzles are solved in parts across workers, and into how many (worker.parts)."""

    split_parts: int = setting(64, "parts a split puzzle is cut into", minimum=1)
    split_queens_n: int = setting(14, "n-Queens counts are split from this n on", minimum=1)
    split_probes: int = setting(1_000_000, "n-Queens estimates are split from this many probes", minimum=1)
    split_node_budget: int = setting(1_000_000, "Sudoku and spokes searches are split once a whole try "
                                                "passes this many nodes", minimum=1)

    @functools.cached_property
    def for_plans(self) -> Mapping[str, int]:
        """These settings as the kinds' plans read them (solvers.base.Settings: by variable name)."""
        return MappingProxyType({f.name.upper(): getattr(self, f.name) for f in dataclasses.fields(self)})


@dataclass(frozen=True)
class Retention:
    """How long finished jobs are kept (store.retention)."""

    job_retention_days: float = setting(30.0, "finished jobs older than this are deleted (0: kept forever)",
                                        minimum=0)
    purge_interval: float = setting(60.0, "seconds between purges", minimum=0)
    purge_batch: int = setting(5000, "puzzles deleted per transaction", minimum=1)


@dataclass(frozen=True)
class Access:
    """Clients, their tokens and their request rates (service.auth, service.ratelimit)."""

    api_tokens: str = setting("", "clients and their tokens: 'name:token,...' or digests (service.auth); "
                                  "empty: no tokens, each address an anonymous client")
    metrics_token: str = setting("", "token that /metrics requires; empty: none")
    admin_tokens: str = setting("", "operators' tokens for the fleet view ('token,...' or digests): /ops, "
                                    "/api/v1/workers, /api/v1/queues; empty: open only while API_TOKENS is")
    rate_limit: str = setting("100/second;6000/minute", "writes (submissions and actions) per client in the "
                                                         "limits library's notation; empty: none")
    read_rate_limit: str = setting("100/second;6000/minute", "reads per client, long polls (?wait=) not "
                                                              "counted; empty: none")


@dataclass(frozen=True)
class Http:
    """How the API answers."""

    retry_after_seconds: int = setting(1, "Retry-After of a 202 (and five times it on a 503)", minimum=0)
    wait_cap_seconds: float = setting(60.0, "longest a GET /jobs/{id}?wait= holds a request thread",
                                      minimum=0)
    submit_publish_seconds: float = setting(2.0, "longest a POST or a retry waits for its tasks' publishing; "
                                                 "the reaper publishes the rest; 0: no bound", minimum=0)
    trusted_proxies: int = setting(0, "reverse proxies in front of the API whose X-Forwarded-For and "
                                      "X-Forwarded-Proto are believed (the compose file's nginx: 1); 0: "
                                      "the peer's address is the client's, and those headers are ignored",
                                   minimum=0)


@dataclass(frozen=True)
class Logging:
    """Log lines on standard error (store.logs)."""

    log_format: str = setting("text", "'text' or 'json' lines")
    log_level: str = setting("", "a level name; unset: INFO (a worker's: its --loglevel)")

    def __post_init__(self) -> None:
        if self.log_format not in LOG_FORMATS:
            raise SettingError(f"LOG_FORMAT is {self.log_format!r}; it is one of {', '.join(LOG_FORMATS)}")


@dataclass(frozen=True)
class Settings:
    connections: Connections = field(default_factory=Connections)
    lanes: Lanes = field(default_factory=Lanes)
    limits: Limits = field(default_factory=Limits)
    time: TimeBudget = field(default_factory=TimeBudget)
    recovery: Recovery = field(default_factory=Recovery)
    splitting: Splitting = field(default_factory=Splitting)
    retention: Retention = field(default_factory=Retention)
    access: Access = field(default_factory=Access)
    http: Http = field(default_factory=Http)
    logging: Logging = field(default_factory=Logging)
    webhooks: Webhooks = field(default_factory=Webhooks)
    costs: Costs = field(default_factory=Costs)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """The settings of these environment variables (default: the process's), then
        ``overrides``: typed values by variable name (``PUZZLE_TIME_LIMIT=0.3``)."""
        env = with_files(os.environ if env is None else env,
                         {f.name.upper() for kind in groups().values() for f in dataclasses.fields(kind)})
        read = {}
        for name, kind in groups().items():
            types = get_type_hints(kind)
            values = {f.name: parse(f.name.upper(), env[f.name.upper()], types[f.name])
                      for f in dataclasses.fields(kind) if f.name.upper() in env}
            read[name] = checked(kind, values)
        return cls(**read).replace(**overrides)

    def replace(self, **overrides: Any) -> Settings:
        """A copy with these fields, by environment variable name, set to these typed values (each
        group checked once with all of its own, which may depend on each other)."""
        current = {group.name: getattr(self, group.name) for group in dataclasses.fields(self)}
        changed: dict[str, dict[str, Any]] = {}
        for name, value in overrides.items():
            changed.setdefault(_group_of(name), {})[name.lower()] = value
        for group, values in changed.items():
            current[group] = checked(type(current[group]), {**_values(current[group]), **values})
        return Settings(**current)

    @property
    def visibility_timeout(self) -> float:
        """Longer than the longest task can run, or Redis would hand a running task to a second worker."""
        given = self.connections.visibility_timeout
        if given is not None:
            return given
        return 2 * (self.time.puzzle_time_limit * self.lanes.chunk_max + self.time.hard_time_grace)


def _values(group: Any) -> dict[str, Any]:
    return {f.name: getattr(group, f.name) for f in dataclasses.fields(group)}


def groups() -> dict[str, Any]:
    """Each group of Settings by its field name: its class."""
    hints = get_type_hints(Settings)
    return {f.name: hints[f.name] for f in dataclasses.fields(Settings)}


def _group_of(name: str) -> str:
    for group, kind in groups().items():
        if name.lower() in {f.name for f in dataclasses.fields(kind)}:
            return group
    raise SettingError(f"{name} is not a setting")
