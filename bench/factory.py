"""Factory benchmark: the Sudoku grader's speed and agreement with Sudoku Explainer, the 9x9
generator's rate per band against Debian's qqwing measured in the same run; with ``--others``
the other generators (spokes by size and level, sliding by size and distance, Sudoku 4x4 and
16x16) against the generators of Simon Tatham's collection (Debian's sgt-puzzles).

    PYTHONPATH=. python bench/factory.py [--quick] [--others [--only TEXT]] [--se N] [--top] [--generate]

``--generate`` prints only the 9x9 generator's table; ``--top`` only the grader's rate on all of
top1465 (one run, with the share of its puzzles whose hardest step is a guess and their mean
rating). ``--se N`` prints only the grader's agreement with SE on the first N puzzles of the
Sudoku Exchange diabolical set: Spearman's rho, the share rated within 0.5 of SE and exactly (to
0.1), the share whose hardest step is a guess, and puzzles per CPU second (one run).

The process pins itself to one core (the machine's last). Rates are CPU seconds
(``time.process_time``; qqwing's from its child's resource usage), the median of REPEATS runs,
after one warm-up call has loaded the compiled kernels. The Spearman correlation (average
ranks for ties) compares the grader's rating with the published SE ratings of a sample of the
Sudoku Exchange diabolical set. qqwing (``apt-get install qqwing``) generates with its own
difficulty levels and no minimality; its puzzles are graded here too, to place its levels on
this scale, and each band's rate is divided by the rate of the qqwing level the grader puts
in or nearest that band (``QQWING_MATCH``). Without qqwing on PATH its rows say so.

The sgt-puzzles binaries generate from the command line without a display
(``sgt-bridges --generate N 7x7d0``); each row of ``--others`` is divided by the rate of the
Tatham generator named beside it, timed the same way as qqwing: ``bridges`` (Hashiwokakero,
Spokes' relative, d0 easy, d2 hard) for spokes, ``fifteen`` (a uniformly shuffled board, no
distance asked) for sliding, ``solo`` at its basic level for Sudoku (2x2 boxes = 4x4, 4x4 =
16x16).
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

from solvers.base import Option, read_options  # noqa: E402
from solvers.sliding import generate as sliding  # noqa: E402
from solvers.spokes import generate as spokes  # noqa: E402
from solvers.sudoku import making  # noqa: E402
from solvers.sudoku.generate import Options, generate  # noqa: E402
from solvers.sudoku.grade import BANDS, GUESS, grade  # noqa: E402

DATA = ROOT / "tests" / "data" / "sudoku"
REPEATS = 3
QQWING_LEVELS = ("simple", "easy", "intermediate", "expert")
# the qqwing level whose puzzles the grader rates in the band (None: qqwing's own mix)
QQWING_MATCH: dict[str | None, str | None] = {"easy": "easy", "medium": "intermediate", "expert": "expert",
                                              None: None}


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


def se_rows(count: int) -> None:
    """The grader against SE's published ratings on the first ``count`` diabolical puzzles."""
    text = (DATA / "sudoku_exchange_diabolical_first5000.txt").read_text()
    sample = [line.split() for line in text.splitlines()][:count]
    start = time.process_time()
    graded = [grade(p) for _, p, _ in sample]
    rate = len(sample) / (time.process_time() - start)
    mine = [g.rating for g in graded]
    published = [float(r) for _, _, r in sample]
    gaps = [abs(a - b) for a, b in zip(mine, published, strict=True)]
    print(f"| grader vs SE, diabolical (first {count}) | figure |\n| --- | ---: |")
    print(f"| Spearman's rho | {spearman(mine, published):.3f} |")
    print(f"| within 0.5 of SE | {sum(g <= 0.5 + 1e-9 for g in gaps) / count:.1%} |")
    print(f"| exact (to 0.1) | {sum(g < 0.05 for g in gaps) / count:.1%} |")
    print(f"| hardest step a guess | {sum(g.hardest == GUESS for g in graded) / count:.1%} |")
    print(f"| puzzles per CPU second | {rate:.0f} |")


