"""The broker as Celery is told of it: its settings for the API and the workers alike, and the
embedded mode's filesystem transport.

The filesystem transport is kombu's, with messages written atomically: kombu writes a message
file in place while the consumer may already be moving and reading it, which then reads an empty
file, fails to decode it and its consumer dies. Here a message is
written under a name the consumer does not look at (``....msg.part``) and renamed once whole;
a rename within a folder is atomic.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from pathlib import Path
from time import monotonic
from typing import Any

from kombu.entity import Exchange, Queue
from kombu.transport import TRANSPORT_ALIASES, filesystem
from kombu.utils import json as kombu_json

from store.publish import PRIORITIES, REAP
from store.settings import Settings

SCHEME = "pqfilesystem"
_dumps: Callable[[Any], str] = kombu_json.dumps  # kombu's JSON, which its reader decodes


class Channel(filesystem.Channel):
    def _put(self, queue: Any, payload: Any, **kwargs: Any) -> None:  # type: ignore[override]  # as kombu's
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        part = final + ".part"
        with open(part, "wb") as f:
            f.write(_dumps(payload).encode())
        os.replace(part, final)


class Transport(filesystem.Transport):
    Channel = Channel


TRANSPORT_ALIASES.setdefault(SCHEME, f"{__name__}:Transport")


# Every `celery worker` command line carries these (the compose, swarm and Kubernetes files too: a
# test checks): no gossip (each worker would consume every other's events, N x N messages) and no
# mingle (each start would wait on a reply from every worker). Nothing here uses what they sync
# (revokes, logical clocks): cancels go through SQL. Remote control and the event heartbeats stay:
# the healthchecks' `inspect ping`, Flower and `control.add_consumer` need them, and they cost
# nothing while no one asks. docs/deployment.md says why.
WORKER_FLAGS = ("--without-gossip", "--without-mingle")
# A worker of the callbacks' queue alone: its tasks wait on the network, not the CPU, so threads, and
# several at once (each attempt ends within WEBHOOK_TIMEOUT).
CALLBACK_WORKER = ("--pool", "threads", "--concurrency", "8")
# A Redis that stops answering with its socket open (stopped, failed over, behind a dropped NAT
# entry) fails a command after this long instead of never: a publish then marks its rows due
# (store.publish). Longer than kombu's one-second BRPOP, which a waiting worker repeats.
BROKER_SOCKET_SECONDS = 10.0


def celery_config(settings: Settings) -> dict[str, Any]:
    """Celery's settings, the same for the app that publishes (the API) and the workers."""
    lanes = settings.lanes
    return {
        **_broker(settings),
        "task_serializer": "json",
        "result_serializer": "json",
        "accept_content": ["json"],
        "task_ignore_result": True,
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "worker_prefetch_multiplier": 1,
        # A pool process warms up the compiled solvers before it reports up; on a busy machine
        # that takes longer than celery's 4 s default, which then kills and restarts it in a loop.
        "worker_proc_alive_timeout": 60,
        "task_default_queue": lanes.task_queue,
        # Both lanes and the callbacks' queue, as `-Q` would make them: a worker started without
        # `-Q` takes all three; `-Q <TASK_QUEUE>` keeps a worker for cheap work, and
        # `-Q <CALLBACK_QUEUE>` makes one that only delivers callbacks (docs/architecture.md).
        "task_queues": [Queue(name, Exchange(name), name) for name in (*lanes.queues, lanes.callback_queue)],
        "broker_connection_retry_on_startup": True,
        # The API answers quickly when the broker is down; the reaper publishes later.
        "task_publish_retry_policy": {"max_retries": 2, "interval_start": 0.1, "interval_step": 0.2},
        "broker_connection_timeout": 2,
        "worker_hijack_root_logger": False,
        # The workers' heartbeat threads take turns at the reaper every REAP_INTERVAL; beat is only a
        # backstop, and rarely, so that its messages neither pile up behind work nor hide an empty
        # queue from the reaper.
        "beat_schedule": {"reap": {"task": REAP, "schedule": max(60.0, settings.recovery.reap_interval),
                                   "options": {"queue": lanes.task_queue}}},
    }


def _broker(settings: Settings) -> dict[str, Any]:
    """Redis, or the filesystem broker when REDIS_URL is unset."""
    connections = settings.connections
    if connections.redis_url:
        return {
            "broker_url": connections.redis_url,
            # One Redis list per priority 0 (served first) to 9: the fair share's levels.
            "broker_transport_options": {"visibility_timeout": settings.visibility_timeout,
                                         "priority_steps": list(range(PRIORITIES)),
                                         "socket_timeout": BROKER_SOCKET_SECONDS,
                                         "socket_connect_timeout": BROKER_SOCKET_SECONDS},
        }
    folder = Path(connections.broker_dir)
    return {
        "broker_url": f"{SCHEME}://",
        "broker_transport_options": {
            "data_folder_in": str(folder / "out"),
            "data_folder_out": str(folder / "out"),
            "processed_folder": str(folder / "processed"),
            "control_folder": str(folder / "control"),
            "store_processed": False,
            "polling_interval": connections.broker_poll_interval,
        },
    }


def make_folders(settings: Settings) -> None:
    """The filesystem broker's folders (nothing without it): made at a process's start, not at import."""
    if not settings.connections.redis_url:
        for sub in ("out", "processed", "control"):
            (Path(settings.connections.broker_dir) / sub).mkdir(parents=True, exist_ok=True)
