"""One callback POST (store.callback_http) against a local server: sent as given, never redirected,
never to a host or address the allow-list leaves out, within the timeout."""

from __future__ import annotations

import time

from store.callback_http import post
from tests.callback_server import CallbackServer

LOCAL = ("127.0.0.1",)
HEADERS = {"Content-Type": "application/json", "X-Signature": "sha256=00"}


def test_the_body_and_headers_arrive_as_given():
    with CallbackServer() as server:
        outcome = post(server.url("/in?x=1"), b'{"a":1}', HEADERS, 2.0, LOCAL)
    assert outcome.accepted and outcome.status == 200 and outcome.error is None and outcome.ms > 0
    [got] = server.received
    assert got.path == "/in?x=1" and got.body == b'{"a":1}'
    assert got.headers["X-Signature"] == "sha256=00"
    assert got.headers["Host"] == f"127.0.0.1:{server.httpd.server_address[1]}"


def test_a_redirect_is_not_followed():
    with CallbackServer() as target, \
            CallbackServer(answers=[(302, {"Location": "/elsewhere"})]) as server:
        server.answers.append((307, {"Location": target.url()}))
        first = post(server.url(), b"{}", HEADERS, 2.0, LOCAL)
        second = post(server.url(), b"{}", HEADERS, 2.0, LOCAL)
    assert first.status == 302 and not first.accepted and "not followed" in (first.error or "")
    assert second.status == 307 and not second.accepted
    assert [r.path for r in server.received] == ["/hook", "/hook"]
    assert target.received == []


def test_a_host_off_the_list_gets_no_request():
    with CallbackServer() as server:
        by_name = post(server.url(host="localhost"), b"{}", HEADERS, 2.0, LOCAL)
        elsewhere = post(server.url(), b"{}", HEADERS, 2.0, ("10.0.0.0/8",))
    assert server.received == []
    port = server.httpd.server_address[1]
    assert by_name.status is None and f"'localhost' at port {port} is not among" in (by_name.error or "")
    assert elsewhere.status is None and not elsewhere.accepted


def test_an_allowed_name_is_resolved_once_and_reached_at_its_address():
    with CallbackServer() as server:
        outcome = post(server.url(host="localhost"), b"{}", HEADERS, 2.0, ("localhost",))
    assert outcome.accepted
    assert server.received[0].headers["Host"] == f"localhost:{server.httpd.server_address[1]}"


def test_an_error_answer_and_a_slow_server_are_failures_with_their_reason():
    with CallbackServer(answers=[(500, {})]) as server:
        failed = post(server.url(), b"{}", HEADERS, 2.0, LOCAL)
        server.delay = 1.0
        slow = post(server.url(), b"{}", HEADERS, 0.2, LOCAL)
    assert failed.status == 500 and not failed.accepted and failed.error == "answered 500"
    assert slow.status is None and "Timeout" in (slow.error or "")


def test_a_refused_connection_is_a_failure():
    with CallbackServer() as server:
        url = server.url()
    outcome = post(url, b"{}", HEADERS, 1.0, LOCAL)
    assert outcome.status is None and "ConnectError" in (outcome.error or "")


def test_an_answer_trickled_a_byte_at_a_time_is_cut_at_the_deadline():
    # Each byte comes well within the deadline; the whole answer (38 bytes) would take about 19 s.
    with CallbackServer(trickle=0.5) as server:
        start = time.monotonic()
        outcome = post(server.url(), b"{}", HEADERS, 2.0, LOCAL)
        took = time.monotonic() - start
    assert outcome.status is None and not outcome.accepted
    assert "ReadTimeout" in (outcome.error or "") and "within the attempt's 2 s" in (outcome.error or "")
    assert 1.9 < took < 6.0 and 1900 < outcome.ms < 6000  # the whole answer would take about 19 s
