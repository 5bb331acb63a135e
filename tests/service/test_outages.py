"""store.db.through_outages: a step is called again while the database is unreachable, for a
bounded time, and any other error goes on at once."""

from __future__ import annotations

import pytest
from sqlalchemy.exc import OperationalError

from store import db


class Flaky:
    """Fails with OperationalError ``failures`` times, then returns "done"."""

    def __init__(self, failures: int, error: Exception | None = None):
        self.failures, self.calls, self.error = failures, 0, error

    def __call__(self) -> str:
        self.calls += 1
        if self.calls <= self.failures:
            raise self.error or OperationalError("SELECT 1", {}, ConnectionError("server closed"))
        return "done"


@pytest.fixture
def pauses(monkeypatch):
    slept: list[float] = []
    clock = [0.0]

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock[0] += seconds

    monkeypatch.setattr(db.time, "sleep", sleep)
    monkeypatch.setattr(db.time, "monotonic", lambda: clock[0])
    return slept


def test_an_outage_is_waited_out_with_growing_pauses(pauses, caplog):
    step = Flaky(failures=6)
    assert db.through_outages(step, seconds=30.0, what="chunk") == "done"
    assert step.calls == 7
    assert pauses == [0.25, 0.5, 1.0, 2.0, 4.0, 4.0]
    assert "chunk: the database is not reachable (server closed)" in caplog.text


def test_an_outage_longer_than_the_wait_goes_on_to_the_caller(pauses):
    step = Flaky(failures=100)
    with pytest.raises(OperationalError):
        db.through_outages(step, seconds=3.0, what="chunk")
    assert sum(pauses) <= 3.0 and step.calls == len(pauses) + 1


def test_no_wait_means_the_first_failure_goes_on(pauses):
    step = Flaky(failures=1)
    with pytest.raises(OperationalError):
        db.through_outages(step, seconds=0.0, what="parts")
    assert (step.calls, pauses) == (1, [])


def test_other_errors_are_not_retried(pauses):
    step = Flaky(failures=1, error=ValueError("a bug"))
    with pytest.raises(ValueError, match="a bug"):
        db.through_outages(step, seconds=30.0, what="parts")
    assert (step.calls, pauses) == (1, [])
