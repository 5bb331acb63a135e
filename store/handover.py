"""A request's publishing bounded in time (SUBMIT_PUBLISH_SECONDS): the rows a POST or a retry
committed are published from a thread of their own, and the request waits for it at most that
long. What is not published by then is marked due (store.publish.mark_due), so the reaper's next
run, REAP_INTERVAL later, publishes it; the thread publishes nothing more once the request stopped
waiting, but for the call it is in. That call's rows are not marked due: it may still reach the
broker, and a row published twice would be claimed twice (a claim takes running rows too, those a
lost task held), costing an attempt. If the call fails instead, publish_in_lanes marks its rows due
itself (the broker's socket timeout ends a hung call). A broker that hangs (Redis stopped, its
socket open) or a batch of many thousand dear tasks holds the thread, never the request.

Terms (publish, due, reaper): docs/glossary.md.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Sequence

from sqlalchemy.orm import Session, sessionmaker

from store.models import Chunk, Puzzle
from store.publish import Publisher, mark_due

log = logging.getLogger(__name__)


class _Watched:
    """A Publisher that records the ids each call got to the broker or is sending (``flying``),
    and starts no call once ``late`` is set (the request then marks due the rows no call took)."""

    def __init__(self, inner: Publisher):
        self.inner = inner
        self.late = False
        self.lock = threading.Lock()
        self.puzzles: set[int] = set()
        self.chunks: set[int] = set()

    def _start(self, taken: set[int], ids: Iterable[int]) -> bool:
        """Whether a call may go out; if so its ids count as taken from now on (set and read
        under the lock, so a call is either counted or never started)."""
        with self.lock:
            if not self.late:
                taken.update(ids)
            return not self.late

    def publish(self, chunks: Sequence[Sequence[int]], dear: bool = False, rank: int = 0) -> None:
        if self._start(self.puzzles, (i for ids in chunks for i in ids)):
            self.inner.publish(chunks, dear=dear, rank=rank)

    def publish_chunks(self, chunk_ids: Sequence[int], rank: int = 0) -> None:
        if self._start(self.chunks, chunk_ids):
            self.inner.publish_chunks(chunk_ids, rank=rank)

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
    with watched.lock:
        watched.late = True
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
