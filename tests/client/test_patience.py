"""The client waits out short rate-limit pauses (429 with a small Retry-After) and reports
longer ones (client.api.PatientTransport), without a service: httpx's mock transport."""

from __future__ import annotations

import httpx
import pytest

from client import Busy, Client
from client.api import PatientTransport

KINDS = {"items": [{"kind": "toy"}]}


def answers(*statuses: tuple[int, str]):
    """A transport answering these (status, Retry-After) in turn, then 200; and the requests seen."""
    seen: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if len(seen) <= len(statuses):
            status, pause = statuses[len(seen) - 1]
            return httpx.Response(status, headers={"Retry-After": pause},
                                  json={"title": "Too Many Requests", "status": status})
        return httpx.Response(200, json=KINDS)

    return httpx.MockTransport(handle), seen


@pytest.fixture
def pauses(monkeypatch) -> list[float]:
    slept: list[float] = []
    monkeypatch.setattr("client.api.time.sleep", slept.append)
    return slept


def patient_client(transport) -> Client:
    return Client("http://service.test", transport=transport)


def test_short_pauses_are_waited_out(pauses):
    transport, seen = answers((429, "1"), (429, "2"))
    assert patient_client(transport).kinds() == KINDS["items"]
    assert pauses == [1, 2] and len(seen) == 3


def test_a_post_is_sent_again_whole(pauses):
    transport, seen = answers((429, "1"))
    patient_client(transport).submit([{"kind": "toy", "puzzle": "1"}])
    assert pauses == [1] and len(seen) == 2
    assert seen[0].read() == seen[1].read() and b'"puzzle"' in seen[1].read()
    assert seen[0].headers["Idempotency-Key"] == seen[1].headers["Idempotency-Key"]


@pytest.mark.parametrize("pause", ["10", "60", "Wed, 21 Oct 2026 07:28:00 GMT", ""])
def test_a_long_or_unknown_pause_is_the_callers(pauses, pause):
    transport, seen = answers((429, pause))
    with pytest.raises(Busy) as err:
        patient_client(transport).kinds()
    assert pauses == [] and len(seen) == 1
    assert err.value.retry_after == (float(pause) if pause.isdigit() else None)


def test_the_retries_are_bounded(pauses):
    transport, seen = answers(*[(429, "1")] * 10)
    with pytest.raises(Busy):
        patient_client(transport).kinds()
    assert len(pauses) == PatientTransport.RETRIES and len(seen) == PatientTransport.RETRIES + 1
