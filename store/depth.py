"""What waits in each broker queue, read from the broker itself for the fleet view (service.fleet):
the messages no worker has taken yet, and how old the oldest of them is.

Redis: a queue is one list per priority level (kombu names the list of level p > 0
``<queue><sep><p>``); its depth is the sum of their lengths, and the oldest message of each list is
at its tail (kombu pushes on the left and takes from the right), its age told by the PUBLISHED_AT
header (store.publish). A message a worker has taken (prefetched or running, in kombu's unacked
hash) is no longer counted.
The filesystem broker (embedded mode, small queues): one file per message in its ``out`` folder
(store.broker), named ``<stamp>_<uuid>.<queue>.msg``; the oldest is the least mtime.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from store.publish import PRIORITIES, PUBLISHED_AT
from store.settings import Settings


@dataclass(frozen=True)
class Backlog:
    """One queue's waiting messages and the age in seconds of the oldest (None: none waits, or its
    age cannot be told: a message sent without PUBLISHED_AT)."""

    depth: int
    oldest_seconds: float | None = None


def backlogs(celery_app: Any, settings: Settings) -> dict[str, Backlog]:
    """Each lane's queue (TASK_QUEUE, DEAR_QUEUE) and what waits in it; raises what the broker's
    client raises when it cannot be reached."""
    queues = settings.lanes.queues
    if not settings.connections.redis_url:
        return folder_backlogs(Path(settings.connections.broker_dir) / "out", queues)
    with celery_app.connection_for_read() as conn:
        conn.ensure_connection(max_retries=1, interval_start=0, timeout=2)
        channel = conn.default_channel
        return {queue: redis_backlog(channel.client, redis_lists(queue, channel.sep)) for queue in queues}


def redis_lists(queue: str, sep: str) -> list[str]:
    """The Redis lists of a queue, one per priority level (store.broker: ``priority_steps``)."""
    return [queue, *(f"{queue}{sep}{level}" for level in range(1, PRIORITIES))]


def redis_backlog(client: Any, lists: Sequence[str]) -> Backlog:
    """The lengths and tails of ``lists`` in one round trip."""
    with client.pipeline() as pipe:
        for name in lists:
            pipe.llen(name)
            pipe.lindex(name, -1)
        answers = pipe.execute()
    sent = [t for t in map(_published_at, answers[1::2]) if t is not None]
    return Backlog(sum(int(n) for n in answers[0::2]), _age(min(sent)) if sent else None)


def _published_at(raw: bytes | str | None) -> float | None:
    if raw is None:
        return None
    try:
        return float(json.loads(raw)["headers"][PUBLISHED_AT])
    except (ValueError, KeyError, TypeError):  # not a message this service sent
        return None


def folder_backlogs(folder: Path, queues: Sequence[str]) -> dict[str, Backlog]:
    """The filesystem broker's messages per queue: a listing, and a stat per message."""
    counts = dict.fromkeys(queues, 0)
    oldest: dict[str, float] = {}
    suffixes = {f"{queue}.msg": queue for queue in queues}
    with os.scandir(folder) as entries:
        for entry in entries:
            queue = suffixes.get(entry.name.partition(".")[2])
            if queue is None:
                continue  # another queue's, or a message still being written (``.msg.part``)
            try:
                sent = entry.stat().st_mtime
            except FileNotFoundError:  # taken by a worker since the listing
                continue
            counts[queue] += 1
            oldest[queue] = min(sent, oldest.get(queue, sent))
    return {queue: Backlog(n, _age(oldest[queue]) if queue in oldest else None)
            for queue, n in counts.items()}


def _age(sent: float) -> float:
    return max(0.0, time.time() - sent)
