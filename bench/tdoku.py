"""tdoku, the reference 9x9 solver, as the Sudoku bench's anchor: a shared library of its solver
(``TdokuSolverDpllTriadSimd``, built by the user from tdoku's own sources; nothing of tdoku is part of
this project) loaded with ctypes and called from a numba loop, so that a call costs what it costs a C
caller (a ctypes call from Python costs a large share of an easy puzzle's whole solve)."""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from pathlib import Path

import numpy as np
from numba import njit

Run = Callable[[np.ndarray, int], tuple[int, int]]  # (puzzles, limit) -> (solutions, guesses)


def loader(library: Path) -> Run:
    """``run(puzzles, limit)``: every row of ``puzzles`` (``encode``) through tdoku's solver with that
    solution limit; the solutions found and the guesses made, in all."""
    solve = ctypes.CDLL(str(library)).TdokuSolverDpllTriadSimd
    solve.restype = ctypes.c_size_t
    solve.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint32, ctypes.c_void_p, ctypes.c_void_p]

    # not cached: the compiled loop holds the address of this process's copy of the library
    @njit
    def run_all(puzzles: np.ndarray, limit: int, solution: np.ndarray,
                guesses: np.ndarray) -> tuple[int, int]:
        total = 0
        guessed = 0
        for i in range(puzzles.shape[0]):
            total += solve(puzzles[i].ctypes.data, limit, 0, solution.ctypes.data, guesses.ctypes.data)
            guessed += guesses[0]
        return total, guessed

    solution = np.zeros(82, np.uint8)
    guesses = np.zeros(1, np.uint64)

    def run(puzzles: np.ndarray, limit: int) -> tuple[int, int]:
        total, guessed = run_all(puzzles, limit, solution, guesses)
        return int(total), int(guessed)

    run(encode([]), 1)  # compiled here, outside the timings

    return run


def encode(puzzles: list[str]) -> np.ndarray:
    """uint8[len, 82]: each puzzle in tdoku's input form ('.' for a blank), NUL-terminated."""
    text = "".join(puzzles).replace("0", ".").encode("ascii")
    rows = np.zeros((len(puzzles), 82), np.uint8)
    rows[:, :81] = np.frombuffer(text, np.uint8).reshape(-1, 81)
    return rows
