"""Prices: what a puzzle is charged before it runs where its kind's prediction is not to be trusted.

A kind says which options its predictor does not model (``Kind.outside_model``). A puzzle of such
options is stored with its signature (``signature``: a digest of its kind and its options, every
default filled in) and, instead of its kind's prediction, with a price (an Estimate whose basis
says which):

  unmeasured  until LEARN_AFTER finished puzzles of its signature have been measured: the most one
              solve (or one part) of it may run before it is stopped (PUZZLE_TIME_LIMIT), within
              the per-puzzle cap (MAX_PUZZLE_CPU_SECONDS, so that no such puzzle is refused for its
              price alone). The cheap lane's cap would be lower, but a puzzle in the dear lane is
              not held to it, so it would undercharge the puzzles that run longer there. Its factor
              is an unknown spread's (the Estimate's default).
  measured    then: the mean CPU seconds measured (``puzzles.cpu_seconds``: every attempt and part)
              of the last RECENT finished puzzles of its signature, never below its kind's own
              prediction; its factor covers the dearest of them.

The price is what the budget, the lanes and the ETA count, as they count any prediction; the
worker's time limits stay its kind's (worker.chunk predicts again, worker.parts.part_limit), so a
price never lets a puzzle run longer.
The prices are learned by reading: the results' writes are not touched, and the partial index
(store.models: ``ix_puzzles_signature``) holds only the measured rows of signatures (a signed row
enters it when first measured, so a submit's inserts do not touch it), read newest first and at
most RECENT a signature. A signature whose measured rows have all gone (store.retention) is
unmeasured again, and priced dear until measured anew.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from solvers.base import Estimate
from solvers.cost import MIN_FACTOR
from store.fastjson import canonical
from store.models import CANCELLED, FINAL, Puzzle
from store.submit import CheckedItem

UNMEASURED, MEASURED = "unmeasured", "measured"
# Finished puzzles of a signature measured before it is priced by them: a few, so that one lucky
# (or unlucky) puzzle does not price all that follow.
LEARN_AFTER = 5
# The measured puzzles a price is learned from, the newest: the read stays small whatever the
# history, and follows a signature whose cost changes (a new machine, a faster solver).
RECENT = 200
# A cancelled puzzle's measurement is a part of its cost only.
_MEASURED_STATUSES = [status for status in FINAL if status != CANCELLED]


def signature(kind: str, options: Any) -> str:
    """The signature of a kind and its options (as stored: every default filled in)."""
    return hashlib.sha256(f"{kind}\0{canonical(options)}".encode()).hexdigest()


def dear_seconds(time_limit: float, cap: float) -> float:
    """The price of an unmeasured signature: the puzzle time limit (PUZZLE_TIME_LIMIT), within the
    per-puzzle cap (MAX_PUZZLE_CPU_SECONDS; 0: none)."""
    return min(time_limit, cap) if cap > 0 else time_limit


def price(own: Estimate, learned: tuple[int, float, float] | None, dear: float) -> Estimate:
    """A signed puzzle's price from its kind's prediction ``own`` and what its signature's measured
    puzzles cost (``learned``: how many, their mean, their most; None: none measured)."""
    if learned is None or learned[0] < LEARN_AFTER:
        return Estimate(max(dear, own.seconds), basis=UNMEASURED)
    _, mean, most = learned
    seconds = max(mean, own.seconds)
    return Estimate(seconds, max(most / seconds, MIN_FACTOR), MEASURED)


def learned(s: Session, signatures: Iterable[str]) -> dict[str, tuple[int, float, float]]:
    """Per signature with measured finished puzzles: how many of the last RECENT, their mean CPU
    seconds and their most. One indexed read per signature (a batch holds few)."""
    out = {}
    for sig in sorted(set(signatures)):
        recent = (select(Puzzle.cpu_seconds)
                  .where(Puzzle.signature == sig, Puzzle.cpu_seconds.is_not(None),
                         Puzzle.status.in_(_MEASURED_STATUSES))
                  .order_by(Puzzle.id.desc()).limit(RECENT).subquery())
        count, mean, most = s.execute(select(func.count(), func.avg(recent.c.cpu_seconds),
                                             func.max(recent.c.cpu_seconds))).one()
        if count:
            out[sig] = (int(count), float(mean), float(most))
    return out


def priced(s: Session, items: Sequence[CheckedItem], signatures: Sequence[str | None],
           dear: float) -> list[CheckedItem]:
    """The checked items, each signed one (its signature in ``signatures``, else None) with its
    signature and priced (``price``); the others as they are. Reads only when an item is signed."""
    known = learned(s, {sig for sig in signatures if sig is not None})
    prices: dict[tuple[str, Estimate], Estimate] = {}
    out = []
    for item, sig in zip(items, signatures, strict=True):
        if sig is None:
            out.append(item)
            continue
        key = (sig, item.estimate)
        if key not in prices:
            prices[key] = price(item.estimate, known.get(sig), dear)
        out.append(CheckedItem(item.kind, item.puzzle, item.options, prices[key], sig, item.item))
    return out
