"""Request-rate limits (service.ratelimit): per client, writes and reads counted apart, long polls
not counted, 429 problem+json with Retry-After, health checks exempt, and a Redis that goes away
costs no request an error."""

from __future__ import annotations

import pytest
import redis
from limits import parse_many

from store.settings import Settings
from tests.integration.test_redis_restart import private_redis
from tests.service.conftest import row_counts
from tests.service.test_api import submit
from tests.services import free_port, fresh_redis

ALICE, BOB = {"Authorization": "Bearer secret-a"}, {"Authorization": "Bearer secret-b"}
TOKENS = "alice:secret-a,bob:secret-b"


def assert_too_many(r) -> int:
    assert r.status_code == 429 and r.mimetype == "application/problem+json", r.data
    assert r.json["title"] == "Too Many Requests" and r.json["limit"] == "3 per 1 hour"
    retry = int(r.headers["Retry-After"])
    assert 1 <= retry <= 3600 and f"try again in {retry} s" in r.json["detail"]
    return retry


def test_a_client_over_its_limit_gets_429_and_nothing_is_stored(make_app, toy):
    app = make_app(API_TOKENS=TOKENS, RATE_LIMIT="3/hour", READ_RATE_LIMIT="5/hour")
    client = app.test_client()
    assert [submit(client, headers=ALICE).status_code for _ in range(3)] == [202] * 3
    assert_too_many(submit(client, headers=ALICE))
    assert_too_many(client.delete("/api/v1/jobs/00000000-0000-0000-0000-000000000000", headers=ALICE))
    assert row_counts(app)[0] == 3
    # Reads have their own count: the writes spent none of it.
    assert [client.get("/api/v1/jobs", headers=ALICE).status_code for _ in range(5)] == [200] * 5
    assert client.get("/api/v1/jobs", headers=ALICE).status_code == 429
    # Bob has his own counts.
    assert client.get("/api/v1/jobs", headers=BOB).status_code == 200
    assert submit(client, headers=BOB).status_code == 202


def test_a_long_poll_that_waits_is_not_counted_as_a_read(make_app, toy):
    client = make_app(READ_RATE_LIMIT="3/hour").test_client()
    job = submit(client).json["id"]  # no worker here: the job stays queued
    polls = [client.get(f"/api/v1/jobs/{job}?wait=0.05").status_code for _ in range(6)]
    assert polls == [200] * 6
    assert client.get(f"/api/v1/jobs/{job}?wait=0").status_code == 200  # no wait: a read
    assert client.post(f"/api/v1/jobs/{job}/cancel").status_code == 202  # final: nothing to wait for
    assert client.get(f"/api/v1/jobs/{job}?wait=5").status_code == 200  # answered at once: a read
    assert client.get(f"/api/v1/jobs/{job}").status_code == 200  # the third read
    assert_too_many(client.get(f"/api/v1/jobs/{job}?wait=5"))


def test_a_long_poll_whose_first_look_takes_its_whole_wait_is_not_counted_either(make_app, toy):
    """A wait of a microsecond is over before the job is first read (the case of a slow read on a
    busy machine): the request still came to wait on an unfinished job, and is not counted."""
    client = make_app(READ_RATE_LIMIT="3/hour").test_client()
    job = submit(client).json["id"]
    polls = [client.get(f"/api/v1/jobs/{job}?wait=0.000001") for _ in range(5)]
    assert [p.status_code for p in polls] == [200] * 5 and polls[-1].json["status"] == "queued"
    assert [client.get(f"/api/v1/jobs/{job}").status_code for _ in range(3)] == [200] * 3
    assert_too_many(client.get(f"/api/v1/jobs/{job}"))


def test_the_tightest_of_several_limits_answers(make_app, toy):
    client = make_app(READ_RATE_LIMIT="100/hour;3/hour").test_client()
    assert [client.get("/api/v1/kinds").status_code for _ in range(3)] == [200] * 3
    assert_too_many(client.get("/api/v1/kinds"))


def test_without_auth_the_limit_counts_by_address(make_app, toy):
    client = make_app(READ_RATE_LIMIT="3/hour").test_client()
    here, there = {"REMOTE_ADDR": "192.0.2.1"}, {"REMOTE_ADDR": "192.0.2.2"}
    for _ in range(3):
        assert client.get("/api/v1/jobs", environ_base=here).status_code == 200
    assert_too_many(client.get("/api/v1/jobs", environ_base=here))
    assert client.get("/api/v1/jobs", environ_base=there).status_code == 200


