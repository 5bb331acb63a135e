"""Starting positions for the Sudoku grader's kernel tests, which run in subprocesses compiled and
as plain Python: a puzzle's candidates once its singles are placed, as the grader holds them."""

from pathlib import Path

import numpy as np

from solvers.sudoku import gradek
from solvers.sudoku.grid import parse_text

DIABOLICAL = Path(__file__).resolve().parents[1] / "data/sudoku/sudoku_exchange_diabolical_first5000.txt"


def diabolical_lines() -> list[str]:
    """The rated diabolical puzzles' lines (rating, then the puzzle)."""
    return DIABOLICAL.read_text().splitlines()


def start(puzzle: str) -> np.ndarray:
    """The candidates of ``puzzle`` (its text form) once singles are placed (gradek.singles)."""
    values = parse_text(puzzle).givens.astype(np.int64)
    cands = gradek.initial_cands(values)
    gradek.singles(values, cands, np.empty((81, 3), np.int64))
    return cands
