"""Sudoku factory benchmark: the grader's speed and agreement with Sudoku Explainer, and the
generator's rate per band against Debian's qqwing measured in the same run.

    PYTHONPATH=. python bench/factory.py [--quick]

The process pins itself to one core (the machine's last). Rates are CPU seconds
(``time.process_time``; qqwing's from its child's resource usage), the median of REPEATS runs,
after one warm-up call has loaded the compiled kernels. The Spearman correlation (average
ranks for ties) compares the grader's rating with the published SE ratings of a sample of the
Sudoku Exchange diabolical set. qqwing (``apt-get install qqwing``) generates with its own
difficulty levels and no minimality; its puzzles are graded here too, to place its levels on
this scale. Without qqwing on PATH its rows are left out with a note.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from solvers.sudoku.generate import Options, generate  # noqa: E402
from solvers.sudoku.grade import BANDS, grade  # noqa: E402

DATA = ROOT / "tests" / "data" / "sudoku"
REPEATS = 3
QQWING_LEVELS = ("simple", "easy", "intermediate", "expert")


def read(name: str) -> list[str]:
    """The puzzles of a data file: the first 81 symbols of each line, or the second field of
    the Sudoku Exchange format (``hash digits81 rating``)."""
    lines = [line.split() for line in (DATA / name).read_text().splitlines()]
    return [f[1] if len(f) == 3 else f[0][:81] for f in lines if f and not f[0].startswith("#")]


def cpu_rate(work: Callable[[], int], repeats: int) -> float:
    """Items per CPU second of ``work`` (which returns its item count), the median of ``repeats``."""
    rates = []
    for _ in range(repeats):
        start = time.process_time()
        items = work()
        rates.append(items / (time.process_time() - start))
    return statistics.median(rates)


def ranks(xs: list[float]) -> np.ndarray:
    """Ranks 1..n, ties sharing their average rank."""
    values = np.asarray(xs)
    order = np.argsort(values, kind="stable")
    out = np.empty(len(values))
    sorted_values = values[order]
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and sorted_values[j + 1] == sorted_values[i]:
            j += 1
        out[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(xs: list[float], ys: list[float]) -> float:
    return float(np.corrcoef(ranks(xs), ranks(ys))[0, 1])


def grader_rows(quick: bool) -> None:
    top = read("tdoku_puzzles3_magictour_top1465.txt")
    top = top[:200] if quick else top
    rate = cpu_rate(lambda: len([grade(p) for p in top]), 1 if quick else REPEATS)
    print(f"| grader on top1465 ({len(top)} puzzles) | {rate:.0f} puzzles/s |")
    text = (DATA / "sudoku_exchange_diabolical_first5000.txt").read_text()
    exchange = [line.split() for line in text.splitlines()]
    sample = exchange[::25 if quick else 5]
    mine = [grade(p).rating for _, p, _ in sample]
    published = [float(r) for _, _, r in sample]
    print(f"| Spearman with SE, diabolical (every {25 if quick else 5}th: {len(sample)}) | "
          f"{spearman(mine, published):.3f} |")
    print(f"| mean SE rating published, that sample | {statistics.mean(published):.2f} |")
    sets = (("norvig_easy50", read("norvig_easy50.txt")), ("diabolical sample", [p for _, p, _ in sample]),
            ("top1465", top), ("forum hardest 1106", read("tdoku_puzzles6_forum_hardest_1106.txt")))
    for name, puzzles in sets:
        puzzles = puzzles[:100] if quick else puzzles
        ratings = [grade(p).rating for p in puzzles]
        print(f"| mean rating, {name} ({len(puzzles)}) | {statistics.mean(ratings):.2f} "
              f"(median {statistics.median(ratings):.1f}) |")


def qqwing(level: str, count: int) -> tuple[float, list[str]] | None:
    """(puzzles per CPU second, the puzzles) of ``qqwing --generate count --difficulty level``."""
    if shutil.which("qqwing") is None:
        return None
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(["qqwing", "--generate", str(count), "--difficulty", level, "--one-line"],
                          check=True, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    puzzles = [line.strip() for line in done.stdout.splitlines() if len(line.strip()) == 81]
    return len(puzzles) / max(seconds, 1e-3), puzzles


def generator_rows(quick: bool) -> None:
    counts = {"easy": 200, "medium": 200, "hard": 100, "expert": 100, "extreme": 30, None: 200}
    print("| request | puzzles | puzzles/s | attempts per puzzle | mean rating |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for band, count in counts.items():
        count = count // 5 if quick else count
        made: list = []

        def work(band: str | None = band, count: int = count, made: list = made) -> int:
            made[:] = generate(Options(seed=1, band=band), 0, count)
            return count
        rate = cpu_rate(work, 1 if quick else REPEATS)
        attempts = statistics.mean(m.attempts for m in made)
        print(f"| {band or 'any rating'}, minimal | {count} | {rate:.0f} | {attempts:.1f} | "
              f"{statistics.mean(m.rating for m in made):.2f} |")
    for symmetry in ("rotational", "mirror"):
        n = 40 if quick else 200

        def symmetric(symmetry: str = symmetry, n: int = n) -> int:
            return len(generate(Options(seed=1, symmetry=symmetry), 0, n))
        rate = cpu_rate(symmetric, 1)
        print(f"| any rating, {symmetry}, minimal | {n} | {rate:.0f} | 1.0 | |")
    for level in QQWING_LEVELS:
        measured = [qqwing(level, 100 if quick else 500) for _ in range(1 if quick else REPEATS)]
        if measured[0] is None:
            print(f"| qqwing {level} | | (qqwing not on PATH) | | |")
            continue
        rate = statistics.median(m[0] for m in measured if m)
        puzzles = measured[0][1] if measured[0] else []
        ratings = [grade(p).rating for p in puzzles[:200]]
        print(f"| qqwing --difficulty {level} (not minimal) | {len(puzzles)} | {rate:.0f} | | "
              f"{statistics.mean(ratings):.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small samples, one run each")
    args = parser.parse_args()
    cores = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cores[-1]})
    grade(read("tdoku_puzzles3_magictour_top1465.txt")[0])  # load the compiled kernels
    generate(Options(seed=0), 0, 1)
    print(f"One core (cpu {cores[-1]}); bands {BANDS}\n")
    print("| grader | figure |\n| --- | ---: |")
    grader_rows(args.quick)
    print()
    generator_rows(args.quick)


if __name__ == "__main__":
    main()