@pytest.mark.parametrize("hops", [0, 1])
def test_behind_a_trusted_proxy_the_address_is_the_one_it_forwards(make_app, toy, hops):
    # The compose file's nginx overwrites X-Forwarded-For with its peer's address; without a
    # trusted proxy the header is the client's own word and changes nothing.
    client = make_app(READ_RATE_LIMIT="3/hour", TRUSTED_PROXIES=hops).test_client()
    proxy = {"REMOTE_ADDR": "10.0.0.2"}
    def via(address: str):
        return client.get("/api/v1/jobs", environ_base=proxy, headers={"X-Forwarded-For": address})
    for _ in range(3):
        assert via("192.0.2.1").status_code == 200
    assert_too_many(via("192.0.2.1"))
    assert via("192.0.2.2").status_code == (200 if hops else 429)


def test_guessed_tokens_are_limited_by_address(make_app, toy):
    client = make_app(API_TOKENS=TOKENS, READ_RATE_LIMIT="3/hour").test_client()
    wrong = {"Authorization": "Bearer guess"}
    assert [client.get("/api/v1/jobs", headers=wrong).status_code for _ in range(3)] == [401] * 3
    assert_too_many(client.get("/api/v1/jobs", headers=wrong))
    assert client.get("/api/v1/jobs", headers=ALICE).status_code == 200  # alice is counted apart


def test_health_and_readiness_are_never_limited(make_app, toy):
    client = make_app(READ_RATE_LIMIT="3/hour").test_client()
    for _ in range(3):
        client.get("/api/v1/kinds")
    assert_too_many(client.get("/metrics"))
    assert all(client.get("/healthz").status_code == 200 for _ in range(5))
    assert all(client.get("/readyz").status_code == 200 for _ in range(5))


def test_empty_settings_disable_the_limits(make_app, toy):
    client = make_app(RATE_LIMIT="", READ_RATE_LIMIT="").test_client()
    assert all(client.get("/api/v1/kinds").status_code == 200 for _ in range(30))
    assert "rate_limiter" not in client.application.extensions


def test_limits_are_on_by_default(make_app, toy):
    access = Settings.from_env({}).access
    for default in (access.rate_limit, access.read_rate_limit):
        assert [str(item) for item in parse_many(default)] == ["100 per 1 second", "6000 per 1 minute"]
    assert "rate_limiter" in make_app(RATE_LIMIT=access.rate_limit).extensions
    assert "rate_limiter" in make_app(READ_RATE_LIMIT=access.read_rate_limit).extensions


@pytest.mark.parametrize("name", ["RATE_LIMIT", "READ_RATE_LIMIT"])
@pytest.mark.parametrize("text", ["20/fortnight", "lots", "20 per"])
def test_a_malformed_setting_stops_the_service_at_start(make_app, name, text):
    with pytest.raises(ValueError, match=f"^{name} "):
        make_app(**{name: text})


def test_an_unreachable_redis_costs_no_request_an_error(make_app, toy):
    # Nothing listens there: every storage call fails; the limiter counts in memory instead.
    app = make_app(API_TOKENS=TOKENS, RATE_LIMIT="3/hour", REDIS_URL=f"redis://127.0.0.1:{free_port()}/0")
    client = app.test_client()
    assert [submit(client, headers=ALICE).status_code for _ in range(3)] == [202] * 3
    assert_too_many(submit(client, headers=ALICE))
    assert client.get("/api/v1/jobs", headers=BOB).status_code == 200


@pytest.mark.integration
def test_api_processes_share_the_counts_in_redis(make_app, toy):
    with fresh_redis() as url:
        first, second = (make_app(API_TOKENS=TOKENS, READ_RATE_LIMIT="3/hour", REDIS_URL=url).test_client()
                         for _ in range(2))
        assert first.get("/api/v1/jobs", headers=ALICE).status_code == 200
        assert second.get("/api/v1/jobs", headers=ALICE).status_code == 200
        assert first.get("/api/v1/jobs", headers=ALICE).status_code == 200
        assert_too_many(second.get("/api/v1/jobs", headers=ALICE))
        keys = [k.decode() for k in redis.Redis.from_url(url).keys("LIMITS:*")]
        assert keys == ["LIMITS:LIMITER/puzzle-queue/client:alice/reads/3/1/hour"]


@pytest.mark.integration
def test_a_redis_outage_mid_run_falls_back_to_memory(make_app, toy, tmp_path):
    with private_redis(tmp_path) as server:
        client = make_app(API_TOKENS=TOKENS, READ_RATE_LIMIT="3/hour", REDIS_URL=server.url).test_client()
        name = {"Authorization": "Bearer secret-b"}
        assert client.get("/api/v1/jobs", headers=name).status_code == 200
        assert redis.Redis.from_url(server.url).keys("*client:bob*")  # counted in Redis
        server.crash()
        codes = [client.get("/api/v1/jobs", headers=name).status_code for _ in range(4)]
        # In memory the count starts again: three more answered, then the limit holds.
        assert codes == [200, 200, 200, 429], codes
