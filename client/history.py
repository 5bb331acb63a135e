"""A job's history as a table for people: `puzzle-queue events JOB` (docs/API.md, "Events")."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from client.fleet import table

LEFT = {"lost": "its chunk's worker was lost", "solved_alone": "to be solved alone"}


def _seconds(detail: dict[str, Any]) -> str:
    """``predicted 0.031 s, took 12.9 s`` from a finished event, as far as it says."""
    said = [f"{word} {detail[key]:.3g} s" for word, key in (("predicted", "estimated_seconds"),
                                                            ("took", "seconds")) if key in detail]
    return ", ".join(said)


def _finished(detail: dict[str, Any]) -> str:
    if "statuses" in detail:  # a chunk's run
        what = ", ".join(f"{status} {n:,}" for status, n in detail["statuses"].items())
        errors = "; ".join(f"#{i}: {error}" for i, error in detail.get("errors", {}).items())
        return "; ".join(filter(None, (what, _seconds(detail), errors)))
    return "; ".join(filter(None, (detail["status"], _seconds(detail), detail.get("error"))))


def describe(event: dict[str, Any]) -> str:
    """What an event says beyond its type, worker and puzzles, in words."""
    detail, kind = event.get("detail") or {}, event["type"]
    if kind == "submitted":
        return f"{detail.get('total', 0):,} puzzles"
    if kind == "finished":
        return _finished(detail)
    if kind == "ended":
        return str(detail.get("status", ""))
    if kind == "moved":
        cap = detail.get("cap_seconds")
        return f"to the {detail.get('lane', 'dear')} lane" + ("" if cap is None else f", past {cap:g} s")
    if kind == "split":
        return f"into {detail.get('parts', 0):,} parts"
    if kind == "left":
        return LEFT.get(detail.get("reason", ""), str(detail.get("reason", "")))
    if kind == "retried":
        was = detail.get("was", "")
        error = f": {detail['error']}" if detail.get("error") else ""
        return f"was {was}{error}; options {json.dumps(detail.get('options', {}), sort_keys=True)}"
    if kind == "handed_on":
        return "published again" + ("" if event.get("worker") else " (its message was lost)")
    return ""


def _puzzles(event: dict[str, Any]) -> str:
    first, last, part = event.get("index"), event.get("last_index"), event.get("part")
    if first is None:
        return "job"
    where = f"#{first}" if last in (None, first) else f"#{first}-{last}"
    return where if part is None else f"{where} part {part}"


def events_table(found: Sequence[dict[str, Any]]) -> str:
    if not found:
        return "no events"
    rows = [[e["at"][:23].replace("T", " "), e["type"], _puzzles(e), e.get("worker") or "-",
             "-" if e.get("attempt") is None else str(e["attempt"]), describe(e)] for e in found]
    return table(["AT (UTC)", "EVENT", "PUZZLES", "WORKER", "ATTEMPT", "DETAIL"], rows)
