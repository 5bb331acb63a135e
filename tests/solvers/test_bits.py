"""The kernels' bit helpers, compiled (the processor's instructions) and as plain Python, and the
rule that every kernel takes them from solvers/bits.py rather than keeping a copy."""

import ast
from pathlib import Path

import numpy as np
from numba import njit

from solvers.bits import lowest_bit, nth_bit, popcount

WORDS = (0, 1, 0b1011, (1 << 26) | (1 << 9) | 1, (1 << 62) - 1, 0x5555_5555_5555_5555, 2**63 - 1,
         -1, -(2**63), -6)
SOLVERS = Path(__file__).resolve().parents[2] / "solvers"


@njit(cache=False)
def _compiled(words):
    counts, lowest = np.zeros(len(words), np.int64), np.full(len(words), -1, np.int64)
    for i in range(len(words)):
        counts[i] = popcount(words[i])
        if words[i]:
            lowest[i] = lowest_bit(words[i])
    return counts, lowest


def test_bit_counts_agree_with_python_compiled_and_plain():
    counts, lowest = _compiled(np.array(WORDS, np.int64))
    expected = [bin(w & (2**64 - 1)).count("1") for w in WORDS]  # a negative word's 64 bits
    assert counts.tolist() == expected == [popcount(w) for w in WORDS]
    assert [popcount(np.int64(w)) for w in WORDS] == expected
    assert lowest.tolist()[1:] == [(w & -w).bit_length() - 1 for w in WORDS[1:]]
    assert [lowest_bit(1 << i) for i in range(63)] == list(range(63))


def test_nth_bit_compiled_and_plain():
    word = 0b1011_0100
    assert [nth_bit(word, i) for i in range(4)] == [0b100, 0b1_0000, 0b10_0000, 0b1000_0000]
    plain = getattr(nth_bit, "py_func", nth_bit)  # under NUMBA_DISABLE_JIT=1 it is the function itself
    assert [plain(word, i) for i in range(4)] == [0b100, 0b1_0000, 0b10_0000, 0b1000_0000]
    assert nth_bit(2**62 | 1, 1) == 2**62


def test_no_kernel_keeps_its_own_bit_helper():
    """A function of solvers/ other than bits.py whose name says popcount, lowest or n-th bit."""
    names = ("popcount", "pop", "lowest", "lowest_bit", "bit_value", "nth_bit", "select")
    copies = []
    for path in SOLVERS.rglob("*.py"):
        if path.name == "bits.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and node.name.lstrip("_") in names:
                copies.append(f"{path.relative_to(SOLVERS)}:{node.lineno} {node.name}")
    assert copies == []
