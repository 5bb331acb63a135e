"""Draining a worker (worker.heartbeat, worker.draining): a beat reads the operator's mark, the
reaper's turn tells the consumer to stop taking from its queues (again while draining, and again
after a failed send), and to take again once the mark is gone."""

from __future__ import annotations

import pytest

from store import workers
from tests.service.conftest import settings_of
from tests.worker.test_heartbeat import Clock
from worker import draining, heartbeat


@pytest.fixture
def app(make_app, toy, database_url):
    return make_app(DATABASE_URL=database_url)


def mark(app, on):
    with app.extensions["sessions"]() as s, s.begin():
        return workers.drain(s, heartbeat.worker_name(), on)


def test_the_consumer_is_told_once_per_change_and_again_while_draining(app):
    clock, told = Clock(), []
    hb = heartbeat.Heartbeat(app.extensions["sessions"], settings_of(app).recovery, lambda _steady: None,
                             clock=clock, consume=told.append)
    hb.tick()
    hb.reap_turn()
    assert told == [], "a worker nobody asked to drain takes work as it started"
    assert mark(app, True) == [heartbeat.worker_name()]
    hb.reap_turn()
    assert told == [], "known with the next beat"
    hb.tick()
    hb.reap_turn()
    hb.reap_turn()
    assert told == [True]
    clock.t += heartbeat.DRAIN_AGAIN_SECONDS
    hb.tick()
    hb.reap_turn()
    assert told == [True, True], "a control message the consumer missed is sent again"
    mark(app, False)
    hb.tick()
    hb.reap_turn()
    clock.t += heartbeat.DRAIN_AGAIN_SECONDS
    hb.tick()
    hb.reap_turn()
    assert told == [True, True, False], "taking again is told once"


def test_a_failed_send_is_tried_again_at_the_next_turn(app):
    told = []

    def consume(on):
        told.append(on)
        if len(told) == 1:
            raise ConnectionError("broker down")

    hb = heartbeat.Heartbeat(app.extensions["sessions"], settings_of(app).recovery, lambda _steady: None,
                             consume=consume)
    hb.tick()
    mark(app, True)
    hb.tick()
    hb.reap_turn()
    assert hb.told is False
    hb.reap_turn()
    assert told == [True, True] and hb.told is True


class Control:
    def __init__(self):
        self.sent = []

    def cancel_consumer(self, queue, destination):
        self.sent.append(("cancel", queue, destination))

    def add_consumer(self, queue, destination):
        self.sent.append(("add", queue, destination))


def test_the_control_messages_go_to_the_workers_own_node_for_each_of_its_queues():
    control = Control()
    consume = draining.consumer_control(control, lambda: "worker-1@h", lambda: ["puzzles", "puzzles.dear"])
    consume(True)
    consume(False)
    assert control.sent == [("cancel", "puzzles", ["worker-1@h"]), ("cancel", "puzzles.dear", ["worker-1@h"]),
                            ("add", "puzzles", ["worker-1@h"]), ("add", "puzzles.dear", ["worker-1@h"])]


def test_no_message_goes_out_before_the_node_name_is_known():
    control = Control()
    with pytest.raises(RuntimeError, match="node name"):
        draining.consumer_control(control, lambda: "", lambda: ["puzzles"])(True)
    assert control.sent == []
