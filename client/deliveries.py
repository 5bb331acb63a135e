"""A job's callback deliveries as text for people: `puzzle-queue deliveries JOB`, and what a test
delivery met: `puzzle-queue test-webhook URL`."""

from __future__ import annotations

from typing import Any

from client.fleet import table


def _attempt(a: dict[str, Any]) -> str:
    """One attempt: its number, what came back (an HTTP status, or why none did) and how long it took."""
    answer = str(a["status"]) if a["status"] is not None else (a["error"] or "no answer")
    return f"#{a['number']} {a['at']} {answer} {a['ms']:.0f}ms"


def deliveries_text(items: list[dict[str, Any]]) -> str:
    """Each delivery (one per time the job ended) as a table row, its attempts listed under it."""
    if not items:
        return "no deliveries (the job has no callback_url, or has not ended yet)"
    lines = []
    for d in items:
        when = d["delivered_at"] if d["state"] == "delivered" else d["next_attempt_at"] or "-"
        lines.append(table(["DELIVERY", "STATE", "ATTEMPTS", "DELIVERED/NEXT", "URL"],
                           [[str(d["id"]), d["state"], str(len(d["attempts"])), when, d["url"]]]))
        lines += [f"  {_attempt(a)}" for a in d["attempts"]]
    return "\n".join(lines)


def trial_text(answer: dict[str, Any]) -> str:
    """One line: whether the sample was accepted, what came back and how long it took."""
    status, error = answer["status"], answer["error"]
    came = "no answer" if status is None else f"answered {status}"
    why = f" ({error})" if error and error != came else ""
    verdict = "delivered" if answer["delivered"] else "not delivered"
    return f"{verdict}: {answer['callback_url']} {came} in {answer['ms']:.0f}ms{why}"
