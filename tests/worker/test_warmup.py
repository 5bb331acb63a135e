"""worker.warmup: the processes warming up at once share the units (a file lock each), each unit
compiled once; a worker process prepares a kind before its first puzzle of it, compiling it or
waiting for the process that does; the status files and markers say which kinds are still being
prepared."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time

import pytest

import solvers
from deploy import run_local
from worker import warmstatus, warmup

UNITS = [u.name for u in solvers.warm_up_units()]


@pytest.fixture
def compiled(monkeypatch, tmp_path):
    """WarmUpUnit.warm recorded instead of run: the process, the unit, and what preparing said."""
    log = tmp_path / "warmed"

    def record(unit):
        time.sleep(0.05)  # long enough for another process to find its lock held
        line = f"{os.getpid()} {unit.name} {','.join(warmstatus.preparing(tmp_path))}\n"
        with open(log, "a") as f:
            f.write(line)

    monkeypatch.setattr(solvers.WarmUpUnit, "warm", record)

    def calls() -> list[tuple[int, str, list[str]]]:
        rows = [line.split(" ") for line in log.read_text().splitlines()] if log.exists() else []
        return [(int(pid), name, left.split(",") if left else []) for pid, name, left in rows]

    return calls


def wait_until(done, thread: threading.Thread | None = None) -> None:
    """Up to 10 s until ``done()``, looking every 0.05 s (meanwhile joining ``thread``, if given);
    the caller asserts what it waited for."""
    for _ in range(200):
        if done():
            return
        if thread is not None:
            thread.join(0.05)
        else:
            time.sleep(0.05)


def test_the_warm_up_says_which_kinds_are_left_and_clears_the_line_at_the_end(tmp_path, compiled):
    warmup.warm_up(tmp_path)
    assert [name for _, name, _ in compiled()] == UNITS
    left = [said for _, _, said in compiled()]
    assert left[0] == list(solvers.KINDS) and left[-1] == ["sudoku"]  # its grader comes last
    assert warmstatus.preparing(tmp_path) == [] and not list(tmp_path.glob(warmstatus.STATUS))


def test_a_held_unit_makes_the_warm_up_take_the_next_then_wait_for_it(tmp_path, compiled, caplog):
    caplog.set_level("INFO", logger="worker.warmup")
    first = solvers.warm_up_units()[0]
    fd = warmup.locked(warmup.lock_path(tmp_path, first), wait=False)
    try:
        other = threading.Thread(target=warmup.warm_up, args=(tmp_path,))
        other.start()
        wait_until(lambda: "waiting for its cache entries" in caplog.text, other)
        assert "waiting for its cache entries" in caplog.text
        assert [name for _, name, _ in compiled()] == UNITS[1:]
        assert warmstatus.preparing(tmp_path) == [first.kind.name]
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
    assert sorted(name for _, name, _ in calls) == sorted(UNITS)  # each unit compiled once, by one of them
    assert {pid for pid, _, _ in calls} == {p.pid for p in both}
    assert warmstatus.preparing(tmp_path) == [] and warmup.unprepared(tmp_path) == []


def test_a_process_killed_mid_compile_leaves_its_unit_and_its_status_to_the_others(tmp_path, monkeypatch):
    started = tmp_path / "started"

    def hang(unit):
        started.write_text(unit.name)
        time.sleep(60)

    monkeypatch.setattr(solvers.WarmUpUnit, "warm", hang)
    dying = multiprocessing.get_context("fork").Process(target=warmup.warm_up, args=(tmp_path,))
    dying.start()
    wait_until(started.exists)
    assert warmstatus.preparing(tmp_path) == list(solvers.KINDS)
    os.kill(dying.pid, signal.SIGKILL)
    dying.join(10)
    assert warmstatus.preparing(tmp_path) == []  # its status file is left, unlocked: not read
    warmed: list[str] = []
    monkeypatch.setattr(solvers.WarmUpUnit, "warm", lambda unit: warmed.append(unit.name))
    warmup.warm_up(tmp_path)
    assert warmed == UNITS


def test_make_run_prints_what_the_workers_still_prepare_when_it_changes(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    units = solvers.warm_up_units()
    with warmstatus.status_file(tmp_path) as say:
        say(units)
        shown = run_local.announce_preparing([])
        assert run_local.announce_preparing(shown) == list(solvers.KINDS)
        say([u for u in units if u.kind.name != "sudoku"])
        run_local.announce_preparing(shown)
    assert run_local.announce_preparing([]) == []
    assert capsys.readouterr().out.splitlines() == ["workers: preparing sudoku, nqueens, sliding, spokes",
                                                    "workers: preparing nqueens, sliding, spokes"]


def test_a_warm_up_after_one_that_ended_compiles_nothing_until_the_sources_change(tmp_path, compiled,
                                                                                   monkeypatch):
    assert warmup.unprepared(tmp_path) == list(solvers.KINDS)
    assert warmup.warm_up(tmp_path) == UNITS
    assert warmup.unprepared(tmp_path) == []
    assert warmup.warm_up(tmp_path) == [] and len(compiled()) == len(UNITS)
    monkeypatch.setattr(warmup, "fingerprint", lambda: "other sources")
    assert warmup.unprepared(tmp_path) == list(solvers.KINDS)
    assert warmup.warm_up(tmp_path) == UNITS


@pytest.fixture
def fresh_process(monkeypatch):
    """A worker process that has prepared no kind yet."""
    monkeypatch.setattr(warmup, "_prepared", set())


def test_a_process_prepares_a_kind_once_compiling_its_main_unit_alone(tmp_path, compiled, fresh_process):
    warmup.prepare("nqueens", tmp_path)
    warmup.prepare("nqueens", tmp_path)
    assert [name for _, name, _ in compiled()] == ["nqueens"]
    assert warmup.unprepared(tmp_path) == ["sudoku", "sliding", "spokes"]
    warmup.prepare("no such kind", tmp_path)
    assert len(compiled()) == 1


def test_a_kind_compiled_elsewhere_is_loaded_without_its_lock(tmp_path, compiled, fresh_process):
    nqueens = warmup.main_unit("nqueens")
    assert nqueens is not None
    warmup.mark_done(tmp_path, nqueens)
    fd = warmup.locked(warmup.lock_path(tmp_path, nqueens), wait=False)
    try:
        warmup.prepare("nqueens", tmp_path)  # would wait for ever for the lock held above
    finally:
        os.close(fd)
    assert [name for _, name, _ in compiled()] == ["nqueens"]


def test_a_kind_being_compiled_elsewhere_is_waited_for_while_other_kinds_go_on(tmp_path, compiled,
                                                                                fresh_process, caplog):
    caplog.set_level("INFO", logger="worker.warmup")
    sudoku = warmup.main_unit("sudoku")
    assert sudoku is not None
    fd = warmup.locked(warmup.lock_path(tmp_path, sudoku), wait=False)
    waiting = threading.Thread(target=warmup.prepare, args=("sudoku", tmp_path))
    try:
        waiting.start()
        wait_until(lambda: "sudoku: waiting for the process compiling its kernels" in caplog.text, waiting)
        assert "sudoku: waiting for the process compiling its kernels" in caplog.text
        warmup.prepare("spokes", tmp_path)  # another kind is ready meanwhile
        assert [name for _, name, _ in compiled()] == ["spokes"]
        warmup.mark_done(tmp_path, sudoku)  # what the holder does once it has compiled
    finally:
        os.close(fd)
    waiting.join(10)
    assert not waiting.is_alive()
    assert [name for _, name, _ in compiled()] == ["spokes", "sudoku"]  # a load of what the holder wrote
    assert warmup.unprepared(tmp_path) == ["sudoku", "nqueens", "sliding"]  # sudoku's grader is left


def test_a_kind_whose_preparation_fails_is_left_to_its_puzzles(tmp_path, monkeypatch, fresh_process, caplog):
    def broken(unit):
        raise RuntimeError("no compiler here")

    monkeypatch.setattr(solvers.WarmUpUnit, "warm", broken)
    warmup.prepare("sliding", tmp_path)
    assert "sliding: preparing its kernels failed (no compiler here)" in caplog.text
    assert "sliding" in warmup._prepared and warmup.unprepared(tmp_path) == list(solvers.KINDS)


def test_make_run_says_when_every_kind_is_prepared(tmp_path, monkeypatch, capsys, compiled):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    since = run_local.now()
    assert not run_local.announce_prepared(since)
    warmup.warm_up(tmp_path)
    assert run_local.announce_prepared(since)
    assert capsys.readouterr().out.startswith("workers: every kind prepared, ")


def test_a_process_waits_for_the_warm_up_to_compile_its_kind_and_the_warm_up_takes_it_first(
        tmp_path, compiled, fresh_process, caplog):
    caplog.set_level("INFO", logger="worker.warmup")
    sliding = warmup.main_unit("sliding")
    assert sliding is not None
    units = solvers.warm_up_units()
    with warmstatus.status_file(tmp_path) as say:  # a warm-up process, live, with every unit left
        say(units)
        waiting = threading.Thread(target=warmup.prepare, args=("sliding", tmp_path))
        waiting.start()
        wait_until(warmup.wanted_path(tmp_path, sliding).exists, waiting)
        waiting.join(0.3)
        assert waiting.is_alive() and compiled() == []  # it compiles nothing itself: it waits
        assert "sliding: waiting for the warm-up to compile its kernels" in caplog.text
        assert warmup.by_want(tmp_path, units)[0].name == "sliding"
        warmup.warm_up(tmp_path)  # what the warm-up process does
    waiting.join(10)
    assert not waiting.is_alive()
    names = [name for _, name, _ in compiled()]
    assert names[0] == "sliding" and sorted(names) == sorted([*UNITS, "sliding"])  # compiled, then loaded
    assert not warmup.wanted_path(tmp_path, sliding).exists() and "sliding" in warmup._prepared

