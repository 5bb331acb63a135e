"""The propagation rules of the ``fast`` 9x9 Sudoku strategy (numba kernels): one bitboard per
digit, a placement, naked and hidden singles, locked candidates and triads by word operations,
each applied once to a state. fast.py runs them to a fixed point (``propagate``) inside its search.

Representation (9x9 only):

  cell        0..80, numbered r*9 + c; band b = r // 3 (rows 3b..3b+2).
  word        int64 holding 27 bits: the cells of one band, bit (r % 3)*9 + c, so that a
              cell is bit ``cell - 27*b`` of its band's word.
  state       int64[WORDS]: word d*3 + b is digit d's board in band b (the cells where d
              is still possible, placed cells included); word SOLVED + b the placed cells
              of band b. A cell is *placed* when the digit is set there and removed from
              its 20 peers; a cell without any digit, or a row, column or box without some
              digit, is a contradiction. In a search the state is a row of fast.py's stack,
              whose words from TRIADS on are the triads pass's scratch, never copied.
  digit set   int (9 bits): bit d for digit d (value d + 1); the digits whose boards changed
              and need looking at again.
  triad       the three cells of a line (row or column) in a box; each holds exactly three
              digits. A triad word (54 bits) has one bit per triad: row r of band b in box
              k at bit 9r + 3k + b, column c in band b at bit 27 + 9b + c.

The rules: naked singles (per band, the cells set in exactly one digit's board, by a
bit-sliced count over the nine boards, placed digit by digit: such a cell has no other digit to
clear), hidden singles (per digit: the rows, columns and boxes with one cell left, placed
together: the digit's peers per cell, then one pass over the other digits' boards per band),
locked candidates (per digit: the 3x3 box-line segments that hold it, in each band and each
stack, reduced by a table of pointing and claiming, and applied as masks without a branch per
segment), and the triads (per digit its triads and those it is sure of, alone in their box,
counted over the nine digits bit-sliced: a triad with exactly three digits left holds each of
them, one with three sure digits no other).

Bit counts (``bits.popcount``, ``bits.lowest_bit``) compile to the processor's own
instructions. The per-node rules are inlined (``inline="always"``) into fast.py's
``propagate``; a change here makes their cached form stale, which solvers/jitcache.py sees.

Everything here is the numba subset that also runs as plain Python under NUMBA_DISABLE_JIT=1.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solvers.bits import lowest_bit, popcount

N = 9
CELLS = 81
BAND = (1 << 27) - 1
SOLVED = 27
WORDS = 30
TRIADS = WORDS + 1  # a stack row's words after the state and its BRANCHED word (fast.py): per digit
# its triads and its sure triads (``triads``' two passes)
ALL_DIGITS = (1 << N) - 1
THREE_ROWS = 1 | 1 << 9 | 1 << 18  # a column bit times this covers the column in a band
# triads, in a word of 54 bits: the horizontal ones (a row's part of a box) at bit 9r + 3k + b
# (row r of band b, box k of the band: the box's first cell of the row, plus the band), the
# vertical ones (a column's part of a box) at 27 + 9b + c (column c in band b)
TRIAD_CELLS = 0x49 * THREE_ROWS  # a band word's first cell of each horizontal triad
ALL27 = (1 << 27) - 1
ALL_TRIADS = (1 << 54) - 1


def _peer_words() -> np.ndarray:
    """int64[81, 3]: the peers of each cell in each band's word (the cell itself left out)."""
    words = np.zeros((CELLS, 3), np.int64)
    for cell in range(CELLS):
        r, c = divmod(cell, N)
        for other in range(CELLS):
            r2, c2 = divmod(other, N)
            if other != cell and (r == r2 or c == c2 or (r // 3, c // 3) == (r2 // 3, c2 // 3)):
                words[cell, r2 // 3] |= 1 << (other - 27 * (r2 // 3))
    return words


def _locked_table() -> np.ndarray:
    """int64[512]: the segments left of a 3x3 occupancy (bit line*3 + box: the digit is still
    possible in that line's part of that box) once pointing (a box confined to one line clears
    the line's other boxes) and claiming (a line confined to one box clears the box's other
    lines) are applied to a fixed point."""
    table = np.zeros(512, np.int64)
    for occ in range(512):
        keep = occ
        while True:
            before = keep
            for box in range(3):
                lines = [i for i in range(3) if keep >> (i * 3 + box) & 1]
                if len(lines) == 1:
                    keep &= ~sum(1 << (lines[0] * 3 + k) for k in range(3) if k != box)
            for line in range(3):
                boxes = [k for k in range(3) if keep >> (line * 3 + k) & 1]
                if len(boxes) == 1:
                    keep &= ~sum(1 << (i * 3 + boxes[0]) for i in range(3) if i != line)
            if keep == before:
                break
        table[occ] = keep
    return table


PEER_WORDS = _peer_words()
LOCKED = _locked_table()
BOX_WORDS = np.array([0x1C0E07 << 3 * k for k in range(3)], np.int64)  # box k of a band
# the band word of the segments of an occupancy (bit row*3 + box), and of one row's 9 bits the
# boxes it touches (bit box)
SEGMENTS = np.array([sum(7 << (9 * (s // 3) + 3 * (s % 3)) for s in range(9) if occ >> s & 1)
                     for occ in range(512)], np.int64)
ROW_BOXES = np.array([sum(1 << k for k in range(3) if row >> 3 * k & 7) for row in range(512)], np.int64)
# a stack's 3 column bits spread to bits column*3 (a stack's occupancy, with band b shifted by b)
SPREAD = np.array([sum(1 << 3 * j for j in range(3) if x >> j & 1) for x in range(8)], np.int64)
# a stack's occupancy bits of band 0 (column*3), and the band word of stack s's columns among them
STACK_BAND = 0b001_001_001
STACK_COLUMNS = np.array([[sum((1 << 3 * s + j) * THREE_ROWS for j in range(3) if x >> 3 * j & 1)
                           for x in range(STACK_BAND + 1)] for s in range(3)], np.int64)


@njit(cache=True, inline="always")
def place(state: np.ndarray, cell: int, d: int) -> int:
    """Place digit ``d`` in ``cell``: clear the cell from the other boards and the digit from the
    cell's peers. The digits whose boards changed, or -1 when ``d`` is no longer possible there."""
    b = cell // 27
    bit = 1 << (cell - 27 * b)
    if state[d * 3 + b] & bit == 0:
        return -1
    shift = cell - 27 * b
    changed = 1 << d
    for e in range(N):  # without branches: whether the cell still has e is unpredictable
        w = state[e * 3 + b]
        state[e * 3 + b] = w & ~bit
        changed |= (w >> shift & 1) << e
    for k in range(3):
        state[d * 3 + k] &= ~PEER_WORDS[cell, k]
    state[d * 3 + b] |= bit
    state[SOLVED + b] |= bit
    return changed


@njit(cache=True, inline="always")
def naked_singles(state: np.ndarray) -> tuple[int, int]:
    """Place every open cell with one digit left, band by band until none is left.
    (The digits changed, or -1 on a contradiction (a cell without digits); the cells placed.)"""
    changed = 0
    placed = 0
    again = True
    while again:
        again = False
        for b in range(3):
            once = 0
            twice = 0
            for d in range(N):
                w = state[d * 3 + b]
                twice |= once & w
                once |= w
            if once != BAND:
                return -1, placed
            singles = once & ~twice & ~state[SOLVED + b]
            if singles == 0:
                continue
            state[SOLVED + b] |= singles
            placed += popcount(singles)
            again = True
            for d in range(N):  # the singles of each digit at once: their other digits are gone already
                mine = singles & state[d * 3 + b]
                if mine == 0:
                    continue
                changed |= 1 << d
                while mine:
                    bit = mine & -mine
                    mine ^= bit
                    if state[d * 3 + b] & bit == 0:
                        return -1, placed  # an earlier single of the same digit sees this one
                    cell = 27 * b + lowest_bit(bit)
                    for k in range(3):
                        state[d * 3 + k] &= ~PEER_WORDS[cell, k]
    return changed, placed


@njit(cache=True, inline="always")
def single(x: int) -> int:
    """``x`` when it has exactly one bit set, else 0 (without a branch: which units hold a
    single follows no pattern the processor could learn)."""
    return x & -int(x & (x - 1) == 0)


@njit(cache=True, inline="always")
def hidden_singles(state: np.ndarray, d: int) -> tuple[int, int]:
    """Place digit ``d`` in every open cell that is its last in a row, column or box.
    (The digits changed, or -1 on a contradiction (a unit without the digit, or two such
    cells that see each other); the cells placed.)"""
    w0 = state[d * 3]
    w1 = state[d * 3 + 1]
    w2 = state[d * 3 + 2]
    missing = False
    col_once = 0
    col_twice = 0
    uniq0 = 0
    uniq1 = 0
    uniq2 = 0
    for b in range(3):
        w = w0 if b == 0 else (w1 if b == 1 else w2)
        r0 = w & 0x1FF
        r1 = (w >> 9) & 0x1FF
        r2 = w >> 18
        x0 = w & BOX_WORDS[0]
        x1 = w & BOX_WORDS[1]
        x2 = w & BOX_WORDS[2]
        missing |= (r0 == 0) | (r1 == 0) | (r2 == 0) | (x0 == 0) | (x1 == 0) | (x2 == 0)
        uniq = single(r0) | single(r1) << 9 | single(r2) << 18 | single(x0) | single(x1) | single(x2)
        cols = r0 | r1 | r2
        col_twice |= (r0 & r1) | (r1 & r2) | (r0 & r2) | (col_once & cols)
        col_once |= cols
        if b == 0:
            uniq0 = uniq
        elif b == 1:
            uniq1 = uniq
        else:
            uniq2 = uniq
    if missing or col_once != 0x1FF:
        return -1, 0
    col_uniq = (col_once & ~col_twice) * THREE_ROWS
    news = ((uniq0 | (w0 & col_uniq)) & ~state[SOLVED], (uniq1 | (w1 & col_uniq)) & ~state[SOLVED + 1],
            (uniq2 | (w2 & col_uniq)) & ~state[SOLVED + 2])
    if news[0] | news[1] | news[2] == 0:
        return 0, 0
    # placed all at once: first the digit's peers of every new cell, then the cells from the
    # other digits' boards band by band (one pass over the boards, not one per cell)
    for b in range(3):
        new = news[b]
        while new:
            bit = new & -new
            new ^= bit
            cell = 27 * b + lowest_bit(bit)
            for k in range(3):
                state[d * 3 + k] &= ~PEER_WORDS[cell, k]
    changed = 1 << d
    placed = 0
    for b in range(3):
        new = news[b]
        if new == 0:
            continue
        if state[d * 3 + b] & new != new:
            return -1, placed  # two of the new cells see each other
        state[SOLVED + b] |= new
        placed += popcount(new)
        for e in range(N):
            w = state[e * 3 + b]
            clear = new & -int(e != d)  # without a branch, as in place
            changed |= int(w & clear != 0) << e
            state[e * 3 + b] = w & ~clear
    return changed, placed


@njit(cache=True, inline="always")
def locked_candidates(state: np.ndarray, d: int) -> bool:
    """Pointing and claiming for digit ``d`` in each band (lines = rows) and each stack
    (lines = columns); True when its board shrank."""
    changed = False
    for b in range(3):
        w = state[d * 3 + b]
        occ = ROW_BOXES[w & 0x1FF] | ROW_BOXES[(w >> 9) & 0x1FF] << 3 | ROW_BOXES[w >> 18] << 6
        keep = LOCKED[occ]
        changed |= keep != occ
        state[d * 3 + b] = w & SEGMENTS[keep]
    cols0 = state[d * 3] | state[d * 3] >> 9 | state[d * 3] >> 18
    cols1 = state[d * 3 + 1] | state[d * 3 + 1] >> 9 | state[d * 3 + 1] >> 18
    cols2 = state[d * 3 + 2] | state[d * 3 + 2] >> 9 | state[d * 3 + 2] >> 18
    kept0 = kept1 = kept2 = 0  # the columns each band keeps, as words
    for s in range(3):
        # bit column*3 + band: the stack's columns are its lines, its bands its boxes
        occ = (SPREAD[(cols0 >> 3 * s) & 7] | SPREAD[(cols1 >> 3 * s) & 7] << 1
               | SPREAD[(cols2 >> 3 * s) & 7] << 2)
        keep = LOCKED[occ]
        changed |= keep != occ
        kept0 |= STACK_COLUMNS[s, keep & STACK_BAND]
        kept1 |= STACK_COLUMNS[s, keep >> 1 & STACK_BAND]
        kept2 |= STACK_COLUMNS[s, keep >> 2 & STACK_BAND]
    if changed:  # without a branch per segment: the columns kept cover every candidate left
        state[d * 3] &= kept0
        state[d * 3 + 1] &= kept1
        state[d * 3 + 2] &= kept2
    return changed


@njit(cache=True, inline="always")
def triad_words(w0: int, w1: int, w2: int) -> tuple[int, int]:
    """A digit's triads (those where its boards ``w0``..``w2`` still have a cell) and its sure
    triads (the digit must be there), as triad words. Sure is alone in its box: at the fixed
    point of the locked candidates, where this is called, that is also alone in its line."""
    h = ((w0 | w0 >> 1 | w0 >> 2) & TRIAD_CELLS | ((w1 | w1 >> 1 | w1 >> 2) & TRIAD_CELLS) << 1
         | ((w2 | w2 >> 1 | w2 >> 2) & TRIAD_CELLS) << 2)
    v = ((w0 | w0 >> 9 | w0 >> 18) & 0x1FF | ((w1 | w1 >> 9 | w1 >> 18) & 0x1FF) << 9
         | ((w2 | w2 >> 9 | w2 >> 18) & 0x1FF) << 18)
    # the others in a horizontal triad's box, and in a vertical triad's column, are 9 or 18 bits away
    h_box = (h >> 9 | h << 9 | h >> 18 | h << 18) & ALL27
    v_line = (v >> 9 | v << 9 | v >> 18 | v << 18) & ALL27
    return h | v << 27, (h & ~h_box) | (v & ~v_line) << 27


@njit(cache=True, inline="always")
def triad_clear(assert_: int, remove: int, b: int) -> int:
    """The cells of band ``b`` a digit loses: those of the triads in ``remove``, and those in the
    line or box of a triad in ``assert_`` (the digit must be there) outside it."""
    rm = (remove >> b) & TRIAD_CELLS
    a = (assert_ >> b) & TRIAD_CELLS
    rows = ((a | a >> 3 | a >> 6) & THREE_ROWS) * 0x1FF
    boxes = ((a | a >> 9 | a >> 18) & 0x49) * 7 * THREE_ROWS
    clear = rm * 7 | (rows | boxes) & ~(a * 7)
    rv = (remove >> (27 + 9 * b)) & 0x1FF
    av = (assert_ >> 27) & ALL27
    mine = (av >> 9 * b) & 0x1FF
    columns = (av | av >> 9 | av >> 18) & 0x1FF & ~mine  # asserted in another band
    stacks = ((mine | mine >> 1 | mine >> 2) & 0x49) * 7 & ~mine
    return clear | (rv | columns | stacks) * THREE_ROWS


@njit(cache=True)
def triads(state: np.ndarray) -> int:
    """Each triad (three cells of a line in a box) holds exactly three digits: the digits of a
    triad with exactly three left must be there (and so nowhere else in its line and box), and a
    triad with three sure digits holds no other. Bit-parallel over all 54 triads: a first pass
    counts per triad the digits left and the sure ones, the second applies both rules to the
    digits they change (a digit sure in a triad gains nothing from the first rule: the locked
    candidates already hold). The digits whose boards changed, or -1 on a contradiction (a
    triad with fewer than three digits left, or more than three sure)."""
    one = two = three = four = 0
    sure1 = sure2 = sure3 = sure4 = 0
    for d in range(N):
        t, sure = triad_words(state[d * 3], state[d * 3 + 1], state[d * 3 + 2])
        state[TRIADS + d] = t
        state[TRIADS + N + d] = sure
        four |= three & t
        three |= two & t
        two |= one & t
        one |= t
        sure4 |= sure3 & sure
        sure3 |= sure2 & sure
        sure2 |= sure1 & sure
        sure1 |= sure
    if three != ALL_TRIADS or sure4:
        return -1
    exact = three & ~four
    changed = 0
    for d in range(N):
        t = state[TRIADS + d]
        loose = t & ~state[TRIADS + N + d]
        work = loose & (exact | sure3)
        if work == 0:
            continue
        changed |= 1 << d
        for b in range(3):
            state[d * 3 + b] &= ~triad_clear(loose & exact, loose & sure3, b)
    return changed

