"""The worker's main process, before its pool forks, hides what start-up loaded from the garbage
collector and lets a chunk's objects pile up before a young collection (worker.app): every
pool process inherits both."""

from __future__ import annotations

import gc

from worker import app as celery_main
from worker import runtime


def test_the_warm_up_before_forking_freezes_and_raises_the_young_threshold(monkeypatch):
    monkeypatch.setattr(celery_main, "_timed_warm_up", lambda: None)  # the solvers: warmed or not, alike
    before = gc.get_threshold()
    try:
        celery_main._warm_up_before_forking(sender=None)
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == (runtime.YOUNG_COLLECTION_AFTER, *before[1:])
        assert before[0] < runtime.YOUNG_COLLECTION_AFTER
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
