"""The kernels' bit counts, compiled (the processor's instructions) and as plain Python."""

import numpy as np
from numba import njit

from solvers.bits import lowest_bit, popcount

WORDS = (0, 1, 0b1011, (1 << 26) | (1 << 9) | 1, (1 << 62) - 1, 0x5555_5555_5555_5555, 2**63 - 1)


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
    assert counts.tolist() == [bin(w).count("1") for w in WORDS] == [popcount(w) for w in WORDS]
    assert lowest.tolist()[1:] == [(w & -w).bit_length() - 1 for w in WORDS[1:]]
    assert [lowest_bit(1 << i) for i in range(63)] == list(range(63))
