"""Configuration: every setting has a default and an environment variable of the same name.

Limits are part of the contract with users, so they live here, in one place, and
``docs/service.md`` lists them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from service import fsbroker

ROOT = Path(__file__).resolve().parents[1]
VAR = ROOT / "var"
PRIORITIES = 10  # the broker's priority levels, 0 (served first) to 9


def _int(env: Mapping[str, str], name: str, default: int) -> int:
    return int(env.get(name, default))


def _float(env: Mapping[str, str], name: str, default: float) -> float:
    return float(env.get(name, default))


def _pairs(text: str) -> dict[str, str]:
    """``"a=1,b=2"`` -> ``{"a": "1", "b": "2"}``: the form of map-valued environment variables."""
    out = {}
    for pair in filter(None, (p.strip() for p in text.split(","))):
        key, sep, value = pair.partition("=")
        if not sep:
            raise ValueError(f"expected key=value, got {pair!r}")
        out[key.strip()] = value.strip()
    return out


def from_env(env: Mapping[str, str] | None = None) -> dict[str, Any]:
    env = os.environ if env is None else env
    time_limit = _float(env, "PUZZLE_TIME_LIMIT", 120.0)
    chunk_max = _int(env, "CHUNK_MAX", 1000)
    hard_grace = _float(env, "HARD_TIME_GRACE", 15.0)
    queue = env.get("TASK_QUEUE", "puzzles")
    return {
        "DATABASE_URL": env.get("DATABASE_URL", f"sqlite:///{VAR / 'puzzle-queue.db'}"),
        # Unset: Celery's filesystem broker under var/broker (the embedded `make run` mode).
        "REDIS_URL": env.get("REDIS_URL") or None,
        "BROKER_DIR": env.get("BROKER_DIR", str(VAR / "broker")),
        "BROKER_POLL_INTERVAL": _float(env, "BROKER_POLL_INTERVAL", 0.01),
        "TASK_QUEUE": queue,
        # Lanes (service.publish): dear work (a puzzle whose estimated cost, Kind.cost, passes
        # DEAR_SECONDS, and every part of a split puzzle) goes to DEAR_QUEUE; cheap work travels on
        # TASK_QUEUE in tasks of at most DEAR_SECONDS, and a worker that consumes TASK_QUEUE alone
        # keeps its capacity for it, so cheap work never waits behind dear work.
        "DEAR_QUEUE": env.get("DEAR_QUEUE") or f"{queue}.dear",
        "DEAR_SECONDS": _float(env, "DEAR_SECONDS", 1.0),
        # The niceness a worker that takes dear work adds to itself (0: none), so that cheap work
        # beside it gets the cores first (worker/__init__.py).
        "DEAR_NICE": _int(env, "DEAR_NICE", 10),
        # Fair share: a job's tasks (a split puzzle's parts) take the broker's priority levels this
        # many at a time, after the owner's other unfinished jobs, so they queue behind the first
        # tasks of everyone else's jobs instead of ahead of them all.
        "FAIR_SHARE": _int(env, "FAIR_SHARE", 1),
        "MAX_BODY_BYTES": _int(env, "MAX_BODY_BYTES", 8 * 1024 * 1024),
        # Arrays and objects nested deeper in a body are refused (400) before it is parsed.
        "MAX_JSON_DEPTH": _int(env, "MAX_JSON_DEPTH", 64),
        "MAX_BATCH": _int(env, "MAX_BATCH", 20_000),
        # Per-kind cap on the JSON size of one puzzle; "default" applies to kinds not named.
        "MAX_PUZZLE_BYTES": {"default": "20000", **_pairs(env.get("MAX_PUZZLE_BYTES", ""))},
        # Service caps below a kind's own option maxima: "nqueens.probes=1000000,sudoku.max_solutions=100".
        "OPTION_LIMITS": _pairs(env.get("OPTION_LIMITS", "")),
        # Back-pressure: unfinished puzzles one client may have before POST answers 429.
        "MAX_PENDING_PUZZLES": _int(env, "MAX_PENDING_PUZZLES", 1_000_000),
        "PUZZLE_TIME_LIMIT": time_limit,
        "HARD_TIME_GRACE": hard_grace,
        "CHUNK_MAX": chunk_max,
        # A task carries at least CHUNK_SECONDS of estimated work (Kind.cost); a batch with more
        # work than that spreads over at least CHUNK_SPREAD tasks (service.jobs.chunk_sizes).
        "CHUNK_SECONDS": _float(env, "CHUNK_SECONDS", 0.05),
        "CHUNK_SPREAD": _int(env, "CHUNK_SPREAD", 16),
        # Puzzles estimated to take longer are claimed (shown running, with a lease) before they
        # are solved; cheaper ones in a first delivery are not (worker.chunk).
        "OPTIMISTIC_SECONDS": _float(env, "OPTIMISTIC_SECONDS", 0.1),
        "MAX_ATTEMPTS": _int(env, "MAX_ATTEMPTS", 3),
        # A task that loses the database tries again in its own process for this long (a restart)
        # before Celery's retry takes over: a retry waiting in a worker's memory is lost when the
        # broker's connection drops (worker.tasks).
        "DB_WAIT_SECONDS": _float(env, "DB_WAIT_SECONDS", 30.0),
        # A queued puzzle whose task has not started after this long is published again.
        "QUEUED_STALE_SECONDS": _float(env, "QUEUED_STALE_SECONDS", 900.0),
        "REAP_INTERVAL": _float(env, "REAP_INTERVAL", 3.0),
        # Lost workers (worker.heartbeat): each worker process renews its row this often, and one
        # silent for WORKER_SILENT_SECONDS is dead, its work published again by the reaper.
        "HEARTBEAT_SECONDS": _float(env, "HEARTBEAT_SECONDS", 2.0),
        "WORKER_SILENT_SECONDS": _float(env, "WORKER_SILENT_SECONDS", 15.0),
        # Lost messages: with the broker's queue empty, queued work published longer ago than this
        # (and held by no living worker) is published again (a Redis restart that lost its data).
        "LOST_TASK_SECONDS": _float(env, "LOST_TASK_SECONDS", 5.0),
        # Longer than the longest task can run, or Redis would hand a running task to a second worker.
        "VISIBILITY_TIMEOUT": _float(env, "VISIBILITY_TIMEOUT", 2 * (time_limit * chunk_max + hard_grace)),
        # Distributed solving (worker.parts): how many parts a split puzzle is cut into, and
        # which puzzles are split: n-Queens counts from this n on, estimates from this many probes,
        # Sudoku and spokes once a whole try exceeds this many search nodes.
        "SPLIT_PARTS": _int(env, "SPLIT_PARTS", 64),
        "SPLIT_QUEENS_N": _int(env, "SPLIT_QUEENS_N", 14),
        "SPLIT_PROBES": _int(env, "SPLIT_PROBES", 1_000_000),
        # About 1.5 s of greedy Sudoku search (bench/scaling.py): below that, the dispatch of
        # SPLIT_PARTS parts (~13 ms each, measured) would cost more than it saves.
        "SPLIT_NODE_BUDGET": _int(env, "SPLIT_NODE_BUDGET", 1_000_000),
        # A running part looks this often (one small SELECT) whether its puzzle was cancelled
        # or has enough solutions, and then stops at the solver's next check.
        "STOP_POLL_SECONDS": _float(env, "STOP_POLL_SECONDS", 0.5),
        # Retention (worker.retention): jobs finished longer ago than this are deleted (0: kept
        # forever), by the reaper at most every PURGE_INTERVAL seconds, PURGE_BATCH puzzles per
        # transaction.
        "JOB_RETENTION_DAYS": _float(env, "JOB_RETENTION_DAYS", 30.0),
        "PURGE_INTERVAL": _float(env, "PURGE_INTERVAL", 60.0),
        "PURGE_BATCH": _int(env, "PURGE_BATCH", 5000),
        # Clients and their tokens, and the token of /metrics: parsed and checked at start by
        # service.auth (its docstring has the forms).
        "API_TOKENS": env.get("API_TOKENS", ""),
        "METRICS_TOKEN": env.get("METRICS_TOKEN", ""),
        # Requests per client (service.ratelimit), in the limits library's notation; empty: none.
        "RATE_LIMIT": env.get("RATE_LIMIT", "20/second;600/minute"),
        # service.logs: "text" or "json" lines on standard error; LOG_LEVEL unset is INFO (a
        # worker's: its --loglevel).
        "LOG_FORMAT": env.get("LOG_FORMAT", "text"),
        "LOG_LEVEL": env.get("LOG_LEVEL", ""),
        "RETRY_AFTER_SECONDS": _int(env, "RETRY_AFTER_SECONDS", 1),
        # GET /jobs/{id}?wait= holds a request thread at most this long, whatever the client asks.
        "WAIT_CAP_SECONDS": _float(env, "WAIT_CAP_SECONDS", 60.0),
    }


def broker_settings(config: Mapping[str, Any]) -> dict[str, Any]:
    """Celery settings for the configured broker: Redis, or the filesystem broker when REDIS_URL is unset."""
    if config["REDIS_URL"]:
        return {
            "broker_url": config["REDIS_URL"],
            # One Redis list per priority 0 (served first) to 9: the fair share's levels.
            "broker_transport_options": {"visibility_timeout": config["VISIBILITY_TIMEOUT"],
                                         "priority_steps": list(range(PRIORITIES))},
        }
    folder = Path(config["BROKER_DIR"])
    for sub in ("out", "processed", "control"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    return {
        "broker_url": f"{fsbroker.SCHEME}://",  # kombu's filesystem transport, written atomically
        "broker_transport_options": {
            "data_folder_in": str(folder / "out"),
            "data_folder_out": str(folder / "out"),
            "processed_folder": str(folder / "processed"),
            "control_folder": str(folder / "control"),
            "store_processed": False,
            "polling_interval": config["BROKER_POLL_INTERVAL"],
        },
    }


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)