def top_rows() -> None:
    """The grader's puzzles per CPU second on all of top1465, one run."""
    top = read("tdoku_puzzles3_magictour_top1465.txt")
    start = time.process_time()
    graded = [grade(p) for p in top]
    rate = len(top) / (time.process_time() - start)
    print(f"| grader on top1465 ({len(top)} puzzles, one run) | figure |\n| --- | ---: |")
    print(f"| puzzles per CPU second | {rate:.0f} |")
    print(f"| hardest step a guess | {sum(g.hardest == GUESS for g in graded) / len(top):.1%} |")
    print(f"| mean rating | {statistics.mean(g.rating for g in graded):.2f} |")


def child_rate(command: list[str], count: int) -> float | None:
    """Items per CPU second of a child that prints ``count`` items, one a line (its resource
    usage); None when the program is not installed."""
    if shutil.which(command[0]) is None:
        return None
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    made = len([line for line in done.stdout.splitlines() if line.strip()])
    assert made == count, f"{command[0]} printed {made} items, not {count}"
    return count / max(seconds, 1e-3)


def qqwing(level: str | None, count: int) -> tuple[float, list[str]] | None:
    """(puzzles per CPU second, the puzzles) of ``qqwing --generate count`` at ``level`` (its
    own mix of levels when None); None without qqwing."""
    if shutil.which("qqwing") is None:
        return None
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    chosen = ["--difficulty", level] if level else []
    done = subprocess.run(["qqwing", "--generate", str(count), *chosen, "--one-line"],
                          check=True, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    puzzles = [line.strip() for line in done.stdout.splitlines() if len(line.strip()) == 81]
    return len(puzzles) / max(seconds, 1e-3), puzzles


def qqwing_rows(quick: bool) -> dict[str | None, float]:
    """Print qqwing's rate per level with the mean rating of its puzzles; the rates by level."""
    rates: dict[str | None, float] = {}
    for level in (*QQWING_LEVELS, None):
        count = 20 if level == "simple" else 100 if quick else 500  # simple: about 6 a second
        measured = [qqwing(level, count) for _ in range(1 if quick else REPEATS)]
        runs = [m for m in measured if m is not None]
        if not runs:
            print(f"| qqwing {level or ''} | | (qqwing not on PATH) | | | |")
            continue
        rates[level] = statistics.median(rate for rate, _ in runs)
        ratings = [grade(p).rating for p in runs[0][1][:200]]
        print(f"| qqwing --difficulty {level or '(any)'}, not minimal | {len(runs[0][1])} "
              f"| {rates[level]:.0f} "
              f"| | {statistics.mean(ratings):.2f} | 1 |")
    return rates


def generator_rows(quick: bool) -> None:
    counts = {"easy": 200, "medium": 200, "hard": 100, "expert": 100, "master": 30, "extreme": 30, None: 200}
    print("| request | puzzles | puzzles/s | attempts per puzzle | mean rating | of qqwing (level) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    anchors = qqwing_rows(quick)
    for band, count in counts.items():
        count = count // 5 if quick else count
        made: list = []

        def work(band: str | None = band, count: int = count, made: list = made) -> int:
            made[:] = generate(Options(seed=1, band=band), 0, count)
            return count
        rate = cpu_rate(work, 1 if quick else REPEATS)
        attempts = statistics.mean(m.attempts for m in made)
        level = QQWING_MATCH.get(band, "")
        ratio = f"{rate / anchors[level]:.1f} ({level or 'any'})" if level != "" and level in anchors else "-"
        print(f"| {band or 'any rating'}, minimal | {count} | {rate:.0f} | {attempts:.1f} | "
              f"{statistics.mean(m.rating for m in made):.2f} | {ratio} |")
    for symmetry in ("rotational", "mirror"):
        n = 40 if quick else 200

        def symmetric(symmetry: str = symmetry, n: int = n) -> int:
            return len(generate(Options(seed=1, symmetry=symmetry), 0, n))
        rate = cpu_rate(symmetric, 1 if quick else REPEATS)
        print(f"| any rating, {symmetry}, minimal | {n} | {rate:.0f} | 1.0 | | |")


# (kind, its options, generate options, puzzles, the Tatham generator and its parameters)
OTHERS: tuple[tuple[str, tuple[Option, ...], dict[str, object], int, str, str], ...] = (
    *((f"spokes {side}x{side} {level}", spokes.GENERATE_OPTIONS,
       {"width": side, "height": side, "level": level}, count, "sgt-bridges",
       f"{side}x{side}d{0 if level == 'easy' else 2}")
      for side, level, count in ((7, "easy", 100), (7, "hard", 40), (15, "easy", 10), (15, "hard", 5),
                                 (30, "easy", 3), (30, "hard", 2))),
    *((f"sliding {size}x{size} at distance {moves}", sliding.GENERATE_OPTIONS, {"size": size, "moves": moves},
       count, "sgt-fifteen", "4x4")
      for size, moves, count in ((3, 20, 2000), (3, 31, 2000), (4, 30, 50), (4, 50, 20))),
    *((f"sliding {size}x{size}, random walk of {moves}", sliding.GENERATE_OPTIONS,
       {"size": size, "moves": moves}, 200, "sgt-fifteen", f"{size}x{size}")
      for size, moves in ((6, 200), (8, 500))),
    ("sudoku 4x4, minimal", making.OPTIONS, {"size": 4}, 500, "sgt-solo", "2x2db"),
    ("sudoku 16x16, minimal", making.OPTIONS, {"size": 16}, 10, "sgt-solo", "4x4db"),
)


def other_rows(quick: bool, only: str) -> None:
    """One row per request of OTHERS whose name holds ``only``: puzzles per CPU second (seed 1),
    the Tatham generator's rate in the same run, and the ratio."""
    print("| request | puzzles | puzzles/s | Tatham's generator | its puzzles/s | ratio |")
    print("| --- | ---: | ---: | --- | ---: | ---: |")
    for name, spec, raw, count, anchor, params in OTHERS:
        if only not in name:
            continue
        count = max(count // 5, 1) if quick else count
        options = read_options(spec, {**raw, "seed": 1}, name)
        maker = {spokes.GENERATE_OPTIONS: spokes.make,
                 sliding.GENERATE_OPTIONS: sliding.make}.get(spec, making.make)
        maker(options, count)  # the compiled kernels and cached tables loaded
        rate = cpu_rate(lambda maker=maker, options=options, count=count:
                        len([maker(options, i) for i in range(count)]), 1 if quick or count < 20 else REPEATS)
        program = f"/usr/games/{anchor}" if shutil.which(anchor) is None else anchor
        tatham_count = 20 if quick else 200
        rates = [child_rate([program, "--generate", str(tatham_count), params], tatham_count)
                 for _ in range(1 if quick else REPEATS)]
        found = [r for r in rates if r is not None]
        if not found:
            print(f"| {name} | {count} | {rate:.2f} | {anchor} {params} (not installed) | | |")
            continue
        theirs = statistics.median(found)
        print(f"| {name} | {count} | {rate:.2f} | {anchor} {params} | {theirs:.0f} | {rate / theirs:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small samples, one run each")
    parser.add_argument("--others", action="store_true", help="the spokes, sliding and 4x4/16x16 Sudoku "
                        "generators against Tatham's instead")
    parser.add_argument("--only", default="", help="with --others: the rows whose request holds this text")
    parser.add_argument("--generate", action="store_true", help="only the 9x9 generator's table")
    parser.add_argument("--se", type=int, default=0, metavar="N",
                        help="only the agreement with SE on the first N diabolical puzzles")
    parser.add_argument("--top", action="store_true", help="only the grader's rate on all of top1465")
    args = parser.parse_args()
    cores = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cores[-1]})
    if args.others:
        print(f"One core (cpu {cores[-1]})\n")
        other_rows(args.quick, args.only)
        return
    grade(read("tdoku_puzzles3_magictour_top1465.txt")[0])  # load the compiled kernels
    if args.se or args.top:
        print(f"One core (cpu {cores[-1]})\n")
        if args.se:
            se_rows(args.se)
        else:
            top_rows()
        return
    generate(Options(seed=0), 0, 1)
    print(f"One core (cpu {cores[-1]}); bands {BANDS}\n")
    if not args.generate:
        print("| grader | figure |\n| --- | ---: |")
        grader_rows(args.quick)
        print()
    generator_rows(args.quick)


if __name__ == "__main__":
    main()
