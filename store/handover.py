"""A request's publishing bounded in time (SUBMIT_PUBLISH_SECONDS): the rows a POST or a retry
committed are published from a thread of their own, and the request waits for it at most that
long. What is not published by then is marked due (store.publish.mark_due), so the reaper's next
run, REAP_INTERVAL later, publishes it; the thread publishes nothing more once the request stopped
waiting, but for the call it is in, which may still reach the broker (a task published twice
claims nothing the second time: claims are conditional on state). A broker that hangs (Redis
stopped, its socket open) or a batch of many thousand dear tasks holds the thread, never the
request.

Terms (publish, due, reaper): docs/glossary.md.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence

from sqlalchemy.orm import Session, sessionmaker

from store.models import Chunk, Puzzle
from store.publish import Publisher, mark_due

log = logging.getLogger(__name__)


class _Watched:
    """A Publisher that records the ids each call got to the broker, and sends nothing once
    ``late`` is set (the request marks those rows due instead)."""

    def __init__(self, inner: Publisher):
        self.inner = inner
        self.late = threading.Event()
        self.lock = threading.Lock()
        self.puzzles: set[int] = set()
        self.chunks: set[int] = set()

    def publish(self, chunks: Sequence[Sequence[int]], dear: bool = False, rank: int = 0) -> None:
        if not self.late.is_set():
            self.inner.publish(chunks, dear=dear, rank=rank)
            with self.lock:
                self.puzzles.update(i for ids in chunks for i in ids)

    def publish_chunks(self, chunk_ids: Sequence[int], rank: int = 0) -> None:
        if not self.late.is_set():
            self.inner.publish_chunks(chunk_ids, rank=rank)
            with self.lock:
                self.chunks.update(chunk_ids)

    def publish_parts(self, groups: Sequence[Sequence[int]], ranks: Sequence[int] | None = None) -> None:
        self.inner.publish_parts(groups, ranks)  # not a request's: the workers publish parts

    def publish_deliveries(self, due: Sequence[tuple[int, int]]) -> None:
        self.inner.publish_deliveries(due)  # not a request's: the sweep publishes deliveries


def publish_within(seconds: float, publisher: Publisher, sessions: sessionmaker[Session],
                   send: Callable[[Publisher], None], puzzles: Sequence[int], chunks: Sequence[int]) -> bool:
    """Run ``send`` (publishing committed ``puzzles`` and ``chunks`` by id through the publisher
    it is given) in a thread, waiting for it at most ``seconds`` (0: in this thread, however long it
    takes). False: it was not done by then, and the rows it had not published are marked due for
    the reaper."""
    if seconds <= 0:
        send(publisher)
        return True
    watched = _Watched(publisher)
    thread = threading.Thread(target=_run, args=(send, watched), name="publish", daemon=True)
    thread.start()
    thread.join(seconds)
    if not thread.is_alive():
        return True
    watched.late.set()
    with watched.lock:
        rows = [i for i in puzzles if i not in watched.puzzles]
        stored = [i for i in chunks if i not in watched.chunks]
    log.warning("publishing took longer than %g s: %d puzzle(s) and %d chunk(s) left to the reaper",
                seconds, len(rows), len(stored))
    if rows:
        mark_due(sessions, rows, Puzzle)
    if stored:
        mark_due(sessions, stored, Chunk)
    return False


def _run(send: Callable[[Publisher], None], publisher: _Watched) -> None:
    try:
        send(publisher)
    except Exception:  # publish_in_lanes marks refused rows due itself; anything else is logged
        log.exception("publishing a request's rows failed; the reaper will publish them")
