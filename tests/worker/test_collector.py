"""The worker's main process, before its pool forks, hides what start-up loaded from the garbage
collector and lets a chunk's objects pile up before a young collection (worker/__init__.py): every
pool process inherits both."""

from __future__ import annotations

import gc

import worker


def test_the_warm_up_before_forking_freezes_and_raises_the_young_threshold(monkeypatch):
    monkeypatch.setattr(worker, "_timed_warm_up", lambda: None)  # the solvers: warmed or not, alike
    before = gc.get_threshold()
    try:
        worker._warm_up_before_forking(sender=None)
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == (worker.YOUNG_COLLECTION_AFTER, *before[1:])
        assert before[0] < worker.YOUNG_COLLECTION_AFTER
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
