"""worker.warmup: one warm-up at a time under a file lock, and the line saying what it prepares."""

from __future__ import annotations

import threading

import pytest

import solvers
from deploy import run_local
from worker import warmup


@pytest.fixture
def compiled(monkeypatch, tmp_path):
    """solvers.warm_up recorded instead of run: each kind, and the status line while it warms."""
    calls: list[tuple[str, list[str]]] = []

    def record(kinds):
        [kind] = kinds
        calls.append((kind.name, warmup.preparing(tmp_path)))

    monkeypatch.setattr(solvers, "warm_up", record)
    return calls


def test_the_warm_up_says_which_kinds_are_left_and_clears_the_line_at_the_end(tmp_path, compiled):
    warmup.warm_up(tmp_path)
    names = list(solvers.KINDS)
    assert len(names) >= 4
    assert compiled == [(name, names[i:]) for i, name in enumerate(names)]
    assert warmup.preparing(tmp_path) == []


def test_a_second_warm_up_waits_for_the_first_to_end(tmp_path, compiled, caplog):
    caplog.set_level("INFO", logger="worker.warmup")
    with warmup.exclusive(tmp_path / warmup.LOCK, lambda: pytest.fail("nobody holds it yet")):
        second = threading.Thread(target=warmup.warm_up, args=(tmp_path,))
        second.start()
        for _ in range(200):
            if "waiting for its cache entries" in caplog.text:
                break
            second.join(0.05)
        assert "waiting for its cache entries" in caplog.text
        assert compiled == []  # the lock is held here: it has warmed nothing
    second.join(10)
    assert not second.is_alive() and [name for name, _ in compiled] == list(solvers.KINDS)


def test_make_run_prints_what_the_workers_still_prepare_when_it_changes(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    (tmp_path / warmup.STATUS).write_text("sudoku nqueens\n")
    shown = run_local.announce_preparing([])
    assert run_local.announce_preparing(shown) == ["sudoku", "nqueens"]
    (tmp_path / warmup.STATUS).write_text("nqueens\n")
    run_local.announce_preparing(shown)
    assert capsys.readouterr().out.splitlines() == ["workers: preparing sudoku, nqueens",
                                                    "workers: preparing nqueens"]
