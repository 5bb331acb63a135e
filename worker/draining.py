"""What a drain does to a `celery worker` (worker.heartbeat decides when): its consumer stops taking
tasks from its queues, or takes from them again, through Celery's control API.

The message goes to the worker's own node name: in a prefork pool the consumer runs in the main
process while the heartbeats beat in the pool's processes. The consumer finishes the tasks it has
taken (running and prefetched); a cancelled queue stays cancelled when the consumer reconnects to
the broker (Celery drops it from the queues it consumes from), and taking again restores it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


def consumer_control(control: Any, node: Callable[[], str],
                     queues: Callable[[], Sequence[str]]) -> Callable[[bool], None]:
    """``consume(draining)`` for worker.heartbeat: ``control`` is the Celery app's ``control``;
    ``node`` and ``queues`` are read when called (known once the worker is set up)."""

    def consume(draining: bool) -> None:
        name = node()
        if not name:  # sent to no destination, the message would reach every worker
            raise RuntimeError("this worker's Celery node name is not known yet")
        for queue in queues():
            if draining:
                control.cancel_consumer(queue, destination=[name])
            else:
                control.add_consumer(queue, destination=[name])

    return consume
