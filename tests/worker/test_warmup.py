"""worker.warmup: the processes warming up at once share the units (a file lock each), and the
status files say which kinds are still being prepared."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time

import pytest

import solvers
from deploy import run_local
from worker import warmup

UNITS = [u.name for u in solvers.warm_up_units()]


@pytest.fixture
def compiled(monkeypatch, tmp_path):
    """WarmUpUnit.warm recorded instead of run: the process, the unit, and what preparing said."""
    log = tmp_path / "warmed"

    def record(unit):
        time.sleep(0.05)  # long enough for another process to find its lock held
        line = f"{os.getpid()} {unit.name} {','.join(warmup.preparing(tmp_path))}\n"
        with open(log, "a") as f:
            f.write(line)

    monkeypatch.setattr(solvers.WarmUpUnit, "warm", record)

    def calls() -> list[tuple[int, str, list[str]]]:
        rows = [line.split(" ") for line in log.read_text().splitlines()] if log.exists() else []
        return [(int(pid), name, left.split(",") if left else []) for pid, name, left in rows]

    return calls


def test_the_warm_up_says_which_kinds_are_left_and_clears_the_line_at_the_end(tmp_path, compiled):
    warmup.warm_up(tmp_path)
    assert [name for _, name, _ in compiled()] == UNITS
    left = [said for _, _, said in compiled()]
    assert left[0] == list(solvers.KINDS) and left[-1] == ["sudoku"]  # its grader comes last
    assert warmup.preparing(tmp_path) == [] and not list(tmp_path.glob(warmup.STATUS))


def test_a_held_unit_makes_the_warm_up_take_the_next_then_wait_for_it(tmp_path, compiled, caplog):
    caplog.set_level("INFO", logger="worker.warmup")
    first = solvers.warm_up_units()[0]
    fd = warmup.locked(warmup.lock_path(tmp_path, first), wait=False)
    try:
        other = threading.Thread(target=warmup.warm_up, args=(tmp_path,))
        other.start()
        for _ in range(200):
            if "waiting for its cache entries" in caplog.text:
                break
            other.join(0.05)
        assert "waiting for its cache entries" in caplog.text
        assert [name for _, name, _ in compiled()] == UNITS[1:]
        assert warmup.preparing(tmp_path) == [first.kind.name]
    finally:
        os.close(fd)
    other.join(10)
    assert not other.is_alive() and [name for _, name, _ in compiled()] == UNITS[1:] + UNITS[:1]


def test_two_processes_warming_at_once_each_compile_different_units_and_both_end_ready(tmp_path, compiled):
    fork = multiprocessing.get_context("fork")
    both = [fork.Process(target=warmup.warm_up, args=(tmp_path,)) for _ in range(2)]
    for process in both:
        process.start()
    for process in both:
        process.join(30)
    assert [p.exitcode for p in both] == [0, 0]
    calls = compiled()
    for process in both:  # each warmed every unit: compiled it, or loaded what the other compiled
        assert sorted(name for pid, name, _ in calls if pid == process.pid) == sorted(UNITS)
    first = {}
    for pid, name, _ in calls:
        first.setdefault(name, pid)
    assert set(first.values()) == {p.pid for p in both}  # the first to warm a unit compiled it
    assert warmup.preparing(tmp_path) == []


def test_a_process_killed_mid_compile_leaves_its_unit_and_its_status_to_the_others(tmp_path, monkeypatch):
    started = tmp_path / "started"

    def hang(unit):
        started.write_text(unit.name)
        time.sleep(60)

    monkeypatch.setattr(solvers.WarmUpUnit, "warm", hang)
    dying = multiprocessing.get_context("fork").Process(target=warmup.warm_up, args=(tmp_path,))
    dying.start()
    for _ in range(200):
        if started.exists():
            break
        time.sleep(0.05)
    assert warmup.preparing(tmp_path) == list(solvers.KINDS)
    os.kill(dying.pid, signal.SIGKILL)
    dying.join(10)
    assert warmup.preparing(tmp_path) == []  # its status file is left, unlocked: not read
    warmed: list[str] = []
    monkeypatch.setattr(solvers.WarmUpUnit, "warm", lambda unit: warmed.append(unit.name))
    warmup.warm_up(tmp_path)
    assert warmed == UNITS


def test_make_run_prints_what_the_workers_still_prepare_when_it_changes(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    units = solvers.warm_up_units()
    with warmup.status_file(tmp_path) as say:
        say(units)
        shown = run_local.announce_preparing([])
        assert run_local.announce_preparing(shown) == list(solvers.KINDS)
        say([u for u in units if u.kind.name != "sudoku"])
        run_local.announce_preparing(shown)
    assert run_local.announce_preparing([]) == []
    assert capsys.readouterr().out.splitlines() == ["workers: preparing sudoku, nqueens, sliding, spokes",
                                                    "workers: preparing nqueens, sliding, spokes"]
